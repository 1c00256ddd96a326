import { z } from 'zod';
import { ChargeAuthorizationPaymentMethod } from './payment-method.js';
import { cents, id, isoDate, positiveCents } from './primitives.js';

// Spec 2.11, 4.8, decision “Charge authorizations”.
export const ChargeAuthorization = z.object({
  id,
  customerId: id,
  /** null until the customer authorizes (decision “Charge authorizations”). */
  paymentMethod: ChargeAuthorizationPaymentMethod.nullable(),
  transactionLimitCents: cents,
  expirationDate: isoDate,
  active: z.boolean(),
});
export type ChargeAuthorization = z.infer<typeof ChargeAuthorization>;

/** 4.8 body (decision “Request bodies the spec leaves open”: limit and expiration required; emails default to the customer's). */
export const RequestChargeAuthorizationRequest = z.object({
  emails: z.array(z.email()).optional(),
  memo: z.string().max(500).optional(),
  sendEmail: z.boolean().optional(),
  transactionLimitCents: positiveCents,
  expirationDate: isoDate,
});
export type RequestChargeAuthorizationRequest = z.infer<typeof RequestChargeAuthorizationRequest>;
