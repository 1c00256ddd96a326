import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import type { PeriodCloseResult } from '../close/certificate-summary.js';
import {
  type AccountingTargetView,
  accountingTargetViewQuery,
  accountingTargetWorkflowId,
} from '../flows/push/contract.js';

// What the console reads from Temporal: each target's push flow's own view (its connection's state), the flows
// flagged NeedsAttention, and the period-close certificates (the periodClose workflows' results).

export type TargetConnection =
  | { state: AccountingTargetView['state']; lastError: string | null; warning: string | null }
  | { state: 'NOT_RUNNING' | 'UNKNOWN'; lastError: string | null; warning: null };

const within = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  Promise.race([
    promise,
    new Promise<T>((_, reject) =>
      setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref(),
    ),
  ]);

export async function targetConnection(client: Client, target: string): Promise<TargetConnection> {
  try {
    const view = await within(
      client.workflow.getHandle(accountingTargetWorkflowId(target)).query(accountingTargetViewQuery),
      5_000,
    );
    return { state: view.state, lastError: view.lastError, warning: view.warning ?? null };
  } catch (error) {
    if (error instanceof WorkflowNotFoundError)
      return { state: 'NOT_RUNNING', lastError: null, warning: null };
    return {
      state: 'UNKNOWN',
      lastError: error instanceof Error ? error.message : String(error),
      warning: null,
    };
  }
}

export interface FlowNeedingAttention {
  workflowId: string;
  type: string;
  lastError: string | null;
}

export async function flowsNeedingAttention(client: Client, limit = 20): Promise<FlowNeedingAttention[]> {
  const found: FlowNeedingAttention[] = [];
  for await (const wf of client.workflow.list({
    query: 'NeedsAttention = true AND ExecutionStatus = "Running"',
    pageSize: limit,
  })) {
    const lastError = wf.searchAttributes?.LastError?.[0];
    found.push({
      workflowId: wf.workflowId,
      type: wf.type,
      lastError: typeof lastError === 'string' ? lastError : null,
    });
    if (found.length >= limit) break;
  }
  return found;
}

export interface ReconciliationRun {
  workflowId: string;
  status: string;
  startTime: Date;
  closeTime: Date | null;
}

/** The newest reconciliation run (the Schedule's or a `booksync reconcile`), if any. */
export async function lastReconciliation(client: Client): Promise<ReconciliationRun | null> {
  for await (const wf of client.workflow.list({ query: 'WorkflowType = "reconciliation"', pageSize: 1 })) {
    return {
      workflowId: wf.workflowId,
      status: wf.status.name,
      startTime: wf.startTime,
      closeTime: wf.closeTime ?? null,
    };
  }
  return null;
}

export interface CertificateRun {
  workflowId: string;
  runId: string;
  status: string;
  startTime: Date;
  /** Its result, for a completed run: the certificate's summary (or, from earlier releases, the whole one). */
  certificate: PeriodCloseResult | null;
}

export async function certificateRuns(client: Client, limit = 12): Promise<CertificateRun[]> {
  const runs: CertificateRun[] = [];
  for await (const wf of client.workflow.list({ query: 'WorkflowType = "periodClose"', pageSize: limit })) {
    runs.push({
      workflowId: wf.workflowId,
      runId: wf.runId,
      status: wf.status.name,
      startTime: wf.startTime,
      certificate: null,
    });
    if (runs.length >= limit) break;
  }
  await Promise.all(
    runs
      .filter((r) => r.status === 'COMPLETED')
      .map(async (r) => {
        r.certificate = await certificateOf(client, r.workflowId, r.runId).catch(() => null);
      }),
  );
  return runs;
}

export async function certificateOf(
  client: Client,
  workflowId: string,
  runId?: string,
): Promise<PeriodCloseResult> {
  return (await within(client.workflow.getHandle(workflowId, runId).result(), 10_000)) as PeriodCloseResult;
}
