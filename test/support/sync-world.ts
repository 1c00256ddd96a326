import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities/index.js';
import { type AccountName, Accounts } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { closingAssertions, toHledgerJournal } from '../../src/ledger/hledger-export.js';
import { silentLogger } from '../../src/logging/logger.js';
import { ServiceClient } from '../../src/service/client.js';
import { type Harness, startHarness } from '../emulator/harness.js';
import { uniqueTaskQueue } from './temporal.js';
import { waitFor } from './wait-for.js';

// What the deposit, link and command tests share: the emulator over real HTTP, a real EmbeddedLedger file
// in a temp folder, the real ServiceClient and the real activities, on a real Temporal server.

export interface SyncWorld {
  emulator: Harness;
  ledger: EmbeddedLedger;
  service: ServiceClient;
  activities: ReturnType<typeof createActivities>;
  close(): Promise<void>;
}

export async function startSyncWorld(): Promise<SyncWorld> {
  const emulator = await startHarness();
  const dir = mkdtempSync(path.join(tmpdir(), 'booksync-ledger-'));
  const ledger = EmbeddedLedger.open({ path: path.join(dir, 'ledger.db') });
  const service = new ServiceClient({
    baseUrl: emulator.baseUrl,
    apiKey: emulator.keys.full,
    retry: { baseDelayMs: 20, maxDelayMs: 100 },
  });
  const activities = createActivities({ service, ledger, logger: silentLogger, timeZone: 'UTC' });
  return {
    emulator,
    ledger,
    service,
    activities,
    async close() {
      ledger.close();
      await emulator.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs `body` with a worker of booksync's workflows and the given activities on a fresh task queue. */
export async function withWorker<T>(
  env: TestWorkflowEnvironment,
  bundle: { codePath: string },
  activities: object,
  body: (taskQueue: string) => Promise<T>,
  prefix = 'sync',
): Promise<T> {
  const taskQueue = uniqueTaskQueue(prefix);
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    activities,
  });
  return worker.runUntil(body(taskQueue));
}

/** Polls until probe returns a value (not undefined or false): waitFor with a shorter default. */
export function eventually<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  return waitFor('a condition', probe, timeoutMs);
}

/** Every account's balance, keyed by the chart's role names (OperatingBank, ChecksToDeposit...). */
export async function balancesByRole(ledger: EmbeddedLedger): Promise<Record<keyof typeof Accounts, number>> {
  const balances = await ledger.balances();
  const byName = new Map<AccountName, number>(balances.map((b) => [b.account, b.balanceCents]));
  return Object.fromEntries(
    Object.entries(Accounts).map(([role, name]) => [role, byName.get(name) ?? 0]),
  ) as Record<keyof typeof Accounts, number>;
}

export const hledgerAvailable = spawnSync('hledger', ['--version']).status === 0;

/** `hledger check -s` over the export with every account's closing balance asserted; throws with its output. */
export async function checkWithHledger(ledger: EmbeddedLedger): Promise<void> {
  if (!hledgerAvailable) throw new Error('hledger is not installed');
  const entries = await ledger.allEntries();
  const lastDate =
    entries
      .map((e) => e.date)
      .sort()
      .at(-1) ?? '2026-01-01';
  const journal = toHledgerJournal(entries, {
    assertions: closingAssertions(await ledger.balances(), lastDate),
  });
  const run = spawnSync('hledger', ['-f', '-', 'check', '-s'], { input: journal, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`hledger check -s failed:\n${run.stderr}\n${journal}`);
}
