import {
  ApplicationFailure,
  defineQuery,
  log,
  proxyActivities,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type {
  CloseCertificate,
  ClosePeriod,
  PeriodCloseActivities,
} from '../activities/period-close-contract.js';
import { serviceCallRetry } from '../src/workflow-safe/retry-policy.js';
import { SyncState } from '../src/workflow-safe/search-attributes.js';
import { attention } from './attention.js';

export interface PeriodCloseView {
  state: 'RUNNING' | 'DONE';
  period: ClosePeriod | null;
  certificate: CloseCertificate | null;
}

export const periodCloseViewQuery = defineQuery<PeriodCloseView>('view');

/** A period, or `{ lastMonth: true }`: the calendar month before the workflow's start (the Schedule's runs). */
export type PeriodCloseInput = ClosePeriod | { lastMonth: true };

const day = /^\d{4}-\d{2}-\d{2}$/;

/** The calendar month (UTC) before the one `now` (unix ms) falls in. */
export function monthBefore(now: number): ClosePeriod {
  const at = new Date(now);
  const firstOfThis = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1);
  const lastOfPrevious = new Date(firstOfThis - 24 * 60 * 60 * 1000);
  const from = new Date(Date.UTC(lastOfPrevious.getUTCFullYear(), lastOfPrevious.getUTCMonth(), 1));
  return { from: from.toISOString().slice(0, 10), to: lastOfPrevious.toISOString().slice(0, 10) };
}

function periodOf(input: PeriodCloseInput): ClosePeriod {
  if (input && 'lastMonth' in input && input.lastMonth === true) return monthBefore(Date.now());
  const period = input as ClosePeriod;
  if (!day.test(period?.from ?? '') || !day.test(period?.to ?? '') || period.from > period.to) {
    throw ApplicationFailure.nonRetryable(`bad period ${JSON.stringify(input)}`, 'BadPeriod');
  }
  return { from: period.from, to: period.to };
}

/**
 * The completeness certificate of a period: its activity reads the service and the books and checks that
 * every object maps to one live entry (or a skip reason), every entry to an object, the clearing, in-transit,
 * receivable and payable balances agree, and every entry reached each accounting target. The certificate is
 * the result and the `view` query; NeedsAttention lists the periods that do not pass.
 */
export async function periodClose(input: PeriodCloseInput): Promise<CloseCertificate> {
  const period = periodOf(input);
  const view: PeriodCloseView = { state: 'RUNNING', period, certificate: null };
  setHandler(periodCloseViewQuery, () => view);
  upsertSearchAttributes([{ key: SyncState, value: 'CLOSING' }]);
  const { buildCloseCertificate } = proxyActivities<PeriodCloseActivities>({
    startToCloseTimeout: '30m',
    retry: { ...serviceCallRetry, maximumAttempts: 5 },
  });
  const certificate = await buildCloseCertificate(period);
  view.certificate = certificate;
  view.state = 'DONE';
  upsertMemo({ close: { ...period, passes: certificate.passes, problems: certificate.problems.length } });
  upsertSearchAttributes([{ key: SyncState, value: 'DONE' }, ...attention(null, !certificate.passes)]);
  log.info('period close done', { ...period, passes: certificate.passes, counts: certificate.counts });
  return certificate;
}
