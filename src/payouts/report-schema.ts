import { z } from 'zod';

// The payout report: what one disbursement contains and whether it adds up. One schema
// for the activity's result, the workflows' results and views, and the CLI's --json; all money in cents.

const cents = z.number().int();
const isoDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

/** One payment of the payout, as it stands now. */
export const PayoutPayment = z.object({
  paymentId: z.string(),
  paymentLinkId: z.string().nullable(),
  method: z.string().nullable(),
  /** The service's status now (FAILED: returned by the payer's bank). */
  status: z.string(),
  grossCents: cents,
  /** The part of the card fee the business absorbed (platformFeeInCents); the payer's share is not ours. */
  absorbedFeeCents: cents,
  /** Live refunds made before the batch: the payout was already net of them. */
  refundedBeforeBatchCents: cents,
  /** Live refunds made after the batch: taken from the service balance, not from this payout. */
  refundedAfterBatchCents: cents,
  /** What an ACH return after the payout took back (gross less absorbed fee), 0 when not returned. */
  returnedCents: cents,
  /** gross - absorbed fee - every live refund - returned: what this payment is worth to the business now. */
  netCents: cents,
});
export type PayoutPayment = z.infer<typeof PayoutPayment>;

export const PayoutRefund = z.object({
  refundId: z.string(),
  paymentId: z.string(),
  amountCents: cents,
  refundDate: z.string(),
  timing: z.enum(['BEFORE_BATCH', 'AFTER_BATCH']),
  /** The payer's bank sent this ACH refund credit back: it counts toward nothing now. */
  returned: z.boolean(),
});
export type PayoutRefund = z.infer<typeof PayoutRefund>;

export const MismatchReason = z.enum([
  /** A refund made after the batch: the payout is larger than what its payments are worth now. */
  'REFUND_AFTER_BATCH',
  /** An ACH payment returned after the payout: the money went back to the payer from the service balance. */
  'RETURN_AFTER_PAYOUT',
  /** The receiving bank refused the payout: nothing reached the bank; the money is back at the service. */
  'PAYOUT_FAILED',
  /** The books do not show the payout as the service does (not synced yet, or drifted). */
  'BOOKS_DIFFER',
  /**
   * An ACH refund credit, made before the batch, that the payer's bank sent back: the payout was smaller by
   * it, and the money is back in the service balance (only the books remember the refund: it leaves refunds[]).
   */
  'REFUND_CREDIT_RETURNED',
  /** A difference none of the above explains (for example an ACH refund credit that came back). */
  'UNEXPLAINED',
]);
export type MismatchReason = z.infer<typeof MismatchReason>;

export const PayoutMismatch = z.object({
  reason: MismatchReason,
  /** How much of the difference this accounts for (the payout's amount for PAYOUT_FAILED). */
  amountCents: cents,
  paymentId: z.string().optional(),
  refundId: z.string().optional(),
  detail: z.string(),
});
export type PayoutMismatch = z.infer<typeof PayoutMismatch>;

export const PayoutTotals = z.object({
  payments: z.number().int(),
  grossCents: cents,
  absorbedFeeCents: cents,
  refundedBeforeBatchCents: cents,
  refundedAfterBatchCents: cents,
  returnedCents: cents,
  netCents: cents,
});
export type PayoutTotals = z.infer<typeof PayoutTotals>;

/** What the ledger booked for the disbursement (Payouts In Transit, Operating or Payout Bank), reversals netted. */
export const PayoutBooks = z.object({
  inTransitCents: cents,
  bankCents: cents,
});
export type PayoutBooks = z.infer<typeof PayoutBooks>;

export const PayoutReport = z.object({
  disbursementId: z.string(),
  /** The service's status: PENDING (in transit), SUCCEEDED, FAILED, or a value booksync does not know. */
  status: z.string(),
  createdAt: z.string().nullable(),
  paidAt: z.string().nullable(),
  bankAccount: z.string(),
  amountCents: cents,
  /** What reached the bank: the amount once SUCCEEDED, 0 when FAILED, null while in transit. */
  reachedBankCents: cents.nullable(),
  payments: z.array(PayoutPayment),
  refunds: z.array(PayoutRefund),
  totals: PayoutTotals,
  /** amountCents - totals.netCents: 0 when the payout equals what its payments are worth now. */
  differenceCents: cents,
  books: PayoutBooks,
  mismatches: z.array(PayoutMismatch),
  /** No mismatch: the payout adds up, reached the bank (or is on its way) and is booked as the service has it. */
  reconciles: z.boolean(),
  computedAt: z.string(),
});
export type PayoutReport = z.infer<typeof PayoutReport>;

export const PayoutPeriod = z.object({ from: isoDay, to: isoDay });
export type PayoutPeriod = z.infer<typeof PayoutPeriod>;

export const PayoutPeriodReport = z.object({
  from: isoDay,
  to: isoDay,
  /** The disbursements batched in the period (createdAt from..to, inclusive), oldest first. */
  payouts: z.array(PayoutReport),
  totals: z.object({
    payouts: z.number().int(),
    amountCents: cents,
    reachedBankCents: cents,
    netCents: cents,
    mismatched: z.number().int(),
  }),
  reconciles: z.boolean(),
});
export type PayoutPeriodReport = z.infer<typeof PayoutPeriodReport>;
