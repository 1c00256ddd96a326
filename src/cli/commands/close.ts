import { writeFileSync } from 'node:fs';
import type { Client } from '@temporalio/client';
import type { CloseCertificate } from '../../close/certificate.js';
import { certificateHtml } from '../../close/certificate-html.js';
import { fullCertificate, type PeriodCloseResult } from '../../close/certificate-summary.js';
import { certificateLines } from '../../close/certificate-text.js';
import type { ClosePeriod } from '../../close/close-input.js';
import { periodCloseWorkflowType } from '../../flows/period-close/contract.js';
import type { ReportReader } from '../../ledger/report-store.js';
import { openLedgerStore } from '../../runtime/ledger-store.js';
import { workflowIdFor } from '../../workflow-safe/workflow-ids.js';
import { type Command, CommandError } from '../command.js';
import { eachFlag, timeoutSecondsOf } from '../flags.js';
import { runWorkflow, withTemporalClient } from '../temporal-client.js';

export interface CloseArgs {
  period: ClosePeriod;
  json: boolean;
  html: string | null;
  timeoutSeconds: number;
}

function isDay(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value));
}

export function parseCloseArgs(args: string[]): CloseArgs {
  let json = false;
  let html: string | null = null;
  let timeoutSeconds = 600;
  let from: string | undefined;
  let to: string | undefined;
  eachFlag('close', args, (flag, value) => {
    if (flag === '--json') json = true;
    else if (flag === '--from') from = value();
    else if (flag === '--to') to = value();
    else if (flag === '--html') html = value();
    else if (flag === '--timeout') {
      timeoutSeconds = timeoutSecondsOf('close', value());
    } else throw new CommandError(`close: unknown argument ${flag}`);
  });
  if (!from || !to) throw new CommandError('close: give --from YYYY-MM-DD and --to YYYY-MM-DD');
  for (const day of [from, to]) {
    if (!isDay(day)) throw new CommandError(`close: dates are YYYY-MM-DD, got ${day}`);
  }
  if (from > to) throw new CommandError(`close: --from ${from} is after --to ${to}`);
  return { period: { from, to }, json, html, timeoutSeconds };
}

export function periodCloseWorkflowId(period: ClosePeriod): string {
  return workflowIdFor(periodCloseWorkflowType, `${period.from}-${period.to}`);
}

/**
 * Runs the periodClose workflow under `period-close-{from}-{to}` and returns its whole certificate, read back
 * from the ledger's reports by the id the workflow's summary gives. One already running under that id is
 * joined; a finished one is run afresh (a new certificate, the old one stays stored).
 */
export async function requestPeriodClose(
  client: Client,
  options: { period: ClosePeriod; taskQueue: string; timeoutSeconds?: number; reports: ReportReader },
): Promise<CloseCertificate> {
  const result = await runWorkflow<PeriodCloseResult>(client, 'close', {
    type: periodCloseWorkflowType,
    workflowId: periodCloseWorkflowId(options.period),
    args: [options.period],
    taskQueue: options.taskQueue,
    timeoutSeconds: options.timeoutSeconds ?? 600,
  });
  return fullCertificate(result, options.reports);
}

export const closeCommand: Command = {
  summary:
    'period close: the completeness certificate of a period (every object booked, balances agree, pushed)',
  usesTemporal: true,
  usage: `booksync close --from YYYY-MM-DD --to YYYY-MM-DD [--json] [--html FILE] [--timeout SECONDS]

Runs the periodClose workflow (id period-close-<from>-<to>) and prints its certificate, read back whole from
the ledger's reports (the workflow's result is its summary and the stored id): every service object
of the period (payments, refunds, external payments, debit memos, deposit applications, disbursements, bills,
bill payments) maps to exactly one live entry or is listed with its skip reason; every live entry of the
period maps back to an object the service lists; Processor Clearing and Payouts In Transit agree with the
service; each invoice's receivable equals its link's remainder and each bill's payable what is still owed;
every entry of the period is PUSHED or SKIPPED at each accounting target.
--json: the certificate as JSON. --html FILE: also writes it as a self-contained HTML page.
Exits 0 when the certificate passes, 2 when it was made and fails, 1 when it could not be made.
The Schedule booksync-period-close runs it for the month just ended, on the 1st of each month.`,
  async run({ args, settings, out }) {
    const parsed = parseCloseArgs(args);
    const store = await openLedgerStore(settings);
    try {
      return await withTemporalClient(settings, async (client) => {
        const certificate = await requestPeriodClose(client, {
          period: parsed.period,
          taskQueue: settings.TEMPORAL_TASK_QUEUE,
          timeoutSeconds: parsed.timeoutSeconds,
          reports: store.reports,
        });
        if (parsed.html !== null) writeFileSync(parsed.html, certificateHtml(certificate));
        const lines = parsed.json ? [JSON.stringify(certificate, null, 2)] : certificateLines(certificate);
        for (const line of lines) out(line);
        if (parsed.html !== null && !parsed.json) out(`written: ${parsed.html}`);
        return certificate.passes ? 0 : 2;
      });
    } finally {
      await store.close();
    }
  },
};
