import {
  ApplicationFailure,
  continueAsNew,
  log,
  patched,
  proxyActivities,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { serviceCallRetry } from '../../workflow-safe/retry-policy.js';
import { SyncState } from '../../workflow-safe/search-attributes.js';
import { attention } from '../in-workflow/attention.js';
import { watchReturnWindows } from '../in-workflow/return-window-watch.js';
import {
  addInFlight,
  type BackfillActivities,
  type BackfillInput,
  type BackfillMode,
  type BackfillPhase,
  type BackfillProgress,
  type BackfillStepResult,
  backfillPhases,
  backfillProgressQuery,
} from './contract.js';

/** Pages per activity (a step), and steps per run before continuing as new: a short history, few round trips. */
const pagesPerStep = 20;
const stepsPerRun = 50;
/** Twice the longest gap between a backfill activity's heartbeats (src/flows/backfill/activities.ts). */
const backfillHeartbeatTimeout = '30s';
const maxProblemsListed = 50;
const day = /^\d{4}-\d{2}-\d{2}$/;

function freshProgress(since: string, mode: BackfillMode, now: string): BackfillProgress {
  const zero = Object.fromEntries(backfillPhases.map((p) => [p, 0])) as Record<BackfillPhase, number>;
  return {
    since,
    mode,
    phase: backfillPhases[0],
    startedAt: now,
    finishedAt: null,
    examined: zero,
    totals: {},
    imported: 0,
    settled: 0,
    requests: 0,
    pages: 0,
    inFlight: {},
    problems: [],
    openingEntryKey: null,
  };
}

function addStep(progress: BackfillProgress, step: BackfillStepResult): void {
  progress.pages += step.pages;
  for (const phase of backfillPhases) {
    progress.examined[phase] += step.examined[phase] ?? 0;
    if (step.totals[phase] !== undefined) progress.totals[phase] = step.totals[phase];
  }
  progress.imported += step.imported;
  progress.settled += step.settled;
  progress.requests += step.requests;
  addInFlight(progress.inFlight, step.inFlight);
  for (const problem of step.problems) {
    if (progress.problems.length < maxProblemsListed) progress.problems.push(problem);
  }
}

/**
 * Backfill: a new installation imports the account's history since a day. Opens
 * the books on that day first (from then on a webhook about an object settled before it books only what is
 * dated from it on), then pages through links, payments, payouts and deposits, a few pages per activity (a
 * step), at most `requestsPerSecond` list requests a second, continuing as new every few dozen steps; a crash
 * resumes at the step it was on. Ends by booking the money the settled objects left in flight as the opening entry.
 * Its progress is a query (the CLI's progress bar) and, between runs, its memo.
 */
export async function backfill(input: BackfillInput): Promise<BackfillProgress> {
  if (!day.test(input.since) || !day.test(input.asOf)) {
    throw ApplicationFailure.nonRetryable(`bad backfill days ${input.since} / ${input.asOf}`, 'BadPeriod');
  }
  if (!(input.requestsPerSecond > 0)) {
    throw ApplicationFailure.nonRetryable('requestsPerSecond must be above 0', 'BadRate');
  }
  // An attempt a lost worker held is retried once its heartbeat stops (its activities beat at least every
  // heartbeatEveryMs), not after the whole start-to-close timeout. Runs recorded before this release
  // scheduled their activities without one.
  const heartbeats = patched('backfill-activities-heartbeat');
  const { openBooks, backfillPages, bookOpeningBalances, watchPaymentWindows } =
    proxyActivities<BackfillActivities>({
      startToCloseTimeout: '10m',
      ...(heartbeats ? { heartbeatTimeout: backfillHeartbeatTimeout } : {}),
      retry: serviceCallRetry,
    });
  upsertSearchAttributes([{ key: SyncState, value: 'BACKFILLING' }]);
  let progress = input.progress ?? freshProgress(input.since, 'opening', new Date().toISOString());
  setHandler(backfillProgressQuery, () => progress);
  if (!input.progress) {
    const { mode } = await openBooks({ since: input.since });
    progress = { ...progress, mode };
  }

  let pageToken = input.pageToken ?? null;
  let stepsThisRun = 0;
  while (progress.phase !== 'opening' && progress.phase !== 'done') {
    const step = await backfillPages({
      since: input.since,
      asOf: input.asOf,
      mode: progress.mode,
      pageToken,
      pageSize: input.pageSize ?? 100,
      requestsPerSecond: input.requestsPerSecond,
      maxPages: pagesPerStep,
    });
    addStep(progress, step);
    if (step.paymentsToWatch.length > 0) {
      // Runs recorded before this release started one abandoned child a payment (up to 2,000 a step: past
      // Temporal's limit of pending children); now an activity starts them, so the run holds none.
      if (patched('backfill-watches-windows-by-activity')) {
        await watchPaymentWindows({ paymentIds: step.paymentsToWatch });
      } else await watchReturnWindows(step.paymentsToWatch);
    }
    pageToken = step.nextPageToken;
    progress.phase = pageToken === null ? 'opening' : (pageToken.split(':')[0] as BackfillPhase);
    stepsThisRun++;
    if (pageToken !== null && (stepsThisRun >= stepsPerRun || workflowInfo().continueAsNewSuggested)) {
      upsertMemo({ progress: { phase: progress.phase, pages: progress.pages, imported: progress.imported } });
      await continueAsNew<typeof backfill>({ ...input, pageToken, progress });
    }
  }

  progress.openingEntryKey = await bookOpeningBalances({ since: input.since, inFlight: progress.inFlight });
  progress.phase = 'done';
  progress.finishedAt = new Date().toISOString();
  upsertMemo({ backfill: { ...progress, problems: progress.problems.length } });
  upsertSearchAttributes([
    { key: SyncState, value: 'DONE' },
    ...attention(null, progress.problems.length > 0),
  ]);
  log.info('backfill done', {
    since: input.since,
    imported: progress.imported,
    settled: progress.settled,
    problems: progress.problems.length,
  });
  return progress;
}
