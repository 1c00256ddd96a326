import type { Client } from '@temporalio/client';
import type { z } from 'zod';
import {
  payoutPeriodReportWorkflowType,
  payoutReportWorkflowType,
} from '../../flows/payout-report/contract.js';
import type { ReportReader } from '../../ledger/report-store.js';
import { fullPeriodReport, PayoutPeriodResult } from '../../payouts/period-summary.js';
import { type PayoutPeriod, type PayoutPeriodReport, PayoutReport } from '../../payouts/report-schema.js';
import { payoutReportLines, periodReportLines } from '../../payouts/report-text.js';
import { openLedgerStore } from '../../runtime/ledger-store.js';
import { workflowIdFor } from '../../workflow-safe/workflow-ids.js';
import { type Command, CommandError } from '../command.js';
import { eachFlag, timeoutSecondsOf } from '../flags.js';
import { runWorkflow, withTemporalClient } from '../temporal-client.js';

export type PayoutArgs =
  | { action: 'show'; disbursementId: string; json: boolean; timeoutSeconds: number }
  | { action: 'list'; period: PayoutPeriod; json: boolean; timeoutSeconds: number };

function isDay(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value));
}

export function parsePayoutArgs(args: string[]): PayoutArgs {
  const [action, ...rest] = args;
  if (action !== 'show' && action !== 'list') {
    throw new CommandError('payout: give show <disbursementId> or list --from YYYY-MM-DD --to YYYY-MM-DD');
  }
  let json = false;
  let timeoutSeconds = 300;
  let from: string | undefined;
  let to: string | undefined;
  const positional: string[] = [];
  eachFlag('payout', rest, (flag, value) => {
    if (flag === '--json') json = true;
    else if (flag === '--from') from = value();
    else if (flag === '--to') to = value();
    else if (flag === '--timeout') {
      timeoutSeconds = timeoutSecondsOf('payout', value());
    } else if (flag.startsWith('--')) throw new CommandError(`payout: unknown argument ${flag}`);
    else positional.push(flag);
  });
  if (action === 'show') {
    if (positional.length !== 1 || from || to)
      throw new CommandError('payout show: give one disbursement id');
    return { action, disbursementId: positional[0]!, json, timeoutSeconds };
  }
  if (positional.length > 0) throw new CommandError(`payout list: unexpected ${positional[0]}`);
  if (!from || !to) throw new CommandError('payout list: give --from YYYY-MM-DD and --to YYYY-MM-DD');
  for (const day of [from, to]) {
    if (!isDay(day)) throw new CommandError(`payout list: dates are YYYY-MM-DD, got ${day}`);
  }
  if (from > to) throw new CommandError(`payout list: --from ${from} is after --to ${to}`);
  return { action, period: { from, to }, json, timeoutSeconds };
}

/**
 * Runs a report workflow under its deterministic id and returns its result, checked against the schema.
 * One already running under that id is joined rather than duplicated; a finished one is run afresh.
 */
async function runReport<T>(
  client: Client,
  options: { type: string; workflowId: string; arg: unknown; taskQueue: string; timeoutSeconds: number },
  schema: z.ZodType<T>,
): Promise<T> {
  const result = await runWorkflow<unknown>(client, 'payout', {
    type: options.type,
    workflowId: options.workflowId,
    args: [options.arg],
    taskQueue: options.taskQueue,
    timeoutSeconds: options.timeoutSeconds,
  });
  return schema.parse(result);
}

export function requestPayoutReport(
  client: Client,
  options: { disbursementId: string; taskQueue: string; timeoutSeconds?: number },
): Promise<PayoutReport> {
  return runReport(
    client,
    {
      type: payoutReportWorkflowType,
      workflowId: workflowIdFor(payoutReportWorkflowType, options.disbursementId),
      arg: { disbursementId: options.disbursementId },
      taskQueue: options.taskQueue,
      timeoutSeconds: options.timeoutSeconds ?? 300,
    },
    PayoutReport,
  );
}

/**
 * Runs the period's report workflow and returns the whole report, read back from the ledger's reports by the
 * id the workflow's summary gives (the runs of earlier releases returned it whole).
 */
export async function requestPayoutPeriodReport(
  client: Client,
  options: { period: PayoutPeriod; taskQueue: string; timeoutSeconds?: number; reports: ReportReader },
): Promise<PayoutPeriodReport> {
  const result = await runReport(
    client,
    {
      type: payoutPeriodReportWorkflowType,
      workflowId: workflowIdFor(
        payoutPeriodReportWorkflowType,
        `${options.period.from}_${options.period.to}`,
      ),
      arg: options.period,
      taskQueue: options.taskQueue,
      timeoutSeconds: options.timeoutSeconds ?? 300,
    },
    PayoutPeriodResult,
  );
  return fullPeriodReport(result, options.reports);
}

export const payoutCommand: Command = {
  summary: 'payout report: what each payout (disbursement) contains and whether it reached the bank in full',
  usesTemporal: true,
  usage: `booksync payout show <disbursementId> [--json] [--timeout SECONDS]
booksync payout list --from YYYY-MM-DD --to YYYY-MM-DD [--json] [--timeout SECONDS]

Runs the payoutReport workflow (id payout-report-<disbursementId>) or, for the disbursements batched in the
period, payoutPeriodReport (payout-period-<from>_<to>) and prints its report: each payout's payments, absorbed
card fees, refunds and returns, the net beside the amount sent and what reached the bank, and each mismatch
with its reason (REFUND_AFTER_BATCH, RETURN_AFTER_PAYOUT, REFUND_CREDIT_RETURNED, PAYOUT_FAILED,
BOOKS_DIFFER, UNEXPLAINED).
--json: the report as JSON. A payout's report is the workflow's result (its 'view' query in the UI); a
period's is stored whole in the ledger's reports, the workflow's result being its summary and stored id.
Connects to TEMPORAL_ADDRESS, or to the embedded dev server of 'booksync start' (127.0.0.1:TEMPORAL_DEV_PORT).
Exits 0 when the report was made, mismatches or not ("reconciles" in the JSON says which).`,
  async run({ args, settings, out }) {
    const parsed = parsePayoutArgs(args);
    const store = parsed.action === 'list' ? await openLedgerStore(settings) : null;
    try {
      return await withTemporalClient(settings, async (client) => {
        const common = { taskQueue: settings.TEMPORAL_TASK_QUEUE, timeoutSeconds: parsed.timeoutSeconds };
        const lines =
          parsed.action === 'show'
            ? await requestPayoutReport(client, { ...common, disbursementId: parsed.disbursementId }).then(
                (report) => (parsed.json ? [JSON.stringify(report, null, 2)] : payoutReportLines(report)),
              )
            : await requestPayoutPeriodReport(client, {
                ...common,
                period: parsed.period,
                reports: store!.reports,
              }).then((report) =>
                parsed.json ? [JSON.stringify(report, null, 2)] : periodReportLines(report),
              );
        for (const line of lines) out(line);
        return 0;
      });
    } finally {
      await store?.close();
    }
  },
};
