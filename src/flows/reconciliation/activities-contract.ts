// The contract between the reconciliation workflows and their activity (implementation:
// src/flows/reconciliation/activities.ts). Page results stay small (counts and the ids that drifted), so a run over
// thousands of objects keeps a short history.

export type ReconciliationScope =
  | { kind: 'all' }
  | { kind: 'link'; paymentLinkId: string }
  | { kind: 'customer'; customerId: string }
  /** Payments created on or after the date (YYYY-MM-DD), and disbursements batched on or after it. */
  | { kind: 'paymentsSince'; date: string };

/**
 * What reconciliation walks: payment links (their invoice, external payments and debit memos), payments,
 * disbursements, check deposits (scope all).
 */
export type ReconciledObject = 'paymentLink' | 'payment' | 'disbursement' | 'checkDeposit';

export interface ReconcilePageInput {
  scope: ReconciliationScope;
  /** Where to continue (`phase:page`, opaque to the workflow); null starts at the scope's first phase. */
  pageToken: string | null;
  pageSize: number;
  /** For the logs: the reconciliation run this page belongs to. */
  runId: string;
}

export interface ObjectDrift {
  object: ReconciledObject;
  id: string;
  /** Entry kinds posted / reversed to repair it, e.g. ['payment', 'refund']. */
  posted: string[];
  reversed: string[];
}

export interface ReconcileProblem {
  object: ReconciledObject;
  id: string;
  /** A failure retrying cannot fix (a ledger conflict, an unmappable state, a 404): left for a person. */
  error: string;
}

export interface ReconcilePageResult {
  /** null: the scope is done. */
  nextPageToken: string | null;
  phase: string;
  examined: Record<ReconciledObject, number>;
  drift: ObjectDrift[];
  problems: ReconcileProblem[];
  /**
   * ACH payments this page booked (their events were lost) that are still inside their 60-day return
   * window: the workflow starts their payment workflow so the window is watched at once. Absent in results
   * recorded by earlier releases.
   */
  achWindowsToWatch?: string[];
}

export interface ReconciliationActivities {
  reconcilePage(input: ReconcilePageInput): Promise<ReconcilePageResult>;
}
