// The disbursement flow's contract, imported by its workflow, the ingress's routing and the CLI (samples-typescript's
// shared-module policy): input, view and query, workflow id, and how a service event reaches it.

import { defineQuery } from '@temporalio/workflow';
import { workflowIdFor } from '../../workflow-safe/workflow-ids.js';
import { type EventRoute, objectIdRoute } from '../in-workflow/service-event.js';

export interface DisbursementWorkflowInput {
  disbursementId: string;
  seenEventIds?: string[];
}

export interface DisbursementView {
  disbursementId: string;
  state: 'SYNCING' | 'IN_TRANSIT' | 'PAID' | 'FAILED' | 'NOT_FOUND';
  serviceStatus: string | null;
  amountInCents: number | null;
  amountMatchesPayments: boolean | null;
  lastError: string | null;
  syncs: number;
}

export const disbursementViewQuery = defineQuery<DisbursementView>('view');

/** The workflow's type: everything that starts or signals it by name uses this (never a literal). */
export const disbursementWorkflowType = 'disbursement';

export function disbursementWorkflowId(disbursementId: string): string {
  return workflowIdFor(disbursementWorkflowType, disbursementId);
}

/** Service events about the object start or signal this flow (src/ingress/routing.ts). */
export const disbursementEventRoute: EventRoute<DisbursementWorkflowInput> = objectIdRoute(
  disbursementWorkflowType,
  disbursementWorkflowId,
  'disbursementId',
);
