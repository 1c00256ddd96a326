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
import {
  CustomerId,
  PaymentMethodType,
  ServiceObjectId,
  ServiceStatus,
  SyncState,
} from '../src/workflow-safe/search-attributes.js';
import { attention } from './attention.js';
import {
  type ChargeAuthorizationView,
  type ChargeAuthorizationWorkflowInput,
  chargeAuthorizationViewQuery,
} from './charge-authorization-contract.js';
import { listenForServiceEvents } from './service-event.js';

/**
 * charge_authorization.* events: nothing to book, but none is dropped. Fetches the authorization and keeps
 * what it says (active or revoked, the customer, the method type) in its view and search attributes, then
 * closes; the next event starts a fresh run.
 */
export async function chargeAuthorization(
  input: ChargeAuthorizationWorkflowInput,
): Promise<ChargeAuthorizationView> {
  const { fetchChargeAuthorization } = proxyActivities<ServiceRecordActivities>({
    startToCloseTimeout: '30s',
    retry: serviceCallRetry,
  });
  const view: ChargeAuthorizationView = {
    chargeAuthorizationId: input.chargeAuthorizationId,
    state: 'SYNCING',
    authorization: null,
    categories: [],
    duplicatesDropped: 0,
    syncs: 0,
    lastError: null,
  };
  const inbox = listenForServiceEvents(input.seenEventIds, {
    onDuplicate: () => {
      view.duplicatesDropped++;
    },
  });
  setHandler(chargeAuthorizationViewQuery, () => view);

  do {
    await condition(() => inbox.hasPending());
    const events = inbox.take();
    view.categories.push(...events.map((e) => e.category));
    view.syncs++;
    try {
      const record = await fetchChargeAuthorization({
        chargeAuthorizationId: input.chargeAuthorizationId,
        eventIds: events.map((e) => e.eventId),
      });
      view.authorization = record;
      view.state = 'SYNCED';
      view.lastError = null;
      upsertSearchAttributes([
        { key: ServiceObjectId, value: input.chargeAuthorizationId },
        { key: SyncState, value: view.state },
        { key: ServiceStatus, value: record.status },
        { key: CustomerId, value: record.customerId },
        ...attention(null),
        ...(record.methodType ? [{ key: PaymentMethodType, value: record.methodType }] : []),
      ]);
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      view.state = 'FAILED';
      view.lastError = error.cause?.message ?? error.message;
      upsertSearchAttributes([
        { key: ServiceObjectId, value: input.chargeAuthorizationId },
        { key: SyncState, value: view.state },
        ...attention(view.lastError),
      ]);
      log.warn('charge authorization fetch failed', {
        chargeAuthorizationId: input.chargeAuthorizationId,
        error: view.lastError,
      });
    }
    upsertMemo({ categories: view.categories.slice(-20) });
  } while (inbox.hasPending());
  return view;
}
