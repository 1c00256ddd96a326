// The reconciliation flow's contract, imported by its workflows, the CLI and the Schedule (samples-typescript's
// shared-module policy): the report, input, view and query, and the run's workflow id.

import { defineQuery, defineSignal } from '@temporalio/workflow';
import { RECONCILIATION_REQUESTS_WORKFLOW_ID, workflowIdFor } from '../../workflow-safe/workflow-ids.js';
import type {
  ObjectDrift,
  ReconciledObject,
  ReconcileProblem,
  ReconciliationScope,
} from './activities-contract.js';

export interface ReconciliationReport {
  scope: ReconciliationScope;
  requestId: string | null;
  startedAt: string;
  finishedAt: string | null;
  pages: number;
  runs: number;
  examined: Record<ReconciledObject, number>;
  /** Objects whose books had to change, by object type. */
  driftFound: Record<ReconciledObject, number>;
  /** Entries written to repair it, by entry kind (payment, refund, external-payment, debit-memo...). */
  fixed: { posted: Record<string, number>; reversed: Record<string, number> };
  /** Entries posted plus reversed: 0 means the books already matched the service. */
  fixesTotal: number;
  /** The first objects that drifted, and every object it could not repair (capped). */
  drift: ObjectDrift[];
  problems: ReconcileProblem[];
}

export interface ReconciliationInput {
  scope: ReconciliationScope;
  /** Where to continue (continue-as-new); omitted at the start. */
  pageToken?: string | null;
  /** The report so far (continue-as-new). */
  report?: ReconciliationReport;
  pageSize?: number;
  /** Set when started for a `reconcile` signal, so its report names the request. */
  requestId?: string;
}

export interface ReconciliationView {
  state: 'RUNNING' | 'DONE';
  pageToken: string | null;
  report: ReconciliationReport;
}

export const reconciliationViewQuery = defineQuery<ReconciliationView>('view');

export function reconciliationRunWorkflowId(requestId: string): string {
  return workflowIdFor('reconciliationRun', requestId);
}

/** The workflow type of a reconciliation run (the Schedule's, and each request's). */
export const reconciliationWorkflowType = 'reconciliation';
/** The one long-lived workflow taking `reconcile` requests, one run at a time. */
export const reconciliationRequestsWorkflowType = 'reconciliationRequests';
export const reconciliationRequestsWorkflowId = RECONCILIATION_REQUESTS_WORKFLOW_ID;

export interface ReconcileRequest {
  scope: ReconciliationScope;
  /** Chosen by the caller; the run is `reconcile-{requestId}`, and a repeated id is ignored. */
  requestId: string;
}

export const reconcileSignal = defineSignal<[ReconcileRequest]>('reconcile');

export interface CompletedReconcileRequest {
  requestId: string;
  scope: ReconciliationScope;
  workflowId: string;
  report: ReconciliationReport | null;
  error: string | null;
}

export interface ReconciliationRequestsInput {
  queue?: ReconcileRequest[];
  reports?: CompletedReconcileRequest[];
  seenRequestIds?: string[];
}

export interface ReconciliationRequestsView {
  queue: ReconcileRequest[];
  running: ReconcileRequest | null;
  /** The last reports, newest last. */
  reports: CompletedReconcileRequest[];
  rejected: { requestId: string; reason: string }[];
}

export const reconciliationRequestsViewQuery = defineQuery<ReconciliationRequestsView>('view');
