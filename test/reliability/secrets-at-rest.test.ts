import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Store } from '@booksync/emulator/store/store';
import { ensurePrivateDir } from '@booksync/private-files';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { freePort } from '../support/free-port.js';

// The data folder holds secrets: webhook secrets in the emulator's database, API keys in
// embedded-credentials.json, the books in the ledger. They were created with the default umask (a 0755
// folder, 0644 files). Now the folder is 0700 and the files, SQLite's -wal/-shm included, 0600 (decision “Owner-only data folder”), under
// any umask: these tests run with umask 000, where the default would be 0777 and 0666. And
// `booksync emulator` prints where the demo key is kept, the key itself only with --show-key.

const root = fileURLToPath(new URL('../..', import.meta.url));
const mode = (file: string) => statSync(file).mode & 0o777;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'booksync-secrets-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs fn with umask 000, so any file or folder not made private on purpose is world-readable. */
function withOpenUmask<T>(fn: () => T): T {
  const previous = process.umask(0);
  try {
    return fn();
  } finally {
    process.umask(previous);
  }
}

describe('booksync emulator (the CLI command) under umask 000', () => {
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });

  /** Starts `booksync emulator args` and answers its terminal output once it printed the key line. */
  async function emulator(dataDir: string, args: string[]): Promise<string> {
    const port = await freePort();
    const child = spawn(
      'sh',
      ['-c', 'umask 000 && exec "$0" --import tsx src/cli/main.ts emulator "$@"', process.execPath, ...args],
      {
        cwd: root,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          LOG_LEVEL: 'silent',
          BOOKSYNC_DATA_DIR: dataDir,
          EMULATOR_HOST: '127.0.0.1',
          EMULATOR_PORT: String(port),
          EMULATOR_ADMIN_TOKEN: 'secrets-at-rest-admin-token',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.push(child);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const deadline = Date.now() + 45_000;
    while (!/demo API key/.test(output)) {
      if (child.exitCode !== null) throw new Error(`booksync emulator exited ${child.exitCode}: ${output}`);
      if (Date.now() > deadline) throw new Error(`booksync emulator printed no key line: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The emulator answers: its database is open in WAL mode, side files included.
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    return output;
  }

  it('creates the data folder 0700 and its database, -wal, -shm and credentials 0600; prints where the key is, not the key', async () => {
    const dataDir = path.join(dir, 'cli', 'data');
    const output = await emulator(dataDir, []);

    expect(mode(dataDir)).toBe(0o700);
    expect(mode(path.dirname(dataDir))).toBe(0o700);
    const credentialsFile = path.join(dataDir, 'embedded-credentials.json');
    for (const file of ['emulator.db', 'emulator.db-wal', 'emulator.db-shm', 'embedded-credentials.json']) {
      expect({ file, mode: mode(path.join(dataDir, file)).toString(8) }).toEqual({ file, mode: '600' });
    }

    const { apiKey, limitedApiKey } = JSON.parse(readFileSync(credentialsFile, 'utf8')) as {
      apiKey: string;
      limitedApiKey: string;
    };
    expect(output).not.toContain(apiKey);
    expect(output).not.toContain(limitedApiKey);
    expect(output).toContain(credentialsFile);
    expect(output).toContain('--show-key');
  });

  it('prints the demo API key with --show-key (the same key, kept across restarts)', async () => {
    const dataDir = path.join(dir, 'cli', 'data');
    const { apiKey } = JSON.parse(readFileSync(path.join(dataDir, 'embedded-credentials.json'), 'utf8')) as {
      apiKey: string;
    };
    const output = await emulator(dataDir, ['--show-key']);
    expect(output).toContain(`demo API key (sandbox, every permission): ${apiKey}`);
  });
});

describe('SQLite files in the data folder', () => {
  it('the ledger: a new file, its -wal and -shm are 0600 under umask 000', async () => {
    const file = path.join(dir, 'new-ledger.db');
    const ledger = withOpenUmask(() => EmbeddedLedger.open({ path: file }));
    try {
      await ledger.trialBalance();
      for (const f of [file, `${file}-wal`, `${file}-shm`]) {
        expect({ f, mode: mode(f).toString(8) }).toEqual({ f, mode: '600' });
      }
    } finally {
      ledger.close();
    }
  });

  it("the emulator's store (webhook secrets): a new file, its -wal and -shm are 0600 under umask 000", () => {
    const file = path.join(dir, 'new-emulator.db');
    const store = withOpenUmask(() => new Store({ dbPath: file }));
    try {
      for (const f of [file, `${file}-wal`, `${file}-shm`]) {
        expect({ f, mode: mode(f).toString(8) }).toEqual({ f, mode: '600' });
      }
    } finally {
      store.close();
    }
  });

  it('an existing world-readable database and side files (an older version made them) are tightened on open', () => {
    const file = path.join(dir, 'old-ledger.db');
    EmbeddedLedger.open({ path: file }).close();
    writeFileSync(`${file}-wal`, '');
    for (const f of [file, `${file}-wal`]) chmodSync(f, 0o644);
    const ledger = EmbeddedLedger.open({ path: file });
    try {
      expect(mode(file)).toBe(0o600);
      expect(mode(`${file}-wal`)).toBe(0o600);
      expect(mode(`${file}-shm`)).toBe(0o600);
    } finally {
      ledger.close();
    }
  });

  it('leaves ":memory:" alone and never touches a folder that already exists (it may be shared)', () => {
    const shared = path.join(dir, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o755);
    ensurePrivateDir(shared);
    expect(mode(shared)).toBe(0o755);
    EmbeddedLedger.open({ path: ':memory:' }).close();
    expect(existsSync(path.join(root, ':memory:'))).toBe(false);
  });
});
