// The bill-payment flow's contract, imported by its workflow, the ingress's routing and the CLI (samples-typescript's
// shared-module policy): input, view and query, workflow id, and how a service event reaches it.

import { defineQuery } from '@temporalio/workflow';
import { workflowIdFor } from '../../workflow-safe/workflow-ids.js';
import type { FetchedRunCounters } from '../in-workflow/fetched-run.js';
import { type EventRoute, objectIdRoute } from '../in-workflow/service-event.js';
import type { BillPaymentSyncResult, OverdueCheckKind } from './activities-contract.js';

export type BillPaymentSyncState =
  | 'SYNCING'
  /** Created, not sent yet (a check not mailed, an ACH not submitted). */
  | 'PENDING'
  | 'SENT'
  | 'DELIVERED'
  /** A check past its delivery or cashing window: NeedsAttention, see `overdue`. */
  | 'CHECK_OVERDUE'
  | 'PAID'
  | 'RETURNED'
  | 'CANCELLED'
  | 'FAILED'
  /** The service does not know the id (a check event of an unknown bill payment): flagged, then closed. */
  | 'NOT_FOUND';

export interface CheckWindows {
  deliveryDays?: number;
  cashingDays?: number;
}

export interface BillPaymentWorkflowInput {
  billPaymentId: string;
  /** Carried through continue-as-new so duplicates stay recognised. */
  seenEventIds?: string[];
  /** Overrides of the check windows (else the worker's settings, else the defaults above). */
  windows?: CheckWindows;
  /** Overdue kinds already reported, carried through continue-as-new so a warning is not repeated. */
  overdueReported?: OverdueCheckKind[];
  /** Sync at start even without a signal. */
  syncOnStart?: boolean;
}

export interface OverdueCheck {
  kind: OverdueCheckKind;
  since: string;
  deadline: string;
  windowDays: number;
}

export interface BillPaymentView extends FetchedRunCounters<BillPaymentSyncResult> {
  billPaymentId: string;
  state: BillPaymentSyncState;
  serviceStatus: string | null;
  checkStatus: string | null;
  deliveryMethodType: string | null;
  failureReason: string | null;
  billStatus: string | null;
  amountCents: number | null;
  windows: { deliveryDays: number; cashingDays: number };
  overdue: OverdueCheck | null;
}

export const billPaymentViewQuery = defineQuery<BillPaymentView>('view');

/** The workflow's type: everything that starts or signals it by name uses this (never a literal). */
export const billPaymentWorkflowType = 'billPayment';

export function billPaymentWorkflowId(billPaymentId: string): string {
  return workflowIdFor(billPaymentWorkflowType, billPaymentId);
}

/** Service events about the object start or signal this flow (src/ingress/routing.ts). */
export const billPaymentEventRoute: EventRoute<BillPaymentWorkflowInput> = objectIdRoute(
  billPaymentWorkflowType,
  billPaymentWorkflowId,
  'billPaymentId',
);
