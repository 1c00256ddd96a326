// The vendor-delivery-methods flow's contract, imported by its workflow, the ingress's routing and the CLI (samples-typescript's
// shared-module policy): input, view and query, workflow id, and how a service event reaches it.

import { defineQuery } from '@temporalio/workflow';
import type { VendorRecord } from '../activities/service-records-contract.js';
import { workflowIdFor } from '../src/workflow-safe/workflow-ids.js';
import type { EventRoute } from './service-event.js';

export interface VendorDeliveryMethodsWorkflowInput {
  vendorId: string;
  seenEventIds?: string[];
}

export interface VendorDeliveryMethodsView {
  vendorId: string;
  /** SYNCING until fetched; SYNCED; FAILED when the vendor could not be fetched (a deleted vendor: 404). */
  state: 'SYNCING' | 'SYNCED' | 'FAILED';
  vendor: VendorRecord | null;
  eventsHandled: number;
  duplicatesDropped: number;
  lastError: string | null;
}

export const vendorDeliveryMethodsViewQuery = defineQuery<VendorDeliveryMethodsView>('view');

/** The workflow's type: everything that starts or signals it by name uses this (never a literal). */
export const vendorDeliveryMethodsWorkflowType = 'vendorDeliveryMethods';

export function vendorDeliveryMethodsWorkflowId(vendorId: string): string {
  return workflowIdFor('vendor', vendorId);
}

/** Service events about the object start or signal this flow (src/ingress/routing.ts). */
export const vendorDeliveryMethodsEventRoute: EventRoute<VendorDeliveryMethodsWorkflowInput> = {
  workflowType: vendorDeliveryMethodsWorkflowType,
  workflowId: vendorDeliveryMethodsWorkflowId,
  startInput: (vendorId) => ({ vendorId }),
};
