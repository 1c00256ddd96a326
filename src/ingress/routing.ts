import {
  EVENT_CATEGORY_OBJECT_TYPES,
  isKnownEventCategory,
  type ObjectType,
} from '../service/schemas/index.js';
import { type WorkflowKind, workflowIdFor } from '../temporal/workflow-ids.js';

// Spec 6.5 categories to the workflow that owns the object (design overview, "Flows"). Workflow ids are
// business ids so the Temporal UI finds them, built by the one injective scheme of workflow-ids.ts. Only the
// categories of 6.5 route: an unknown one (even with a known prefix) is acknowledged and recorded instead,
// because the owning workflow was not written for it.

export interface RouteRule {
  /** Workflow type name; signalWithStart takes the name, so the ingress never imports workflow code. */
  workflowType: string;
  /** Which workflow id scheme (prefix) the object's workflow has. */
  workflowKind: WorkflowKind;
  /** The single input field the workflow starts from, e.g. `{ paymentId }`. */
  inputField: string;
}

/** Keyed by the object type a known category carries (check events carry the bill payment's id). */
export const ROUTING_TABLE = {
  payment: { workflowType: 'payment', workflowKind: 'payment', inputField: 'paymentId' },
  disbursement: { workflowType: 'disbursement', workflowKind: 'disbursement', inputField: 'disbursementId' },
  bill_payment: { workflowType: 'billPayment', workflowKind: 'billPayment', inputField: 'billPaymentId' },
  check: { workflowType: 'billPayment', workflowKind: 'billPayment', inputField: 'billPaymentId' },
  charge_authorization: {
    workflowType: 'chargeAuthorization',
    workflowKind: 'chargeAuthorization',
    inputField: 'chargeAuthorizationId',
  },
  vendor: { workflowType: 'vendorDeliveryMethods', workflowKind: 'vendor', inputField: 'vendorId' },
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
    workflowId: workflowIdFor(rule.workflowKind, objectId),
    args: [{ [rule.inputField]: objectId }],
  };
}
