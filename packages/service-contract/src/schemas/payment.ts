import { z } from 'zod';
import { Disbursement } from './disbursement.js';
import { PaymentMethod } from './payment-method.js';
import { cents, id, openEnum, positiveCents } from './primitives.js';
import { Refund } from './refund.js';

// Spec 2.2, 2.3, part 3, decisions “Settlement and voids” to “Payment endpoints beyond part 4”.

/** Payment statuses named by the spec; open (decision “Unknown enum values from the real service”). FAILED is also a cancelled bill payment. */
export const PAYMENT_STATUSES = ['PENDING', 'SUCCEEDED', 'REFUNDED', 'FAILED'] as const;
export const PaymentStatus = openEnum(PAYMENT_STATUSES);
export type PaymentStatus = z.infer<typeof PaymentStatus>;

/** Fee types: the full set is not shown (2.3), so open (decision “Unknown enum values from the real service”). */
export const FEE_TYPES = ['CREDIT_CARD_FEE'] as const;
export const FeeType = openEnum(FEE_TYPES);
export type FeeType = z.infer<typeof FeeType>;

export const Fee = z.object({ type: FeeType, amountInCents: cents });
export type Fee = z.infer<typeof Fee>;

export const Payment = z.object({
  id,
  status: PaymentStatus,
  fees: z.array(Fee),
  amountInCents: cents,
  chargedAmountInCents: cents,
  platformFeeInCents: cents,
  paymentLinkId: id.nullable(),
  paymentMethod: PaymentMethod.nullable(),
  disbursement: Disbursement.nullable(),
  refunds: z.array(Refund),
  /** Unix milliseconds (decision “Time formats”), a number as 2.2 says. */
  createdAt: z.number(),
  estimatedDisbursementDate: z.string().nullable(),
});
export type Payment = z.infer<typeof Payment>;

/** 4.4 body. amountCents omitted refunds the whole refundable balance (decision “Refund amount”). */
export const RefundPaymentRequest = z.object({
  amountCents: positiveCents.optional(),
  reason: z.string().max(500).optional(),
});
export type RefundPaymentRequest = z.infer<typeof RefundPaymentRequest>;
