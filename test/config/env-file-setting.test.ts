import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadEnvFile, withEnvSetting, writeEnvSetting } from '../../src/config/env-file.js';

// One setting written into the deployment's env file (TARGET_ACCOUNTS by `targets setup --apply`): its line
// replaced or added, every other line kept, the file 0600 and never written through a link.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'booksync-env-setting-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('withEnvSetting', () => {
  it('replaces the line (once, where it was) and keeps the others', () => {
    const before = "# comment\nA='1'\nTARGET_ACCOUNTS='Revenue=4000'\nB='2'\nexport TARGET_ACCOUNTS='x'\n";
    expect(withEnvSetting(before, 'TARGET_ACCOUNTS', 'Revenue=9')).toBe(
      "# comment\nA='1'\nTARGET_ACCOUNTS='Revenue=9'\nB='2'\n",
    );
    expect(withEnvSetting("A='1'", 'TARGET_ACCOUNTS', 'Revenue=9')).toBe(
      "A='1'\nTARGET_ACCOUNTS='Revenue=9'\n",
    );
  });
});

describe('writeEnvSetting', () => {
  it('writes 0600, keeps the other settings, and tells when nothing changes', () => {
    const file = path.join(dir, 'booksync.env');
    writeFileSync(file, "LEDGER_DB='/data/ledger.db'\n", { mode: 0o600 });
    expect(writeEnvSetting(file, 'TARGET_ACCOUNTS', 'Revenue=12')).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const env: NodeJS.ProcessEnv = { BOOKSYNC_ENV_FILE: file };
    loadEnvFile(env);
    expect(env).toMatchObject({ LEDGER_DB: '/data/ledger.db', TARGET_ACCOUNTS: 'Revenue=12' });
    const written = readFileSync(file, 'utf8');
    expect(writeEnvSetting(file, 'TARGET_ACCOUNTS', 'Revenue=12')).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe(written);
  });

  it('creates the file in a new data folder, and refuses a link in its place', () => {
    const file = path.join(dir, 'new', 'booksync.env');
    expect(writeEnvSetting(file, 'TARGET_ACCOUNTS', 'Revenue=12')).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe("TARGET_ACCOUNTS='Revenue=12'\n");
    const target = path.join(dir, 'elsewhere.env');
    writeFileSync(target, '', { mode: 0o600 });
    const link = path.join(dir, 'linked.env');
    symlinkSync(target, link);
    expect(() => writeEnvSetting(link, 'TARGET_ACCOUNTS', 'Revenue=12')).toThrow(/symbolic link/);
    expect(readFileSync(target, 'utf8')).toBe('');
  });
});
