import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Harness, startHarness } from '@booksync/emulator/harness';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../src/flows/activities.js';
import { type AccountName, Accounts } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { SqliteReportStore } from '../../src/ledger/report-store.js';
import { silentLogger } from '../../src/logging/logger.js';
import { ServiceClient } from '../../src/service/client.js';
import { uniqueTaskQueue } from './temporal.js';

// What the deposit, link and command tests share: the emulator over real HTTP, a real EmbeddedLedger file
// in a temp folder, the real ServiceClient and the real activities, on a real Temporal server.

export interface SyncWorld {
  emulator: Harness;
  ledger: EmbeddedLedger;
  /** The reports the certificate and payout period activities store, in the ledger's file. */
  reports: SqliteReportStore;
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
  const reports = new SqliteReportStore(ledger.database);
  const activities = createActivities({ service, ledger, reports, logger: silentLogger, timeZone: 'UTC' });
  return {
    emulator,
    ledger,
    reports,
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
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: bundle,
    activities,
  });
  return worker.runUntil(body(taskQueue));
}

/** Every account's balance, keyed by the chart's role names (OperatingBank, ChecksToDeposit...). */
export async function balancesByRole(ledger: EmbeddedLedger): Promise<Record<keyof typeof Accounts, number>> {
  const balances = await ledger.balances();
  const byName = new Map<AccountName, number>(balances.map((b) => [b.account, b.balanceCents]));
  return Object.fromEntries(
    Object.entries(Accounts).map(([role, name]) => [role, byName.get(name) ?? 0]),
  ) as Record<keyof typeof Accounts, number>;
}
