// The payment flow's contract, imported by its workflow, the ingress's routing and the CLI (samples-typescript's
// shared-module policy): input, view and query, workflow id, and how a service event reaches it.

import { defineQuery } from '@temporalio/workflow';
import { workflowIdFor } from '../../workflow-safe/workflow-ids.js';
import type { FetchedRunCounters } from '../in-workflow/fetched-run.js';
import { type EventRoute, objectIdRoute } from '../in-workflow/service-event.js';
import type { PaymentSyncResult } from './activities-contract.js';

export type PaymentSyncState = 'SYNCING' | 'IN_RETURN_WINDOW' | 'RETURNED' | 'CLOSED' | 'NOT_FOUND';

export interface PaymentWorkflowInput {
  paymentId: string;
  /** Carried through continue-as-new so duplicates stay recognised. */
  seenEventIds?: string[];
  /** Sync at start even without a signal (reconciliation starts runs this way). */
  syncOnStart?: boolean;
}

export interface PaymentView extends FetchedRunCounters<PaymentSyncResult> {
  paymentId: string;
  state: PaymentSyncState;
  serviceStatus: string | null;
  methodType: string | null;
  returnWindowEndsAt: string | null;
}

export const paymentViewQuery = defineQuery<PaymentView>('view');

/** The workflow's type: everything that starts or signals it by name uses this (never a literal). */
export const paymentWorkflowType = 'payment';

export function paymentWorkflowId(paymentId: string): string {
  return workflowIdFor(paymentWorkflowType, paymentId);
}

/** Service events about the object start or signal this flow (src/ingress/routing.ts). */
export const paymentEventRoute: EventRoute<PaymentWorkflowInput> = objectIdRoute(
  paymentWorkflowType,
  paymentWorkflowId,
  'paymentId',
);
