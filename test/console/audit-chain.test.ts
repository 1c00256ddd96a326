import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCommand } from '../../src/cli/commands/console.js';
import type { Settings } from '../../src/config/settings.js';
import { AuditLog, verifyAuditChain } from '../../src/console/audit-log.js';
import { openConsoleDb } from '../../src/console/console-db.js';
import { SqliteTargetIndex } from '../../src/flows/push/target-index.js';
import { createIngress } from '../../src/ingress/server.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { silentLogger } from '../../src/logging/logger.js';
import { consoleTemporalFake } from './console-fakes.js';
import { session, signIn } from './console-inject.js';

// The console's audit log is append-only in its database and hash-chained: `booksync console audit verify`
// passes on the log the console wrote and, once a row is changed or removed in the file behind its back,
// fails naming the first row that breaks the chain.

const password = 'correct horse battery staple';
const scratch = mkdtempSync(path.join(tmpdir(), 'booksync-audit-chain-'));
let ledger: EmbeddedLedger;

beforeAll(() => {
  ledger = EmbeddedLedger.open();
});
afterAll(() => {
  ledger?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** A data folder whose console.db holds what a console wrote: refused sign-ins, a sign-in, a sign-out. */
async function dataDirWithAuditLog(name: string): Promise<string> {
  const dataDir = path.join(scratch, name);
  const app = createIngress({
    temporalClient: consoleTemporalFake().client,
    taskQueue: 'audit-chain-test',
    webhookSecrets: ['whsec_audit_chain_test'],
    console: {
      ledger,
      targetIndex: new SqliteTargetIndex(ledger.database),
      targets: [],
      credentials: { password },
      storeFile: path.join(dataDir, 'console.db'),
      timeZone: 'UTC',
      secureCookie: false,
    },
  });
  await signIn(app, 'wrong once', { remoteAddress: '192.0.2.1' });
  await signIn(app, 'wrong twice', { account: 'nobody' });
  const { cookie, csrf } = await session(app, password);
  await app.inject({
    method: 'POST',
    url: '/console/sign-out',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    payload: new URLSearchParams({ _csrf: csrf }).toString(),
  });
  await app.close();
  return dataDir;
}

/** `booksync console audit verify` on a data folder: its exit code and what it printed. */
async function verify(dataDir: string) {
  const lines: string[] = [];
  const code = await consoleCommand.run({
    args: ['audit', 'verify'],
    settings: { BOOKSYNC_DATA_DIR: dataDir } as Settings,
    logger: silentLogger,
    out: (line) => lines.push(line),
  });
  return { code, text: lines.join('\n') };
}

describe('booksync console audit verify', () => {
  it('passes on the log the console wrote, and fails naming the row altered in the file', async () => {
    const dataDir = await dataDirWithAuditLog('altered');
    const intact = await verify(dataDir);
    expect(intact).toEqual({
      code: 0,
      text: expect.stringMatching(/the audit log holds, 4 rows; last hash [0-9a-f]{64}$/),
    });

    const db = new Database(path.join(dataDir, 'console.db'));
    // The database refuses to change or remove a row...
    expect(() => db.prepare("UPDATE console_audit SET who = 'someone else' WHERE id = 2").run()).toThrow(
      /append-only/,
    );
    expect(() => db.prepare('DELETE FROM console_audit WHERE id = 2').run()).toThrow(/append-only/);
    // ...so whoever alters it goes around that first.
    db.exec('DROP TRIGGER console_audit_no_update');
    db.prepare("UPDATE console_audit SET detail = 'signed out' WHERE id = 2").run();
    db.close();
    const broken = await verify(dataDir);
    expect(broken.code).toBe(1);
    expect(broken.text).toMatch(/broken at row 2: its contents do not match its hash/);
  });

  it('fails naming the row after one removed, and after one rewritten with its own hash made again', async () => {
    const removedDir = await dataDirWithAuditLog('removed');
    const removed = new Database(path.join(removedDir, 'console.db'));
    removed.exec('DROP TRIGGER console_audit_no_delete');
    removed.prepare('DELETE FROM console_audit WHERE id = 2').run();
    removed.close();
    expect(await verify(removedDir)).toMatchObject({
      code: 1,
      text: expect.stringMatching(/broken at row 3: the rows before it, from 2, are missing/),
    });

    // A row rewritten with a hash made for its new contents: the next row's link gives it away.
    const rehashedDir = await dataDirWithAuditLog('rehashed');
    const rehashed = new Database(path.join(rehashedDir, 'console.db'));
    rehashed.exec('DROP TRIGGER console_audit_no_update');
    rehashed
      .prepare("UPDATE console_audit SET who = 'bookkeeper', hash = ? WHERE id = 1")
      .run('f'.repeat(64));
    rehashed.close();
    const verdict = await verify(rehashedDir);
    expect(verdict.code).toBe(1);
    expect(verdict.text).toMatch(/broken at row 1/);
  });

  it('says so when there is no console.db, exiting non-zero', async () => {
    await expect(verify(path.join(scratch, 'nothing-here'))).rejects.toThrow(/cannot open .*console\.db/);
  });
});

describe('an audit log written before it was chained', () => {
  it('is chained as it stands when console.db is opened, then append-only', () => {
    const file = path.join(scratch, 'legacy.db');
    const legacy = new Database(file);
    legacy.exec(`CREATE TABLE console_audit (id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, who TEXT NOT NULL,
      role TEXT, action TEXT NOT NULL, detail TEXT NOT NULL, outcome TEXT NOT NULL, ip TEXT)`);
    const insert = legacy.prepare(
      "INSERT INTO console_audit (at, who, role, action, detail, outcome, ip) VALUES ('2026-01-01T00:00:00Z', ?, NULL, 'sign-in', 'wrong password', 'refused', '127.0.0.1')",
    );
    insert.run('Mallory');
    insert.run('Ada (console password)');
    legacy.close();

    const db = openConsoleDb(file);
    new AuditLog(db).record({
      who: 'bookkeeper (console password)',
      role: 'bookkeeper',
      action: 'sign-in',
      detail: 'signed in as bookkeeper',
      outcome: 'done',
      ip: '127.0.0.1',
    });
    expect(verifyAuditChain(db)).toMatchObject({ intact: true, rows: 3 });
    expect(() => db.prepare('DELETE FROM console_audit').run()).toThrow(/append-only/);
    db.close();
  });
});
