import {
  EVENT_CATEGORY_OBJECT_TYPES,
  isKnownEventCategory,
  type ObjectType,
} from '@booksync/service-contract/schemas/index';
import { billPaymentEventRoute } from '../flows/bill-payment/contract.js';
import { chargeAuthorizationEventRoute } from '../flows/charge-authorization/contract.js';
import { disbursementEventRoute } from '../flows/disbursement/contract.js';
import type { EventRoute } from '../flows/in-workflow/service-event.js';
import { paymentEventRoute } from '../flows/payment/contract.js';
import { vendorDeliveryMethodsEventRoute } from '../flows/vendor-delivery-methods/contract.js';

// Spec 6.5 categories to the workflow that owns the object (design overview, "Flows"), as each flow's contract
// module declares it (src/flows/*/contract.ts: workflow type, business workflow id, start input), so the Temporal
// UI finds them. Only the categories of 6.5 route: an unknown one (even with a known prefix) is acknowledged and
// recorded instead, because the owning workflow was not written for it.

/** Keyed by the object type a known category carries (check events carry the bill payment's id). */
export const ROUTING_TABLE = {
  payment: paymentEventRoute,
  disbursement: disbursementEventRoute,
  bill_payment: billPaymentEventRoute,
  check: billPaymentEventRoute,
  charge_authorization: chargeAuthorizationEventRoute,
  vendor: vendorDeliveryMethodsEventRoute,
} as const satisfies Record<ObjectType, EventRoute>;

export interface WorkflowRoute {
  workflowType: string;
  workflowId: string;
  args: [object];
}

/** The workflow an event signals, or undefined for a category 6.5 does not list. */
export function routeEvent(category: string, objectId: string): WorkflowRoute | undefined {
  if (!isKnownEventCategory(category)) return undefined;
  const route: EventRoute = ROUTING_TABLE[EVENT_CATEGORY_OBJECT_TYPES[category]];
  return {
    workflowType: route.workflowType,
    workflowId: route.workflowId(objectId),
    args: [route.startInput(objectId)],
  };
}
