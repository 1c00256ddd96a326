import { z } from 'zod';
import { cents, id } from './primitives.js';

// Spec 2.4. Payment method types are closed (decision “Unknown enum values from the real service”).
export const PAYMENT_METHOD_TYPES = ['ACH', 'Card', 'ServiceBalance'] as const;
export const PaymentMethodType = z.enum(PAYMENT_METHOD_TYPES);
export type PaymentMethodType = z.infer<typeof PaymentMethodType>;

export const ACHDetails = z.object({
  bankName: z.string(),
  routingNumber: z.string(),
  accountNumberLastFour: z.string(),
});
export type ACHDetails = z.infer<typeof ACHDetails>;

export const CardDetails = z.object({
  brand: z.string().nullable(),
  last4: z.string().nullable(),
  holderName: z.string().nullable(),
  expMonth: z.string().nullable(),
  expYear: z.string().nullable(),
});
export type CardDetails = z.infer<typeof CardDetails>;

export const ServiceBalanceDetails = z.object({
  nickname: z.string().nullable(),
  accountNumberLastFour: z.string().nullable(),
  /** Available balance less money committed to other payments; may be below zero. */
  spendableCents: cents.nullable(),
});
export type ServiceBalanceDetails = z.infer<typeof ServiceBalanceDetails>;

const billingAddress = {
  name: z.string().nullable(),
  companyName: z.string().nullable(),
  street: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().nullable(),
  zip: z.string().nullable(),
};

export const BillingDetails = z.object({ ...billingAddress, email: z.string().nullable() });
export type BillingDetails = z.infer<typeof BillingDetails>;

/** Inside a charge authorization, billingDetails carries countryCode in place of email (2.4). */
export const ChargeAuthorizationBillingDetails = z.object({
  ...billingAddress,
  countryCode: z.string().nullable(),
});
export type ChargeAuthorizationBillingDetails = z.infer<typeof ChargeAuthorizationBillingDetails>;

const paymentMethodFields = {
  id,
  type: PaymentMethodType,
  achDetails: ACHDetails.nullable(),
  cardDetails: CardDetails.nullable(),
  /** Set when type is ServiceBalance, null otherwise. */
  serviceBalanceDetails: ServiceBalanceDetails.nullable(),
};

export const PaymentMethod = z.object({ ...paymentMethodFields, billingDetails: BillingDetails.nullable() });
export type PaymentMethod = z.infer<typeof PaymentMethod>;

export const ChargeAuthorizationPaymentMethod = z.object({
  ...paymentMethodFields,
  billingDetails: ChargeAuthorizationBillingDetails.nullable(),
});
export type ChargeAuthorizationPaymentMethod = z.infer<typeof ChargeAuthorizationPaymentMethod>;
