// The charge-authorization flow's contract, imported by its workflow, the ingress's routing and the CLI (samples-typescript's
// shared-module policy): input, view and query, workflow id, and how a service event reaches it.

import { defineQuery } from '@temporalio/workflow';
import { workflowIdFor } from '../../workflow-safe/workflow-ids.js';
import type { ChargeAuthorizationRecord } from '../in-activity/service-records-contract.js';
import { type EventRoute, objectIdRoute } from '../in-workflow/service-event.js';
import type { ServiceRecordView } from '../in-workflow/service-record.js';

export interface ChargeAuthorizationWorkflowInput {
  chargeAuthorizationId: string;
  seenEventIds?: string[];
}

/** SYNCED with the authorization below; FAILED when it could not be fetched (ServiceRecordView). */
export interface ChargeAuthorizationView extends ServiceRecordView {
  chargeAuthorizationId: string;
  authorization: ChargeAuthorizationRecord | null;
  /** The categories handled, in order (charge_authorization.authorized, .deleted...). */
  categories: string[];
  syncs: number;
}

export const chargeAuthorizationViewQuery = defineQuery<ChargeAuthorizationView>('view');

/** The workflow's type: everything that starts or signals it by name uses this (never a literal). */
export const chargeAuthorizationWorkflowType = 'chargeAuthorization';

export function chargeAuthorizationWorkflowId(chargeAuthorizationId: string): string {
  return workflowIdFor(chargeAuthorizationWorkflowType, chargeAuthorizationId);
}

/** Service events about the object start or signal this flow (src/ingress/routing.ts). */
export const chargeAuthorizationEventRoute: EventRoute<ChargeAuthorizationWorkflowInput> = objectIdRoute(
  chargeAuthorizationWorkflowType,
  chargeAuthorizationWorkflowId,
  'chargeAuthorizationId',
);
