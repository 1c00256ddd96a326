// The vendor-delivery-methods flow's contract, imported by its workflow, the ingress's routing and the CLI (samples-typescript's
// shared-module policy): input, view and query, workflow id, and how a service event reaches it.

import { defineQuery } from '@temporalio/workflow';
import { workflowIdFor } from '../../workflow-safe/workflow-ids.js';
import type { VendorRecord } from '../in-activity/service-records-contract.js';
import { type EventRoute, objectIdRoute } from '../in-workflow/service-event.js';
import type { ServiceRecordView } from '../in-workflow/service-record.js';

export interface VendorDeliveryMethodsWorkflowInput {
  vendorId: string;
  seenEventIds?: string[];
}

/** FAILED when the vendor could not be fetched, e.g. a deleted vendor: 404 (ServiceRecordView). */
export interface VendorDeliveryMethodsView extends ServiceRecordView {
  vendorId: string;
  vendor: VendorRecord | null;
  eventsHandled: number;
}

export const vendorDeliveryMethodsViewQuery = defineQuery<VendorDeliveryMethodsView>('view');

/** The workflow's type: everything that starts or signals it by name uses this (never a literal). */
export const vendorDeliveryMethodsWorkflowType = 'vendorDeliveryMethods';

export function vendorDeliveryMethodsWorkflowId(vendorId: string): string {
  return workflowIdFor('vendor', vendorId);
}

/** Service events about the object start or signal this flow (src/ingress/routing.ts). */
export const vendorDeliveryMethodsEventRoute: EventRoute<VendorDeliveryMethodsWorkflowInput> = objectIdRoute(
  vendorDeliveryMethodsWorkflowType,
  vendorDeliveryMethodsWorkflowId,
  'vendorId',
);
