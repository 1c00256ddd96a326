import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { envFileContents, writeEnvFile } from '../../src/config/env-file.js';
import { runBooksync } from '../support/booksync-cli.js';

// A second terminal (issue 28 §2): `booksync start` writes the settings its environment set to
// BOOKSYNC_DATA_DIR/booksync.env, 0600, and the other commands read it (BOOKSYNC_ENV_FILE, ./.env, then
// ./.data/booksync.env); the environment still wins over the file.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'booksync-env-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the deployment env file', () => {
  it('holds the booksync settings the environment set, quoted, nothing else, readable by its owner only', () => {
    const file = writeEnvFile(dir, {
      BOOKSYNC_DATA_DIR: dir,
      EMULATOR_PORT: '4010',
      COMMAND_API_KEY: "a key with 'quotes'",
      PAYLOAD_KEYS: 'k1=c2VjcmV0LWtleS1ub3QtaW4tdGhlLWRhdGEtZm9sZGVyISE=',
      QBO_TOKEN_KEY: 'token-key-not-in-the-data-folder',
      PAYLOAD_KEYS_FILE: '/run/secrets/payload-keys',
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
    expect(text).toContain("PAYLOAD_KEYS_FILE='/run/secrets/payload-keys'");
    expect(envFileContents({})).not.toContain('=');
  });

  it('is read by a command in another terminal, and the environment wins over it', async () => {
    const ledgerDb = path.join(dir, 'books.db');
    const envFile = path.join(dir, 'deployment.env');
    writeFileSync(envFile, `BOOKSYNC_DATA_DIR='${dir}'\nLEDGER_DB='${ledgerDb}'\nLOG_LEVEL='silent'\n`);
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
