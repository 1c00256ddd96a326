import { defineQuery, defineSignal } from '@temporalio/workflow';
import { workflowIdFor } from '../../workflow-safe/workflow-ids.js';

// The accounting-target push flow's contract, imported by the worker's composition root, the CLI and tests
// (no workflow code here). One workflow per target pushes the ledger's entries to it in posting order.

export interface AccountingTargetInput {
  target: string;
  /** Entries pushed per activity run. */
  sliceSize?: number;
  /**
   * How long the push waits for a wake-up before it looks at the index by itself (a write whose signal was
   * lost). Default a minute; runs started before it existed keep the minute.
   */
  pollEvery?: string;
  /** The longest wait between two attempts while the target is unreachable. Default a minute. */
  retryMaximumInterval?: string;
  /**
   * How long a push attempt may go without a heartbeat before Temporal starts another (the resumption after a
   * worker dies mid-push). Default a minute.
   */
  heartbeatTimeout?: string;
}

export interface AccountingTargetView {
  target: string;
  state: 'PUSHING' | 'IDLE' | 'WAITING_FOR_TARGET';
  pending: number;
  pushed: number;
  failed: number;
  skipped: number;
  /** The newest refusals, for the Temporal UI (the index holds them all). */
  lastFailures: { key: string; reason: string }[];
  lastError: string | null;
  /** The target's warning (e.g. Xero's daily call budget nearly spent); absent in runs of older releases. */
  warning?: string | null;
}

/** A ledger write happened: push now instead of at the next poll. */
export const entriesPostedSignal = defineSignal('entriesPosted');
/** `booksync targets retry`: queue FAILED entries (all, or these keys) again, then push. */
export const retryEntriesSignal = defineSignal<[{ keys: 'failed' | string[] }]>('retryEntries');
export const accountingTargetViewQuery = defineQuery<AccountingTargetView>('view');

/** The workflow's type: everything that starts or signals it by name uses this (never a literal). */
export const accountingTargetWorkflowType = 'accountingTarget';

export function accountingTargetWorkflowId(target: string): string {
  return workflowIdFor(accountingTargetWorkflowType, target);
}
