import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { Settings } from '../../config/settings.js';
import { type DemoMonthClose, runDemo } from '../../demo/run-demo.js';
import type { TargetIndexStore } from '../../flows/push/target-index.js';
import type { LedgerPort } from '../../ledger/ledger-port.js';
import type { ReportReader } from '../../ledger/report-store.js';
import { readEmbeddedCredentials } from '../../runtime/embedded-credentials.js';
import { openLedgerStore } from '../../runtime/ledger-store.js';
import { connectClient, temporalTarget } from '../../runtime/temporal/temporal-connection.js';
import { type Command, CommandError } from '../command.js';
import { commandApiTarget } from '../command-api-client.js';
import { requestPeriodClose } from './close.js';
import { requestReconciliation } from './reconcile.js';

export const demoCommand: Command = {
  summary: "drive a small business's day through the emulator, watch it reach the books, close its month",
  usesTemporal: true,
  usage: `booksync demo

Needs a running 'booksync start' with the embedded emulator (or SERVICE_BASE_URL pointing at an emulator).
Card and ACH payments, a partial external payment, a debit memo, a check deposit that clears and one that
is returned, a refund, an ACH return, a payout and a bill paid by check; then the trial balance. Then the
day's month ends on the emulator's clock and is closed as 'booksync close' and 'booksync books close' do:
reconciliation, the certificate, the closing (never forced). Moving the emulator's clock takes its admin
token: set EMULATOR_ADMIN_TOKEN for 'booksync start' and 'booksync demo' alike, else the month stays open.
Each run closes the month it runs in: the next run's day is the first of the month after.
Last, where to see each flow in the Temporal UI. 'booksync start' runs it by itself on a fresh data folder.`,
  async run({ settings, out }) {
    const store = await openLedgerStore(settings);
    const address = settings.TEMPORAL_ADDRESS ?? `127.0.0.1:${settings.TEMPORAL_DEV_PORT}`;
    let temporal: Awaited<ReturnType<typeof connectClient>> | null = null;
    try {
      // Temporal only when the month can close (reconciliation and the certificate are workflows).
      if (settings.DEMO_CLOSES_MONTH && settings.EMULATOR_ADMIN_TOKEN)
        temporal = await connectClient(temporalTarget(settings, address));
      await runDemoAgainst(
        settings,
        store.ledger,
        out,
        settings.DEMO_CLOSES_MONTH
          ? {
              client: temporal?.client ?? null,
              targetIndex: store.targetIndex,
              reports: store.reports,
              adminToken: settings.EMULATOR_ADMIN_TOKEN,
            }
          : undefined,
      );
    } finally {
      await temporal?.connection.close();
      await store.close();
    }
    return 0;
  },
};

/** What closing the demo's month needs from the running booksync. */
export interface DemoMonthCloseTargets {
  /** null only without an admin token: the month stays open then, and no workflow is started. */
  client: Client | null;
  targetIndex: TargetIndexStore;
  /** Where the worker keeps the certificates whole (the ledger's store). */
  reports: ReportReader;
  adminToken: string | undefined;
}

/** The month close through the workflows the CLI starts: `reconcile --all`, then `close` (periodClose). */
export function demoMonthClose(settings: Settings, targets: DemoMonthCloseTargets): DemoMonthClose {
  const taskQueue = settings.TEMPORAL_TASK_QUEUE;
  const client = () => {
    if (!targets.client) throw new Error('no Temporal client to close the month with');
    return targets.client;
  };
  return {
    adminToken: targets.adminToken,
    reconcile: async () => {
      const { report } = await requestReconciliation(client(), { scope: { kind: 'all' }, taskQueue });
      return {
        entriesBooked: report.fixesTotal,
        problems: report.problems.map((p) => `${p.object} ${p.id}: ${p.error}`),
      };
    },
    targets: () => Promise.all((settings.ACCOUNTING_TARGET ?? []).map((t) => targets.targetIndex.summary(t))),
    certify: (period) =>
      requestPeriodClose(client(), { period, taskQueue, timeoutSeconds: 600, reports: targets.reports }),
  };
}

/**
 * The demo against the booksync that the settings describe (the embedded one: keys from the data folder).
 * With `monthClose`, the day's month is closed after it; without, the day only.
 */
export async function runDemoAgainst(
  settings: Settings,
  ledger: LedgerPort,
  out: (line: string) => void,
  monthClose?: DemoMonthCloseTargets,
) {
  const serviceApiKey =
    settings.SERVICE_API_KEY ?? readEmbeddedCredentials(path.resolve(settings.BOOKSYNC_DATA_DIR))?.apiKey;
  if (!serviceApiKey) {
    throw new CommandError(
      "SERVICE_API_KEY: not set, and no embedded emulator key (start booksync first: 'npm start')",
    );
  }
  await runDemo({
    serviceBaseUrl: settings.SERVICE_BASE_URL ?? `http://${settings.EMULATOR_HOST}:${settings.EMULATOR_PORT}`,
    serviceApiKey,
    commands: commandApiTarget(settings),
    ledger,
    temporalUiUrl: settings.TEMPORAL_ADDRESS
      ? (settings.TEMPORAL_UI_URL ?? null)
      : `http://127.0.0.1:${settings.TEMPORAL_UI_PORT}`,
    namespace: settings.TEMPORAL_NAMESPACE,
    timeZone: settings.BOOKS_TIME_ZONE,
    monthClose: monthClose ? demoMonthClose(settings, monthClose) : null,
    out,
  });
}
