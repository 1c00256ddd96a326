import { execFile } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { envFileContents, envFileToRead, loadEnvFile, writeEnvFile } from '../../src/config/env-file.js';
import { projectRoot, runBooksync } from '../support/booksync-cli.js';

// A second terminal: `booksync start` writes the settings its environment set to
// BOOKSYNC_DATA_DIR/booksync.env, 0600, and the other commands read that same file (or the one
// BOOKSYNC_ENV_FILE names, and no other); the environment still wins over the file. The file says where
// tokens go, so one another user could have planted, written or read is refused.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'booksync-env-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** `booksync args` through bin/booksync.js, run in `cwd` with only `env` (and PATH, HOME). */
async function booksyncIn(cwd: string, args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [path.join(projectRoot, 'bin', 'booksync.js'), ...args],
      {
        cwd,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'silent', ...env },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** A file of this user only, as the operator makes one. */
function privateFile(file: string, text: string): string {
  writeFileSync(file, text, { mode: 0o600 });
  return file;
}

describe('the deployment env file', () => {
  it('holds the booksync settings the environment set, quoted, nothing else, readable by its owner only', () => {
    const file = writeEnvFile(dir, {
      BOOKSYNC_DATA_DIR: dir,
      EMULATOR_PORT: '4010',
      COMMAND_API_KEY: "a key with 'quotes'",
      PAYLOAD_KEYS: 'k1=c2VjcmV0LWtleS1ub3QtaW4tdGhlLWRhdGEtZm9sZGVyISE=',
      QBO_TOKEN_KEY: 'token-key-not-in-the-data-folder',
      PAYLOAD_KEYS_FILE: '/run/secrets/payload-keys',
      CONSOLE_PASSWORD_FILE: '/run/secrets/console-password',
      HOME: '/root',
      PATH: '/usr/bin',
    });
    expect(file).toBe(path.join(dir, 'booksync.env'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(`BOOKSYNC_DATA_DIR='${dir}'`);
    expect(text).toContain("EMULATOR_PORT='4010'");
    expect(text).toContain('COMMAND_API_KEY="a key with \'quotes\'"');
    expect(text).not.toMatch(/HOME|PATH=/);
    // Keys that open what the data folder and Temporal hold are never written into the data folder.
    expect(text).not.toMatch(/PAYLOAD_KEYS=|QBO_TOKEN_KEY|c2VjcmV0|token-key-not/);
    // Secrets given as files are passed on by path: the other terminal reads the same files.
    expect(text).toContain("PAYLOAD_KEYS_FILE='/run/secrets/payload-keys'");
    expect(text).toContain("CONSOLE_PASSWORD_FILE='/run/secrets/console-password'");
    expect(envFileContents({})).not.toContain('=');
  });

  it('is read from the BOOKSYNC_DATA_DIR it was written to, whatever the working directory', async () => {
    const dataDir = path.join(dir, 'data');
    mkdirSync(dataDir);
    const ledgerDb = path.join(dir, 'books.db');
    const file = writeEnvFile(dataDir, { BOOKSYNC_DATA_DIR: dataDir, LEDGER_DB: ledgerDb });
    expect(envFileToRead({ BOOKSYNC_DATA_DIR: dataDir })).toBe(file);
    const env: NodeJS.ProcessEnv = { BOOKSYNC_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    expect(loadEnvFile(env)).toBe(file);
    expect(env).toEqual({ BOOKSYNC_DATA_DIR: dataDir, LOG_LEVEL: 'warn', LEDGER_DB: ledgerDb });

    const elsewhere = path.join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    const read = await booksyncIn(elsewhere, ['ledger', 'trial-balance'], { BOOKSYNC_DATA_DIR: dataDir });
    expect(read.code, read.stderr).toBe(0);
    expect(statSync(ledgerDb).isFile()).toBe(true);
  }, 60_000);

  it('ignores a .env in the working directory unless BOOKSYNC_ENV_FILE names it', async () => {
    const fromDotEnv = path.join(dir, 'from-dotenv.db');
    privateFile(
      path.join(dir, '.env'),
      `LEDGER_DB='${fromDotEnv}'\nQBO_OAUTH_URL='http://attacker.invalid'\n`,
    );
    const dataDir = path.join(dir, 'data');
    mkdirSync(dataDir);
    expect(envFileToRead({ BOOKSYNC_DATA_DIR: dataDir })).toBeNull();

    const unnamed = await booksyncIn(dir, ['ledger', 'trial-balance'], { BOOKSYNC_DATA_DIR: dataDir });
    expect(unnamed.code, unnamed.stderr).toBe(0);
    expect(existsSync(fromDotEnv)).toBe(false);
    expect(existsSync(path.join(dataDir, 'ledger.db'))).toBe(true);

    const named = await booksyncIn(dir, ['ledger', 'trial-balance'], {
      BOOKSYNC_DATA_DIR: dataDir,
      BOOKSYNC_ENV_FILE: '.env',
    });
    expect(named.code, named.stderr).toBe(0);
    expect(existsSync(fromDotEnv)).toBe(true);
  }, 60_000);

  it('refuses a symbolic link planted as booksync.env: not written through, not read', () => {
    const target = privateFile(path.join(dir, 'planted.env'), "QBO_OAUTH_URL='http://attacker.invalid'\n");
    const file = path.join(dir, 'booksync.env');
    symlinkSync(target, file);
    expect(() => writeEnvFile(dir, { COMMAND_API_KEY: 'a-command-api-key-0123' })).toThrow(
      `${file} is a symbolic link`,
    );
    expect(readFileSync(target, 'utf8')).not.toContain('a-command-api-key');

    const env: NodeJS.ProcessEnv = { BOOKSYNC_DATA_DIR: dir };
    expect(() => loadEnvFile(env)).toThrow(`${file} is a symbolic link: refused`);
    expect(env).toEqual({ BOOKSYNC_DATA_DIR: dir });
    // Named explicitly, too; a dangling link is refused rather than taken for no file.
    expect(() => loadEnvFile({ BOOKSYNC_ENV_FILE: file })).toThrow(/symbolic link/);
    rmSync(target);
    expect(() => loadEnvFile({ BOOKSYNC_DATA_DIR: dir })).toThrow(/symbolic link/);
  });

  it('refuses a file other users can read, named or not, with the fix in one line', async () => {
    const file = path.join(dir, 'booksync.env');
    writeFileSync(file, "LOG_LEVEL='silent'\n");
    chmodSync(file, 0o644);
    for (const env of [{ BOOKSYNC_DATA_DIR: dir }, { BOOKSYNC_ENV_FILE: file }] as Record<string, string>[]) {
      const run = await booksyncIn(dir, ['ledger', 'trial-balance'], env);
      expect(run.code).toBe(1);
      expect(run.stderr.trim()).toBe(
        `booksync: ${file} is open to other users (mode 0644): refused (chmod 600 ${file})`,
      );
    }
  }, 60_000);

  it('is read by a command in another terminal, and the environment wins over it', async () => {
    const ledgerDb = path.join(dir, 'books.db');
    const envFile = privateFile(
      path.join(dir, 'deployment.env'),
      `BOOKSYNC_DATA_DIR='${dir}'\nLEDGER_DB='${ledgerDb}'\nLOG_LEVEL='silent'\n`,
    );
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, BOOKSYNC_ENV_FILE: envFile };
    const read = await runBooksync(['ledger', 'trial-balance'], { env, entry: 'source' });
    expect(read.code, read.stderr).toBe(0);
    expect(statSync(ledgerDb).isFile()).toBe(true);
    const elsewhere = path.join(dir, 'other.db');
    const overridden = await runBooksync(['ledger', 'trial-balance'], {
      env: { ...env, LEDGER_DB: elsewhere },
      entry: 'source',
    });
    expect(overridden.code, overridden.stderr).toBe(0);
    expect(statSync(elsewhere).isFile()).toBe(true);
    const missing = await runBooksync(['ledger', 'trial-balance'], {
      env: { ...env, BOOKSYNC_ENV_FILE: path.join(dir, 'nope.env') },
      entry: 'source',
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('nope.env does not exist');
  }, 60_000);
});
