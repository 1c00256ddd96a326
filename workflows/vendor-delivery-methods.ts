import {
  ActivityFailure,
  condition,
  log,
  proxyActivities,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { ServiceRecordActivities } from '../activities/service-records-contract.js';
import { serviceCallRetry } from '../src/workflow-safe/retry-policy.js';
import { ServiceObjectId, ServiceStatus, SyncState } from '../src/workflow-safe/search-attributes.js';
import { attention } from './attention.js';
import { listenForServiceEvents } from './service-event.js';
import {
  type VendorDeliveryMethodsView,
  type VendorDeliveryMethodsWorkflowInput,
  vendorDeliveryMethodsViewQuery,
} from './vendor-delivery-methods-contract.js';

/**
 * vendor.payout_method_updated: nothing to book, but none is dropped. Fetches the vendor and keeps its
 * current delivery methods (masked) in the view; ServiceStatus lists the method types (e.g. "ACH,CHECK").
 * Closes after syncing; the next event starts a fresh run.
 */
export async function vendorDeliveryMethods(
  input: VendorDeliveryMethodsWorkflowInput,
): Promise<VendorDeliveryMethodsView> {
  const { fetchVendorDeliveryMethods } = proxyActivities<ServiceRecordActivities>({
    startToCloseTimeout: '30s',
    retry: serviceCallRetry,
  });
  const view: VendorDeliveryMethodsView = {
    vendorId: input.vendorId,
    state: 'SYNCING',
    vendor: null,
    eventsHandled: 0,
    duplicatesDropped: 0,
    lastError: null,
  };
  const inbox = listenForServiceEvents(input.seenEventIds, {
    onDuplicate: () => {
      view.duplicatesDropped++;
    },
  });
  setHandler(vendorDeliveryMethodsViewQuery, () => view);

  do {
    await condition(() => inbox.hasPending());
    const events = inbox.take();
    view.eventsHandled += events.length;
    try {
      const vendor = await fetchVendorDeliveryMethods({
        vendorId: input.vendorId,
        eventIds: events.map((e) => e.eventId),
      });
      view.vendor = vendor;
      view.state = 'SYNCED';
      view.lastError = null;
      const types = [...new Set(vendor.methods.map((m) => m.type))].sort().join(',');
      upsertSearchAttributes([
        { key: ServiceObjectId, value: input.vendorId },
        { key: SyncState, value: view.state },
        { key: ServiceStatus, value: types || 'NO_METHOD' },
        ...attention(null),
      ]);
      upsertMemo({ vendorName: vendor.name, methods: vendor.methods.map((m) => `${m.type} ${m.summary}`) });
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      view.state = 'FAILED';
      view.lastError = error.cause?.message ?? error.message;
      upsertSearchAttributes([
        { key: ServiceObjectId, value: input.vendorId },
        { key: SyncState, value: view.state },
        ...attention(view.lastError),
      ]);
      log.warn('vendor fetch failed', { vendorId: input.vendorId, error: view.lastError });
    }
  } while (inbox.hasPending());
  return view;
}
