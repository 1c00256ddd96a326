import {
  ChildWorkflowFailure,
  condition,
  continueAsNew,
  executeChild,
  log,
  setHandler,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import { childWorkflowIdFor } from '../in-workflow/child-workflow-ids.js';
import { SeenIds } from '../in-workflow/seen-ids.js';
import {
  type CompletedReconcileRequest,
  type ReconciliationRequestsInput,
  type ReconciliationRequestsView,
  reconcileSignal,
  reconciliationRequestsViewQuery,
} from './contract.js';
import { isReconciliationScope, reconciliation } from './workflow.js';

/** The long-lived workflow taking `reconcile` signals (the CLI and API signalWithStart it). */
const reportsKept = 20;
const requestIdsKept = 500;
/** Requests per run before continuing as new (also when Temporal suggests it). */
const requestsPerRun = 100;

/**
 * Receives `reconcile {scope, requestId}` signals and runs one reconciliation child at a time, in order,
 * keeping the last reports in its view. Never ends on its own; continues as new with its queue and reports.
 */
export async function reconciliationRequests(input: ReconciliationRequestsInput = {}): Promise<never> {
  const seen = new SeenIds(input.seenRequestIds, requestIdsKept);
  const view: ReconciliationRequestsView = {
    queue: [...(input.queue ?? [])],
    running: null,
    reports: [...(input.reports ?? [])],
    rejected: [],
  };
  setHandler(reconcileSignal, (request) => {
    if (typeof request?.requestId !== 'string' || request.requestId.length === 0) {
      view.rejected.push({ requestId: String(request?.requestId), reason: 'no requestId' });
      return;
    }
    if (!seen.add(request.requestId)) return;
    if (!isReconciliationScope(request.scope)) {
      view.rejected.push({
        requestId: request.requestId,
        reason: `bad scope ${JSON.stringify(request.scope)}`,
      });
      return;
    }
    view.queue.push({ scope: request.scope, requestId: request.requestId });
  });
  setHandler(reconciliationRequestsViewQuery, () => view);

  for (let handled = 0; ; handled++) {
    if ((handled >= requestsPerRun || workflowInfo().continueAsNewSuggested) && view.queue.length === 0) {
      await continueAsNew<typeof reconciliationRequests>({
        queue: view.queue,
        reports: view.reports,
        seenRequestIds: seen.toArray(),
      });
    }
    await condition(() => view.queue.length > 0);
    const request = view.queue.shift()!;
    view.running = request;
    const workflowId = childWorkflowIdFor('reconciliationRun', request.requestId);
    let completed: CompletedReconcileRequest;
    try {
      const report = await executeChild(reconciliation, {
        workflowId,
        args: [{ scope: request.scope, requestId: request.requestId }],
      });
      completed = { ...request, workflowId, report, error: null };
    } catch (error) {
      const message =
        error instanceof ChildWorkflowFailure
          ? (error.cause?.message ?? error.message)
          : error instanceof Error
            ? error.message
            : String(error);
      log.warn('reconciliation run failed', { requestId: request.requestId, error: message });
      completed = { ...request, workflowId, report: null, error: message };
    }
    view.running = null;
    view.reports.push(completed);
    if (view.reports.length > reportsKept) view.reports.splice(0, view.reports.length - reportsKept);
    upsertMemo({
      lastRequest: {
        requestId: completed.requestId,
        fixesTotal: completed.report?.fixesTotal ?? null,
        error: completed.error,
      },
    });
  }
}
