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
import type {
  ReconciledObject,
  ReconcilePageResult,
  ReconciliationActivities,
  ReconciliationScope,
} from './activities-contract.js';
import {
  type ReconciliationInput,
  type ReconciliationReport,
  type ReconciliationView,
  reconciliationViewQuery,
} from './contract.js';

export type { ReconciliationScope } from './activities-contract.js';

/** Pages per run before continuing as new, so a run over many objects keeps a short history. */
export const pagesPerRun = 3;
export const defaultReconcilePageSize = 50;
const maxListed = 50;

export function isReconciliationScope(scope: unknown): scope is ReconciliationScope {
  if (typeof scope !== 'object' || scope === null) return false;
  const s = scope as Record<string, unknown>;
  switch (s.kind) {
    case 'all':
      return true;
    case 'link':
      return typeof s.paymentLinkId === 'string' && s.paymentLinkId.length > 0;
    case 'customer':
      return typeof s.customerId === 'string' && s.customerId.length > 0;
    case 'paymentsSince':
      return typeof s.date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(s.date);
    default:
      return false;
  }
}

export function emptyReport(
  scope: ReconciliationScope,
  requestId: string | null,
  now: string,
): ReconciliationReport {
  return {
    scope,
    requestId,
    startedAt: now,
    finishedAt: null,
    pages: 0,
    runs: 0,
    examined: { paymentLink: 0, payment: 0, disbursement: 0, checkDeposit: 0 },
    driftFound: { paymentLink: 0, payment: 0, disbursement: 0, checkDeposit: 0 },
    fixed: { posted: {}, reversed: {} },
    fixesTotal: 0,
    drift: [],
    problems: [],
  };
}

function addPage(report: ReconciliationReport, page: ReconcilePageResult): void {
  report.pages++;
  for (const object of Object.keys(page.examined) as ReconciledObject[]) {
    // A report carried over continue-as-new from an earlier release lacks the newer object types.
    report.examined[object] = (report.examined[object] ?? 0) + page.examined[object];
  }
  for (const drift of page.drift) {
    report.driftFound[drift.object] = (report.driftFound[drift.object] ?? 0) + 1;
    for (const kind of drift.posted) report.fixed.posted[kind] = (report.fixed.posted[kind] ?? 0) + 1;
    for (const kind of drift.reversed) report.fixed.reversed[kind] = (report.fixed.reversed[kind] ?? 0) + 1;
    report.fixesTotal += drift.posted.length + drift.reversed.length;
    if (report.drift.length < maxListed) report.drift.push(drift);
  }
  for (const problem of page.problems) if (report.problems.length < maxListed) report.problems.push(problem);
}

/**
 * Compares the books with the service over a scope and repairs drift through the same idempotent writes the
 * event-driven workflows use: pages through links (external payments, debit memos), payments and
 * disbursements, one activity per page, continuing as new every few pages. Ends with a report (its result
 * and memo) counting what it examined, what drifted and what it fixed, by kind. Started by the Schedule
 * `booksync-reconcile` or, for a `reconcile` signal, by the `reconcile` requests workflow.
 */
export async function reconciliation(input: ReconciliationInput): Promise<ReconciliationReport> {
  if (!isReconciliationScope(input.scope)) {
    throw ApplicationFailure.nonRetryable(
      `unknown reconciliation scope ${JSON.stringify(input.scope)}`,
      'BadScope',
    );
  }
  const { reconcilePage } = proxyActivities<ReconciliationActivities>({
    startToCloseTimeout: '10m',
    retry: serviceCallRetry,
  });
  const report = input.report ?? emptyReport(input.scope, input.requestId ?? null, new Date().toISOString());
  report.runs++;
  let pageToken = input.pageToken ?? null;
  const view: ReconciliationView = { state: 'RUNNING', pageToken, report };
  setHandler(reconciliationViewQuery, () => view);
  upsertSearchAttributes([{ key: SyncState, value: 'RECONCILING' }]);

  let pagesThisRun = 0;
  do {
    const page = await reconcilePage({
      scope: input.scope,
      pageToken,
      pageSize: input.pageSize ?? defaultReconcilePageSize,
      runId: workflowInfo().workflowId,
    });
    addPage(report, page);
    if (page.achWindowsToWatch?.length && patched('reconcile-watches-ach-windows')) {
      await watchReturnWindows(page.achWindowsToWatch);
    }
    pageToken = page.nextPageToken;
    view.pageToken = pageToken;
    pagesThisRun++;
    if (pageToken !== null && (pagesThisRun >= pagesPerRun || workflowInfo().continueAsNewSuggested)) {
      upsertMemo({ progress: { pageToken, pages: report.pages, fixesTotal: report.fixesTotal } });
      await continueAsNew<typeof reconciliation>({ ...input, pageToken, report });
    }
  } while (pageToken !== null);

  report.finishedAt = new Date().toISOString();
  view.state = 'DONE';
  upsertMemo({ report, progress: null });
  upsertSearchAttributes([{ key: SyncState, value: 'DONE' }, ...attention(null, report.problems.length > 0)]);
  log.info('reconciliation done', {
    scope: input.scope,
    examined: report.examined,
    driftFound: report.driftFound,
    fixesTotal: report.fixesTotal,
    problems: report.problems.length,
  });
  return report;
}
