import { setHandler } from '@temporalio/workflow';
import { ServiceStatus } from '../../workflow-safe/search-attributes.js';
import { attention } from '../in-workflow/attention.js';
import { mirrorServiceRecord, serviceRecordActivities } from '../in-workflow/service-record.js';
import {
  type VendorDeliveryMethodsView,
  type VendorDeliveryMethodsWorkflowInput,
  vendorDeliveryMethodsViewQuery,
} from './contract.js';

/**
 * vendor.payout_method_updated: nothing to book, but none is dropped. Fetches the vendor and keeps its
 * current delivery methods (masked) in the view; ServiceStatus lists the method types (e.g. "ACH,CHECK").
 * Closes after syncing; the next event starts a fresh run.
 */
export async function vendorDeliveryMethods(
  input: VendorDeliveryMethodsWorkflowInput,
): Promise<VendorDeliveryMethodsView> {
  const { fetchVendorDeliveryMethods } = serviceRecordActivities();
  const { vendorId } = input;
  const view: VendorDeliveryMethodsView = {
    vendorId,
    state: 'SYNCING',
    vendor: null,
    eventsHandled: 0,
    duplicatesDropped: 0,
    lastError: null,
  };
  setHandler(vendorDeliveryMethodsViewQuery, () => view);

  await mirrorServiceRecord({
    objectId: vendorId,
    view,
    seenEventIds: input.seenEventIds,
    taken: (events) => {
      view.eventsHandled += events.length;
    },
    fetch: (eventIds) => fetchVendorDeliveryMethods({ vendorId, eventIds }),
    fetched: (vendor) => {
      view.vendor = vendor;
      const types = [...new Set(vendor.methods.map((m) => m.type))].sort().join(',');
      return [{ key: ServiceStatus, value: types || 'NO_METHOD' }, ...attention(null)];
    },
    // The vendor's name and methods once fetched; a failed fetch leaves the memo as it was.
    memo: (vendor) =>
      vendor && { vendorName: vendor.name, methods: vendor.methods.map((m) => `${m.type} ${m.summary}`) },
    failure: { message: 'vendor fetch failed', fields: { vendorId } },
  });
  return view;
}
