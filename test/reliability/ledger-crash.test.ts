import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { twoLine } from '../ledger/fixtures.js';
import { typescriptEntry } from '../support/typescript-entry.js';

// What test/ledger does not cover: the process writing the ledger dies by SIGKILL mid-write (not an
// exception inside a transaction, which test/ledger covers). The file must open, pass SQLite's
// integrity check, hold only whole, balanced entries, and take the interrupted entry again as new or as an
// idempotent repeat.

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'booksync-ledger-crash-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ledger file after its writer is SIGKILLed', () => {
  it('holds only whole balanced entries, passes integrity_check, and accepts the interrupted posts again', async () => {
    const file = path.join(dir, 'books.db');
    const script = path.join(dir, 'writer.mts');
    // Three-line entries (payment, fee, refund-like) posted one by one and in batches, as fast as possible.
    writeFileSync(
      script,
      `import { EmbeddedLedger } from ${JSON.stringify(path.join(root, 'src/ledger/embedded-ledger.ts'))};
import { twoLine } from ${JSON.stringify(path.join(root, 'test/ledger/fixtures.ts'))};
const ledger = EmbeddedLedger.open({ path: ${JSON.stringify(file)} });
for (let i = 0; ; i++) {
  if (i % 2 === 0) await ledger.post(twoLine('payment:p' + i, 1000 + i));
  else await ledger.postMany([twoLine('payment:p' + i, 1000 + i), twoLine('refund:r' + i, 500 + i, { debit: 'revenue:refunds', credit: 'assets:processor-clearing' })]);
  if (i === 50) process.stdout.write('writing\\n');
}
`,
    );
    const child = spawn(process.execPath, typescriptEntry(script), {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_c, s) => resolve(s)));
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on('data', () => resolve());
      void exited.then(() => reject(new Error(`writer exited early: ${stderr}`)));
    });
    // Let it write for a moment longer, then cut it off mid-stream.
    await new Promise((r) => setTimeout(r, 700));
    process.kill(-(child.pid as number), 'SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const raw = new Database(file);
    expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
    raw.close();

    const ledger = EmbeddedLedger.open({ path: file });
    try {
      const entries = await ledger.allEntries();
      expect(entries.length).toBeGreaterThan(50);
      for (const entry of entries) {
        expect(entry.lines.length).toBe(2);
        expect(entry.lines.reduce((s, l) => s + l.amountCents, 0)).toBe(0);
      }
      // postMany is one transaction: a batch is there whole or not at all.
      const keys = new Set(entries.map((e) => e.key));
      for (const key of keys) {
        const match = /^refund:r(\d+)$/.exec(key);
        if (match) expect(keys.has(`payment:p${match[1]}`)).toBe(true);
      }
      for (const key of keys) {
        const match = /^payment:p(\d+)$/.exec(key);
        if (match && Number(match[1]) % 2 === 1) expect(keys.has(`refund:r${match[1]}`)).toBe(true);
      }
      expect((await ledger.trialBalance()).balanced).toBe(true);
      const last = Math.max(...[...keys].map((k) => Number(/\d+$/.exec(k)?.[0] ?? 0)));
      // The writer's retry after the crash: the last batch and the next one, as an idempotent repeat or new.
      for (const i of [last, last + 1]) {
        await ledger.postMany([
          twoLine(`payment:p${i}`, 1000 + i),
          ...(i % 2 === 1
            ? [
                twoLine(`refund:r${i}`, 500 + i, {
                  debit: Accounts.Refunds,
                  credit: Accounts.ProcessorClearing,
                }),
              ]
            : []),
        ]);
      }
      const after = await ledger.allEntries();
      expect(new Set(after.map((e) => e.key)).size).toBe(after.length);
      expect((await ledger.trialBalance()).balanced).toBe(true);
    } finally {
      ledger.close();
    }
  }, 120_000);
});
