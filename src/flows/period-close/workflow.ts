import {
  ApplicationFailure,
  defineQuery,
  log,
  patched,
  proxyActivities,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { dayInZone } from '../../workflow-safe/business-days.js';
import { serviceCallRetry } from '../../workflow-safe/retry-policy.js';
import { SyncState } from '../../workflow-safe/search-attributes.js';
import { attention } from '../in-workflow/attention.js';
import type {
  CloseCertificate,
  CloseCertificateSummary,
  ClosePeriod,
  PeriodCloseActivities,
} from './activities-contract.js';

export interface PeriodCloseView {
  state: 'RUNNING' | 'DONE';
  period: ClosePeriod | null;
  /** The certificate's summary (the whole one is in the ledger's reports, by `reportId`). */
  certificate: CloseCertificateSummary | null;
}

export const periodCloseViewQuery = defineQuery<PeriodCloseView>('view');

/**
 * A period, or `{ lastMonth: true }`: the calendar month before the workflow's start (the Schedule's runs), in
 * the books' time zone (BOOKS_TIME_ZONE; UTC when not given, as runs started by earlier releases say), and
 * with `closeBooks`, the ledger closed through its last day when the certificate passes.
 */
export type PeriodCloseInput = ClosePeriod | { lastMonth: true; timeZone?: string; closeBooks?: boolean };

const day = /^\d{4}-\d{2}-\d{2}$/;

/** The calendar month before the one `now` (unix ms) falls in, in `timeZone` (default UTC). */
export function monthBefore(now: number, timeZone = 'UTC'): ClosePeriod {
  const [year, month] = dayInZone(now, timeZone).split('-').map(Number) as [number, number];
  // Day 0 of this month is the last day of the previous one.
  const lastOfPrevious = new Date(Date.UTC(year, month - 1, 0));
  const to = lastOfPrevious.toISOString().slice(0, 10);
  return { from: `${to.slice(0, 8)}01`, to };
}

/**
 * How many problems the certificate has: the summary counts them; a run recorded before the summaries got the
 * whole certificate from its activity (no problemCount), whose list is all of them.
 */
function problemCount(result: CloseCertificateSummary | CloseCertificate): number {
  return 'problemCount' in result ? result.problemCount : result.problems.length;
}

function periodOf(input: PeriodCloseInput): ClosePeriod {
  if (input && 'lastMonth' in input && input.lastMonth === true) {
    return monthBefore(Date.now(), input.timeZone);
  }
  const period = input as ClosePeriod;
  if (!day.test(period?.from ?? '') || !day.test(period?.to ?? '') || period.from > period.to) {
    throw ApplicationFailure.nonRetryable(`bad period ${JSON.stringify(input)}`, 'BadPeriod');
  }
  return { from: period.from, to: period.to };
}

/**
 * The completeness certificate of a period: its activity reads the service and the books and checks that
 * every object maps to one live entry (or a skip reason), every entry to an object, the clearing, in-transit,
 * receivable and payable balances agree, and every entry reached each accounting target. The activity
 * stores the whole certificate in the ledger's reports; its summary (verdict, counts, first problems, the
 * stored id) is the result and the `view` query, bounded whatever the month. NeedsAttention lists the
 * periods that do not pass.
 */
export async function periodClose(input: PeriodCloseInput): Promise<CloseCertificateSummary> {
  const period = periodOf(input);
  const view: PeriodCloseView = { state: 'RUNNING', period, certificate: null };
  setHandler(periodCloseViewQuery, () => view);
  upsertSearchAttributes([{ key: SyncState, value: 'CLOSING' }]);
  const { buildCloseCertificate, closeBooksThrough } = proxyActivities<PeriodCloseActivities>({
    startToCloseTimeout: '30m',
    retry: { ...serviceCallRetry, maximumAttempts: 5 },
  });
  const certificate = await buildCloseCertificate(period);
  view.certificate = certificate;
  let closedThrough: string | null = null;
  // Runs recorded before this release never close the books (and their input never asks to).
  const closeBooks = 'lastMonth' in input && input.closeBooks === true;
  if (closeBooks && certificate.passes && patched('period-close-closes-books')) {
    const closed = await closeBooksThrough({
      through: period.to,
      reason: `certificate of ${period.from} to ${period.to} passed (monthly Schedule)`,
    });
    closedThrough = closed.closedThrough;
  }
  view.state = 'DONE';
  upsertMemo({
    close: {
      ...period,
      passes: certificate.passes,
      problems: problemCount(certificate),
      ...(closedThrough !== null ? { booksClosedThrough: closedThrough } : {}),
    },
  });
  upsertSearchAttributes([{ key: SyncState, value: 'DONE' }, ...attention(null, !certificate.passes)]);
  log.info('period close done', { ...period, passes: certificate.passes, counts: certificate.counts });
  return certificate;
}
