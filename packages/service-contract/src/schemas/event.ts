import { z } from 'zod';
import { id, isoDateTime, openEnum } from './primitives.js';

// Spec 6.2 and 6.5. Object types are closed; categories open (decision “Unknown enum values from the real service”): an unknown category is acknowledged
// and logged by the ingress, never rejected.

export const OBJECT_TYPES = [
  'payment',
  'disbursement',
  'charge_authorization',
  'bill_payment',
  'check',
  'vendor',
] as const;
export const ObjectType = z.enum(OBJECT_TYPES);
export type ObjectType = z.infer<typeof ObjectType>;

/** Every category of 6.5 with the object type it carries. Check events carry the bill payment's id. */
export const EVENT_CATEGORY_OBJECT_TYPES = {
  'payment.made': 'payment',
  'payment.failed': 'payment',
  'payment.refunded': 'payment',
  'payment.voided': 'payment',
  'disbursement.pending': 'disbursement',
  'disbursement.succeeded': 'disbursement',
  'charge_authorization.authorized': 'charge_authorization',
  'charge_authorization.deleted': 'charge_authorization',
  'bill_payment.succeeded': 'bill_payment',
  'bill_payment.failed': 'bill_payment',
  'bill_payment.cancelled': 'bill_payment',
  'check.sent': 'check',
  'check.delivered': 'check',
  'check.deposited': 'check',
  'check.returned': 'check',
  'check.failed': 'check',
  'vendor.payout_method_updated': 'vendor',
} as const satisfies Record<string, ObjectType>;

export type KnownEventCategory = keyof typeof EVENT_CATEGORY_OBJECT_TYPES;
export const EVENT_CATEGORIES = Object.keys(EVENT_CATEGORY_OBJECT_TYPES) as [
  KnownEventCategory,
  ...KnownEventCategory[],
];

/** Named constants so code switches on `EventCategory.PaymentMade` rather than a string literal. */
export const EventCategory = {
  PaymentMade: 'payment.made',
  PaymentFailed: 'payment.failed',
  PaymentRefunded: 'payment.refunded',
  PaymentVoided: 'payment.voided',
  DisbursementPending: 'disbursement.pending',
  DisbursementSucceeded: 'disbursement.succeeded',
  ChargeAuthorizationAuthorized: 'charge_authorization.authorized',
  ChargeAuthorizationDeleted: 'charge_authorization.deleted',
  BillPaymentSucceeded: 'bill_payment.succeeded',
  BillPaymentFailed: 'bill_payment.failed',
  BillPaymentCancelled: 'bill_payment.cancelled',
  CheckSent: 'check.sent',
  CheckDelivered: 'check.delivered',
  CheckDeposited: 'check.deposited',
  CheckReturned: 'check.returned',
  CheckFailed: 'check.failed',
  VendorPayoutMethodUpdated: 'vendor.payout_method_updated',
} as const satisfies Record<string, KnownEventCategory>;

export function isKnownEventCategory(category: string): category is KnownEventCategory {
  return Object.hasOwn(EVENT_CATEGORY_OBJECT_TYPES, category);
}

export const EventCategorySchema = openEnum(EVENT_CATEGORIES);

export const EVENT_TYPE = 'event';

/** 6.2: events carry no data; receivers fetch associated_object_id. */
export const EventEnvelope = z.object({
  id: z.uuid(),
  created_at: isoDateTime,
  category: EventCategorySchema,
  associated_object_type: ObjectType,
  associated_object_id: id,
  type: z.literal(EVENT_TYPE),
});
export type EventEnvelope = z.infer<typeof EventEnvelope>;
