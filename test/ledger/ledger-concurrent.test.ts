import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { PostgresLedger } from '../../src/ledger/postgres-ledger.js';
import { typescriptEntry } from '../support/typescript-entry.js';
import {
  batchEntry,
  batches,
  batchSize,
  payment,
  payments,
  reversedEvery,
} from './fixtures/concurrent-workload.js';
import { tempDir } from './fixtures.js';
import type { TestLedger } from './ledger-stores.js';
import { postgresStore } from './ledger-stores.js';

// Several worker processes write the same books at once: four node processes post the same workload (same
// keys, same contents, reversals, all-or-nothing batches) in their own orders into one ledger. Afterwards
// every key is booked once, every reversal at most once, and the balances are the hand-computed ones.

const root = fileURLToPath(new URL('../..', import.meta.url));
const writer = join(root, 'test', 'ledger', 'fixtures', 'concurrent-writer.ts');
const writers = 4;
const postgres = postgresStore();

interface WriterReport {
  seed: number;
  created: string[];
  /** LedgerBusyError answers the writer retried (the ledger's own retries ran out). */
  busy: number;
  /** The ledger's own retries after a deadlock, serialization failure or SQLITE_BUSY. */
  contention: number;
}

/** Starts the writers, lets them go together once all are ready, and collects their reports. */
async function runWriters(target: string): Promise<WriterReport[]> {
  const children = Array.from({ length: writers }, (_, seed) =>
    spawn(process.execPath, [...typescriptEntry(writer), target, String(seed + 1)], {
      cwd: root,
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  );
  const outputs = children.map((child) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const ready = new Promise<void>((resolve, reject) => {
      const check = () => {
        if (stdout.includes('ready\n')) resolve();
      };
      child.stdout.on('data', check);
      child.once('exit', (code) => reject(new Error(`writer exited (${code}) before ready:\n${stderr}`)));
    });
    const done = new Promise<WriterReport>((resolve, reject) => {
      child.once('exit', (code) => {
        if (code !== 0) reject(new Error(`writer exited with ${code}:\n${stderr}`));
        else resolve(JSON.parse(stdout.split('\n').find((l) => l.startsWith('{')) ?? 'null') as WriterReport);
      });
    });
    return { ready, done };
  });
  try {
    await Promise.all(outputs.map((o) => o.ready));
  } catch (error) {
    for (const child of children) child.kill('SIGKILL');
    throw error;
  }
  for (const child of children) child.stdin.end('go\n');
  return Promise.all(outputs.map((o) => o.done));
}

/** The books by hand: every payment once, every fifth reversed once, every batch fee once. */
function expected() {
  let clearing = 0;
  let receivable = 0;
  let fees = 0;
  const keys: string[] = [];
  for (let i = 0; i < payments; i++) {
    const amount = payment(i).lines[0]?.amountCents as number;
    keys.push(`payment:p${i}`);
    clearing += amount;
    receivable -= amount;
    if (i % reversedEvery === 0) {
      keys.push(`reversal:payment:p${i}`);
      clearing -= amount;
      receivable += amount;
    }
  }
  for (let b = 0; b < batches; b++) {
    for (let j = 0; j < batchSize; j++) {
      const entry = batchEntry(b, j);
      keys.push(entry.key);
      fees += entry.lines[0]?.amountCents as number;
      clearing -= entry.lines[0]?.amountCents as number;
    }
  }
  return { clearing, receivable, fees, keys: keys.sort() };
}

async function checkBooks(ledger: TestLedger, reports: WriterReport[], options: { raced: boolean }) {
  const want = expected();
  const created = reports.flatMap((r) => r.created).sort();
  // The writers really raced: more than one booked some of the keys first. (Not asked of SQLite: there, one
  // writer holding the write lock may well book nearly everything while the others back off.)
  if (options.raced) expect(reports.filter((r) => r.created.length > 0).length).toBeGreaterThanOrEqual(2);
  // Each key created by exactly one writer; nothing else booked.
  expect(created).toEqual(want.keys);
  const entries = await ledger.allEntries();
  expect(entries.map((e) => e.key).sort()).toEqual(want.keys);
  const reversals = entries.filter((e) => e.reverses !== null);
  expect(reversals).toHaveLength(Math.ceil(payments / reversedEvery));
  expect(new Set(reversals.map((e) => e.reverses)).size).toBe(reversals.length);
  expect(await ledger.balanceOf(Accounts.ProcessorClearing)).toBe(want.clearing);
  expect(await ledger.balanceOf(Accounts.AccountsReceivable)).toBe(want.receivable);
  expect(await ledger.balanceOf(Accounts.ProcessingFees)).toBe(want.fees);
  const trial = await ledger.trialBalance();
  expect(trial.balanced).toBe(true);
  expect(trial.accounts.reduce((s, a) => s + a.balanceCents, 0)).toBe(0);
}

function describeRun(store: string, started: number, reports: WriterReport[]): string {
  return `${store}: ${writers} writers in ${Date.now() - started} ms; created per writer ${reports.map((r) => r.created.length).join('/')}; ledger retries ${reports.map((r) => r.contention).join('/')}; busy answers retried ${reports.map((r) => r.busy).join('/')}`;
}

describe('concurrent writers on several processes never double count', () => {
  it('PostgreSQL: four processes, one database (migrated by whichever starts first)', async () => {
    // An empty database: the writers' start-ups race to migrate it (the advisory lock lets one do it).
    const url = await (await postgres.cluster()).createDatabase('concurrent_writers');
    const started = Date.now();
    const reports = await runWriters(url);
    const ledger = await PostgresLedger.open({ url });
    try {
      await checkBooks(ledger, reports, { raced: true });
    } finally {
      await ledger.close();
    }
    console.log(describeRun('postgres', started, reports));
  }, 120_000);

  describe('SQLite: four processes, one file', () => {
    let dir: ReturnType<typeof tempDir>;
    beforeEach(() => {
      dir = tempDir();
    });
    afterEach(() => dir.cleanup());

    it('books every key once', async () => {
      const file = join(dir.dir, 'ledger.db');
      // Created (and migrated) once before the writers start, as a deployment does.
      EmbeddedLedger.open({ path: file }).close();
      const started = Date.now();
      const reports = await runWriters(file);
      console.log(describeRun('sqlite', started, reports));
      const ledger = EmbeddedLedger.open({ path: file });
      try {
        await checkBooks(ledger, reports, { raced: false });
      } finally {
        ledger.close();
      }
    }, 120_000);
  });
});
