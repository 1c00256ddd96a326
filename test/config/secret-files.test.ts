import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSecretSetting } from '../../src/config/secret-files.js';
import { loadSettings, SettingsError, settingsSchema } from '../../src/config/settings.js';
import { payloadKeysFrom } from '../../src/temporal/payload-codec.js';

// Every secret setting X may be given as a file, X_FILE (a container's secret mount): read once where the
// settings are loaded, trailing new line dropped, refused if other users can read it; X and X_FILE together
// are an error.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'booksync-secret-files-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function secretFile(name: string, text: string, mode = 0o600): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  chmodSync(file, mode);
  return file;
}

describe('X_FILE: a secret setting read from a file', () => {
  it('reads the value, without the trailing new line, for the secrets of every kind', () => {
    const settings = loadSettings({
      COMMAND_API_KEY_FILE: secretFile('command-api-key', 'a-command-api-key-from-a-file\n'),
      CONSOLE_PASSWORD_FILE: secretFile('console-password', 'a console password\r\n'),
      LEDGER_URL_FILE: secretFile('ledger-url', 'postgres://booksync:pw@db:5432/booksync\n'),
      WEBHOOK_SECRETS_FILE: secretFile('webhook-secrets', 'whsec_a,whsec_b\n'),
      QBO_CLIENT_SECRET_FILE: secretFile('qbo-client-secret', 'qbo-secret'),
    });
    expect(settings.COMMAND_API_KEY).toBe('a-command-api-key-from-a-file');
    expect(settings.CONSOLE_PASSWORD).toBe('a console password');
    expect(settings.LEDGER_URL).toBe('postgres://booksync:pw@db:5432/booksync');
    expect(settings.WEBHOOK_SECRETS).toEqual(['whsec_a', 'whsec_b']);
    expect(settings.QBO_CLIENT_SECRET).toBe('qbo-secret');
  });

  it('follows a link to the file (secret mounts are links) and accepts one its group may read', () => {
    const real = secretFile('..data-token', 'an-emulator-admin-token\n', 0o440);
    const link = path.join(dir, 'token');
    symlinkSync(real, link);
    expect(loadSettings({ EMULATOR_ADMIN_TOKEN_FILE: link }).EMULATOR_ADMIN_TOKEN).toBe(
      'an-emulator-admin-token',
    );
  });

  it('is an error together with X, naming both', () => {
    const env = {
      COMMAND_API_KEY: 'a-command-api-key-in-the-env',
      COMMAND_API_KEY_FILE: secretFile('command-api-key', 'a-command-api-key-from-a-file\n'),
    };
    expect(() => loadSettings(env)).toThrow(SettingsError);
    expect(() => loadSettings(env)).toThrow(
      /^COMMAND_API_KEY: set COMMAND_API_KEY or COMMAND_API_KEY_FILE, not both$/,
    );
  });

  it('refuses a file other users can read, a missing file and an empty one, in one line without the value', () => {
    const open = secretFile('open', 'tryton-password\n', 0o644);
    expect(() => loadSettings({ TRYTON_PASSWORD_FILE: open })).toThrow(
      `TRYTON_PASSWORD_FILE: ${open} is open to other users (mode 0644): refused (chmod 600 ${open})`,
    );
    const missing = path.join(dir, 'missing');
    expect(() => loadSettings({ TRYTON_PASSWORD_FILE: missing })).toThrow(
      `TRYTON_PASSWORD_FILE: cannot read ${missing} (ENOENT)`,
    );
    const empty = secretFile('empty', '\n');
    expect(() => loadSettings({ TRYTON_PASSWORD_FILE: empty })).toThrow(
      `TRYTON_PASSWORD_FILE: ${empty} is empty`,
    );
    // A value from a file that fails validation is never echoed.
    const short = secretFile('short', 'shh-secret\n');
    expect(() => loadSettings({ COMMAND_API_KEY_FILE: short })).toThrow(
      /^COMMAND_API_KEY: at least 16 characters, got \(hidden\)$/,
    );
  });

  it('gives PAYLOAD_KEYS from PAYLOAD_KEYS_FILE (one key a line), and refuses both', () => {
    const key = (byte: number) => Buffer.alloc(32, byte).toString('base64');
    const file = secretFile('payload-keys', `# the first encrypts\nnew=${key(1)}\nold=${key(2)}\n`);
    const keys = payloadKeysFrom(loadSettings({ PAYLOAD_KEYS_FILE: file }));
    expect(keys?.map((k) => k.id)).toEqual(['new', 'old']);
    expect(() => loadSettings({ PAYLOAD_KEYS: `k=${key(3)}`, PAYLOAD_KEYS_FILE: file })).toThrow(
      /^PAYLOAD_KEYS: set PAYLOAD_KEYS or PAYLOAD_KEYS_FILE, not both$/,
    );
    const open = secretFile('open-payload-keys', `k=${key(3)}\n`, 0o604);
    expect(() => loadSettings({ PAYLOAD_KEYS_FILE: open })).toThrow(`(chmod 600 ${open})`);
  });

  it('applies to every secret setting, not to the settings naming files or paths', () => {
    const secrets = Object.keys(settingsSchema.shape).filter(isSecretSetting);
    expect(secrets).toEqual(
      expect.arrayContaining([
        'TEMPORAL_API_KEY',
        'PAYLOAD_KEYS',
        'SERVICE_API_KEY',
        'WEBHOOK_SECRETS',
        'COMMAND_API_KEY',
        'CONSOLE_PASSWORD',
        'CONSOLE_READONLY_PASSWORD',
        'EMULATOR_ADMIN_TOKEN',
        'LEDGER_URL',
        'TRYTON_PASSWORD',
        'QBO_CLIENT_SECRET',
        'QBO_TOKEN_KEY',
        'XERO_CLIENT_SECRET',
        'XERO_TOKEN_KEY',
      ]),
    );
    for (const notSecret of [
      'PAYLOAD_KEYS_FILE',
      'QBO_TOKEN_FILE',
      'TEMPORAL_TLS_KEY_PATH',
      'XERO_TOKEN_URL',
      'TRYTON_URL',
    ]) {
      expect(secrets, notSecret).not.toContain(notSecret);
    }
  });
});
