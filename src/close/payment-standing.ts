import type { Payment } from '@booksync/service-contract/schemas/index';
import { businessDay } from '../ledger/mapping/dates.js';

// Whether a payment of the service stands at the end of a day, from the dates the service gives it (its
// createdAt, its refunds' refundDate) and, for a failure the spec gives no time, the day the books reversed
// it (balances-as-of.ts, reversalDays). The period figures and the documents as of the period's end both ask.

/** What became of a payment by the end of a day. */
export type PaymentStanding =
  /** Not created by then. */
  | 'not-yet'
  /** Received and standing (PENDING ACH counts from the start). */
  | 'stands'
  /** Cancelled before settlement by a voided refund dated by then: nothing of it stays. */
  | 'cancelled'
  /** FAILED by then: an ACH return (nothing stays) or a card chargeback (the processor keeps its fees). */
  | 'failed';

export function paymentStanding(
  payment: Pick<Payment, 'id' | 'status' | 'createdAt' | 'refunds'>,
  day: string,
  timeZone: string,
  /** The day the books reversed the payment, when they did (the spec gives a failure no time). */
  reversedOn: string | undefined,
): PaymentStanding {
  if (businessDay(payment.createdAt, timeZone, `payment ${payment.id} createdAt`) > day) return 'not-yet';
  // A FAILED payment the books never reversed is taken to have failed by the day (balances-as-of.ts).
  if (payment.status === 'FAILED' && (reversedOn === undefined || reversedOn <= day)) return 'failed';
  const voidedBy = payment.refunds.some(
    (r) => r.voided && businessDay(r.refundDate, timeZone, `refund ${r.id} refundDate`) <= day,
  );
  return voidedBy ? 'cancelled' : 'stands';
}

/** The refunds of a payment made by the end of a day (refundDate), voided ones aside. */
export function refundedBy(payment: Pick<Payment, 'refunds'>, day: string, timeZone: string): number {
  return payment.refunds
    .filter((r) => !r.voided && businessDay(r.refundDate, timeZone, `refund ${r.id} refundDate`) <= day)
    .reduce((sum, r) => sum + r.amountCents, 0);
}
