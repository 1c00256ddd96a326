import { setHandler } from '@temporalio/workflow';
import { CustomerId, PaymentMethodType, ServiceStatus } from '../../workflow-safe/search-attributes.js';
import { attention } from '../in-workflow/attention.js';
import { mirrorServiceRecord, serviceRecordActivities } from '../in-workflow/service-record.js';
import {
  type ChargeAuthorizationView,
  type ChargeAuthorizationWorkflowInput,
  chargeAuthorizationViewQuery,
} from './contract.js';

/**
 * charge_authorization.* events: nothing to book, but none is dropped. Fetches the authorization and keeps
 * what it says (active or revoked, the customer, the method type) in its view and search attributes, then
 * closes; the next event starts a fresh run.
 */
export async function chargeAuthorization(
  input: ChargeAuthorizationWorkflowInput,
): Promise<ChargeAuthorizationView> {
  const { fetchChargeAuthorization } = serviceRecordActivities();
  const { chargeAuthorizationId } = input;
  const view: ChargeAuthorizationView = {
    chargeAuthorizationId,
    state: 'SYNCING',
    authorization: null,
    categories: [],
    duplicatesDropped: 0,
    syncs: 0,
    lastError: null,
  };
  setHandler(chargeAuthorizationViewQuery, () => view);

  await mirrorServiceRecord({
    objectId: chargeAuthorizationId,
    view,
    seenEventIds: input.seenEventIds,
    taken: (events) => {
      view.categories.push(...events.map((e) => e.category));
      view.syncs++;
    },
    fetch: (eventIds) => fetchChargeAuthorization({ chargeAuthorizationId, eventIds }),
    fetched: (record) => {
      view.authorization = record;
      return [
        { key: ServiceStatus, value: record.status },
        { key: CustomerId, value: record.customerId },
        ...attention(null),
        ...(record.methodType ? [{ key: PaymentMethodType, value: record.methodType }] : []),
      ];
    },
    // Every run's memo lists its latest categories, fetched or not.
    memo: () => ({ categories: view.categories.slice(-20) }),
    failure: { message: 'charge authorization fetch failed', fields: { chargeAuthorizationId } },
  });
  return view;
}
