import { z } from 'zod';
import { DebitMemo } from './debit-memo.js';
import { ExternalPayment } from './external-payment.js';
import { Payment } from './payment.js';
import { cents, id, isoDate, nonNegativeCents, openEnum, percent, positiveCents } from './primitives.js';

// Spec 2.1, 4.3, 4.5, decisions “Link statuses” to “Precedence”, decision “Sending a payment link”.

/** ACTIVE is named by the spec; PAID and ARCHIVED are decision “Link statuses”. Open (decision “Unknown enum values from the real service”). */
export const PAYMENT_LINK_STATUSES = ['ACTIVE', 'PAID', 'ARCHIVED'] as const;
export const PaymentLinkStatus = openEnum(PAYMENT_LINK_STATUSES);
export type PaymentLinkStatus = z.infer<typeof PaymentLinkStatus>;

export const PaymentLink = z.object({
  id,
  name: z.string(),
  /** Total asked for, including live debit memos. */
  requestedAmountCents: cents,
  dueDate: isoDate.nullable().optional(),
  status: PaymentLinkStatus,
  payments: z.array(Payment),
  /** Live records only. */
  externalPayments: z.array(ExternalPayment),
  /** Live memos only, oldest first. */
  debitMemos: z.array(DebitMemo),
  debitMemoAmountCents: cents,
  /** Omitted for links created in the dashboard without a customer. */
  customerId: id.optional(),
  url: z.url(),
  completedAmountCents: cents,
  /** null: no per-link override. */
  feePassthroughPercent: percent.nullable(),
  creditCardEnabled: z.boolean().nullable(),
  achEnabled: z.boolean().nullable(),
  amountEditable: z.boolean(),
  /** Decision “Reusable links”: optional in the schema, always sent by the emulator. */
  reusable: z.boolean().optional(),
});
export type PaymentLink = z.infer<typeof PaymentLink>;

/** Decision “Link endpoints beyond part 4” create. */
export const CreatePaymentLinkRequest = z.object({
  name: z.string().min(1),
  requestedAmountCents: positiveCents,
  dueDate: isoDate.optional(),
  customerId: id.optional(),
  reusable: z.boolean().optional(),
  feePassthroughPercent: percent.nullable().optional(),
  creditCardEnabled: z.boolean().nullable().optional(),
  achEnabled: z.boolean().nullable().optional(),
  amountEditable: z.boolean().optional(),
});
export type CreatePaymentLinkRequest = z.infer<typeof CreatePaymentLinkRequest>;

/** 4.3 body. Omitted: unchanged; null: cleared override (decision “Updating a link”). requestedAmountCents excludes memos. */
export const UpdatePaymentLinkRequest = z.object({
  requestedAmountCents: nonNegativeCents.optional(),
  name: z.string().min(1).optional(),
  dueDate: isoDate.nullable().optional(),
  feePassthroughPercent: percent.nullable().optional(),
  creditCardEnabled: z.boolean().nullable().optional(),
  achEnabled: z.boolean().nullable().optional(),
  amountEditable: z.boolean().optional(),
});
export type UpdatePaymentLinkRequest = z.infer<typeof UpdatePaymentLinkRequest>;

/** 4.5 body (decision “Sending a payment link”). */
export const SendPaymentLinkRecipient = z.object({
  email: z.email(),
  name: z.string().optional(),
  phoneNumber: z.string().optional(),
});
export type SendPaymentLinkRecipient = z.infer<typeof SendPaymentLinkRecipient>;

export const SendPaymentLinkRequest = z.object({
  recipients: z.array(SendPaymentLinkRecipient).min(1),
  sendSms: z.boolean().optional(),
});
export type SendPaymentLinkRequest = z.infer<typeof SendPaymentLinkRequest>;

/** 4.1 and 4.2 answer with both the record and the re-derived link. */
export const ExternalPaymentResult = z.object({ externalPayment: ExternalPayment, paymentLink: PaymentLink });
export type ExternalPaymentResult = z.infer<typeof ExternalPaymentResult>;

/** Decision “Debit memos” answers. */
export const DebitMemoResult = z.object({ debitMemo: DebitMemo, paymentLink: PaymentLink });
export type DebitMemoResult = z.infer<typeof DebitMemoResult>;
