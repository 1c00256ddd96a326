import {
  ApplicationFailure,
  continueAsNew,
  log,
  proxyActivities,
  setHandler,
  sleep,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { serviceCallRetry } from '../activities/retry-policy.js';
import type { AccountName } from '../src/accounting/chart-of-accounts.js';
import { SyncState } from '../src/temporal/search-attributes.js';
import { attention } from './attention.js';
import {
  type BackfillActivities,
  type BackfillInput,
  type BackfillMode,
  type BackfillPageResult,
  type BackfillPhase,
  type BackfillProgress,
  backfillPhases,
  backfillProgressQuery,
} from './backfill-contract.js';
import { watchReturnWindows } from './return-window-watch.js';

/** Pages per run before continuing as new, so a backfill of many thousands keeps a short history. */
const pagesPerRun = 50;
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

function addPage(progress: BackfillProgress, page: BackfillPageResult): void {
  progress.pages++;
  progress.examined[page.phase] += page.examined;
  progress.totals[page.phase] = page.total;
  progress.imported += page.imported;
  progress.settled += page.settled;
  progress.requests += page.requests;
  for (const [account, cents] of Object.entries(page.inFlight) as [AccountName, number][]) {
    progress.inFlight[account] = (progress.inFlight[account] ?? 0) + cents;
  }
  for (const problem of page.problems) {
    if (progress.problems.length < maxProblemsListed) progress.problems.push(problem);
  }
}

/**
 * Backfill (issue "Period close", 4): a new installation imports the account's history since a day. Opens
 * the books on that day first (from then on a webhook about an object settled before it books only what is
 * dated from it on), then pages through links, payments, payouts and deposits, one activity per page, at
 * most `requestsPerSecond` list requests a second, continuing as new every few dozen pages; a crash resumes
 * at the page it was on. Ends by booking the money the settled objects left in flight as the opening entry.
 * Its progress is a query (the CLI's progress bar) and, between runs, its memo.
 */
export async function backfill(input: BackfillInput): Promise<BackfillProgress> {
  if (!day.test(input.since) || !day.test(input.asOf)) {
    throw ApplicationFailure.nonRetryable(`bad backfill days ${input.since} / ${input.asOf}`, 'BadPeriod');
  }
  if (!(input.requestsPerSecond > 0)) {
    throw ApplicationFailure.nonRetryable('requestsPerSecond must be above 0', 'BadRate');
  }
  const { openBooks, backfillPage, bookOpeningBalances } = proxyActivities<BackfillActivities>({
    startToCloseTimeout: '10m',
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
  let pagesThisRun = 0;
  while (progress.phase !== 'opening' && progress.phase !== 'done') {
    const started = Date.now();
    const page = await backfillPage({
      since: input.since,
      asOf: input.asOf,
      mode: progress.mode,
      pageToken,
      pageSize: input.pageSize ?? 100,
    });
    addPage(progress, page);
    if (page.paymentsToWatch.length > 0) await watchReturnWindows(page.paymentsToWatch);
    pageToken = page.nextPageToken;
    progress.phase = pageToken === null ? 'opening' : (pageToken.split(':')[0] as BackfillPhase);
    // The bound on the service's load: a page's requests take at least requests / rate seconds.
    const due = (page.requests / input.requestsPerSecond) * 1000 - (Date.now() - started);
    if (due > 0) await sleep(due);
    pagesThisRun++;
    if (pageToken !== null && (pagesThisRun >= pagesPerRun || workflowInfo().continueAsNewSuggested)) {
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
