import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configurationPage, withConfigurationReference } from '../../src/cli/config-reference.js';
import { loadSettings, SettingsError } from '../../src/config/settings.js';
import { consoleOptions } from '../../src/runtime/console-options.js';

describe('settings from the environment', () => {
  it('applies the embedded defaults when nothing is set', () => {
    const settings = loadSettings({});
    expect(settings.TEMPORAL_ADDRESS).toBeUndefined();
    expect(settings.SERVICE_BASE_URL).toBeUndefined();
    expect(settings.TEMPORAL_TASK_QUEUE).toBe('booksync');
    expect(settings.ledgerDb).toBe('.data/ledger.db');
    expect(settings.WEBHOOK_ALLOW_UNSIGNED).toBe(false);
  });

  it('parses lists, flags and numbers', () => {
    const settings = loadSettings({
      WEBHOOK_SECRETS: 'whsec_a, whsec_b',
      WEBHOOK_ALLOW_UNSIGNED: 'true',
      INGRESS_PORT: '8081',
    });
    expect(settings.WEBHOOK_SECRETS).toEqual(['whsec_a', 'whsec_b']);
    expect(settings.WEBHOOK_ALLOW_UNSIGNED).toBe(true);
    expect(settings.INGRESS_PORT).toBe(8081);
    expect(loadSettings({ WORKER_MAX_CACHED_WORKFLOWS: '500' }).WORKER_MAX_CACHED_WORKFLOWS).toBe(500);
    expect(loadSettings({}).WORKER_MAX_CACHED_WORKFLOWS).toBe(250);
  });

  it.each([
    [{ SERVICE_BASE_URL: 'not a url' }, /^SERVICE_BASE_URL: .*got "not a url"$/],
    [{ TEMPORAL_ADDRESS: 'localhost' }, /^TEMPORAL_ADDRESS: host:port, got "localhost"$/],
    [{ INGRESS_PORT: '70000' }, /^INGRESS_PORT: /],
    [
      { SERVICE_BASE_URL: 'https://api.example.com' },
      /^SERVICE_API_KEY: required when SERVICE_BASE_URL is set$/,
    ],
    [{ COMMAND_API_KEY: 'short' }, /^COMMAND_API_KEY: at least 16 characters, got \(hidden\)$/],
    [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL: /],
    [{ WORKER_MAX_CACHED_WORKFLOWS: '-1' }, /^WORKER_MAX_CACHED_WORKFLOWS: /],
  ])('refuses %o with one line naming the variable', (env, message) => {
    expect(() => loadSettings(env)).toThrow(SettingsError);
    expect(() => loadSettings(env)).toThrow(message);
  });

  it('takes the Web UI of a Temporal server booksync is given, and the console links to it', () => {
    const settings = loadSettings({
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      TEMPORAL_UI_URL: 'https://temporal.example.com/',
    });
    expect(settings.TEMPORAL_UI_URL).toBe('https://temporal.example.com');
    expect(loadSettings({}).TEMPORAL_UI_URL).toBeUndefined();
    expect(() => loadSettings({ TEMPORAL_UI_URL: 'temporal.example.com' })).toThrow(/^TEMPORAL_UI_URL: /);
    const sources = { ledger: {}, targetIndex: {}, reports: {} } as unknown as Parameters<
      typeof consoleOptions
    >[1];
    expect(consoleOptions(settings, sources).temporalUiUrl).toBe('https://temporal.example.com');
    // The embedded dev server's own UI, when there is one, is the one it links to.
    expect(
      consoleOptions(settings, { ...sources, temporalUiUrl: 'http://127.0.0.1:8233' }).temporalUiUrl,
    ).toBe('http://127.0.0.1:8233');
    expect(consoleOptions(loadSettings({}), sources).temporalUiUrl).toBeNull();
  });

  it('never echoes a secret value in its error', () => {
    expect(() => loadSettings({ COMMAND_API_KEY: 'shh-secret' })).toThrow(/hidden/);
    expect(() => loadSettings({ COMMAND_API_KEY: 'shh-secret' })).not.toThrow(/shh-secret/);
  });

  it('takes a PostgreSQL LEDGER_URL, and never echoes a bad one (it may hold a password)', () => {
    expect(loadSettings({}).LEDGER_URL).toBeUndefined();
    const url = 'postgresql://booksync:pw@db.internal:5432/books';
    expect(loadSettings({ LEDGER_URL: url }).LEDGER_URL).toBe(url);
    expect(() => loadSettings({ LEDGER_URL: 'mysql://u:hunter2@db/books' })).toThrow(
      /^LEDGER_URL: a postgres:\/\/ or postgresql:\/\/ url, got \(hidden\)$/,
    );
    expect(() => loadSettings({ LEDGER_URL: 'mysql://u:hunter2@db/books' })).not.toThrow(/hunter2/);
  });
});

describe('the configuration reference (docs/configuration.md)', () => {
  it('is the one generated from the settings schema (npm run docs:config)', () => {
    const page = readFileSync(configurationPage, 'utf8');
    expect(withConfigurationReference(page)).toBe(page);
    expect(page).toContain('| `TEMPORAL_ADDRESS` |');
  });
});

describe('bad configuration stops the program quickly with one line', () => {
  it.each([
    [
      { SERVICE_BASE_URL: 'https://api.example.com' },
      'booksync: SERVICE_API_KEY: required when SERVICE_BASE_URL is set',
    ],
    [{ SERVICE_BASE_URL: '::nope' }, 'booksync: SERVICE_BASE_URL:'],
    [
      { TEMPORAL_ADDRESS: '127.0.0.1:1', SERVICE_BASE_URL: 'http://127.0.0.1:1', SERVICE_API_KEY: 'k' },
      'booksync: TEMPORAL_ADDRESS: cannot reach Temporal at 127.0.0.1:1 (Connection refused)',
    ],
  ])('%o', (env, expected) => {
    const started = Date.now();
    let stderr = '';
    let status = 0;
    try {
      execFileSync(process.execPath, ['bin/booksync.js', 'worker'], {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          BOOKSYNC_DATA_DIR: 'test/.artifacts/bad-config',
          ...env,
        },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 30_000,
      });
    } catch (error) {
      const failure = error as { status: number; stderr: string };
      status = failure.status;
      stderr = failure.stderr;
    }
    expect(status).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(expected);
    console.info(`bad configuration reported in ${Date.now() - started} ms: ${lines[0]}`);
  });
});
