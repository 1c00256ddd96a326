import {
  EVENT_CATEGORY_OBJECT_TYPES,
  isKnownEventCategory,
  type ObjectType,
} from '../service/schemas/index.js';

// Spec 6.5 categories to the workflow that owns the object (design overview, "Flows"). Workflow ids are
// business ids so the Temporal UI finds them. Only the categories of 6.5 route: an unknown one (even with a
// known prefix) is acknowledged and recorded instead, because the owning workflow was not written for it.

export interface RouteRule {
  /** Workflow type name; signalWithStart takes the name, so the ingress never imports workflow code. */
  workflowType: string;
  workflowIdPrefix: string;
  /** The single input field the workflow starts from, e.g. `{ paymentId }`. */
  inputField: string;
}

/** Keyed by the object type a known category carries (check events carry the bill payment's id). */
export const ROUTING_TABLE = {
  payment: { workflowType: 'payment', workflowIdPrefix: 'payment-', inputField: 'paymentId' },
  disbursement: {
    workflowType: 'disbursement',
    workflowIdPrefix: 'disbursement-',
    inputField: 'disbursementId',
  },
  bill_payment: {
    workflowType: 'billPayment',
    workflowIdPrefix: 'bill-payment-',
    inputField: 'billPaymentId',
  },
  check: { workflowType: 'billPayment', workflowIdPrefix: 'bill-payment-', inputField: 'billPaymentId' },
  charge_authorization: {
    workflowType: 'chargeAuthorization',
    workflowIdPrefix: 'charge-authorization-',
    inputField: 'chargeAuthorizationId',
  },
  vendor: { workflowType: 'vendorDeliveryMethods', workflowIdPrefix: 'vendor-', inputField: 'vendorId' },
} as const satisfies Record<ObjectType, RouteRule>;

export interface WorkflowRoute {
  workflowType: string;
  workflowId: string;
  args: [Record<string, string>];
}

/** The workflow an event signals, or undefined for a category 6.5 does not list. */
export function routeEvent(category: string, objectId: string): WorkflowRoute | undefined {
  if (!isKnownEventCategory(category)) return undefined;
  const rule: RouteRule = ROUTING_TABLE[EVENT_CATEGORY_OBJECT_TYPES[category]];
  return {
    workflowType: rule.workflowType,
    workflowId: `${rule.workflowIdPrefix}${objectId}`,
    args: [{ [rule.inputField]: objectId }],
  };
}
