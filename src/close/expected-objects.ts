import type { Payment } from '@booksync/service-contract/schemas/index';
import { entryKeys } from '../ledger/entry-key.js';
import { earlierCheckBooking } from '../ledger/mapping/check-deposit.js';
import { businessDay } from '../ledger/mapping/dates.js';
import type { CloseInput, ClosePeriod } from './close-input.js';

// What the close certificate expects to find booked: every service object dated in the period, with the entry
// key it maps to, or why it maps to none. One function per family of objects the service lists.

export const objectKinds = [
  'payment',
  'refund',
  'externalPayment',
  'debitMemo',
  'depositApplication',
  'checkDeposit',
  'disbursement',
  'bill',
  'billPayment',
] as const;
export type ObjectKind = (typeof objectKinds)[number];

export interface Expected {
  kind: ObjectKind;
  id: string;
  date: string;
  amountCents: number;
  key: string | null;
  skipReason: string | null;
}

/** Takes one expected object; the same object twice, or one dated outside the period, is dropped. */
type Add = (expected: Expected) => void;

/** An object expected under the key `keyOf` gives its id, or under none for `skip`. */
function expected(
  kind: ObjectKind,
  id: string,
  date: string,
  amountCents: number,
  skip: string | null,
  keyOf: (id: string) => string,
): Expected {
  return { kind, id, date, amountCents, key: skip ? null : keyOf(id), skipReason: skip };
}

export const inPeriod = (date: string, period: ClosePeriod) => date >= period.from && date <= period.to;

/** Every service object dated in the period, with the entry it should map to or why it maps to none. */
export function expectedObjects(input: CloseInput): Expected[] {
  const out: Expected[] = [];
  const seen = new Set<string>();
  const add: Add = (e) => {
    const id = `${e.kind}:${e.id}`;
    if (seen.has(id) || !inPeriod(e.date, input.period)) return;
    seen.add(id);
    out.push(e);
  };
  paymentObjects(input, add);
  checkDepositObjects(input, add);
  linkObjects(input, add);
  disbursementObjects(input, add);
  billObjects(input, add);
  return out.sort(
    (a, b) => a.date.localeCompare(b.date) || a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id),
  );
}

/** Payments (those of links and the others) and their refunds. */
function paymentObjects(input: CloseInput, add: Add): void {
  const payments = new Map<string, Payment>();
  for (const payment of input.payments) payments.set(payment.id, payment);
  for (const link of input.links) for (const payment of link.payments) payments.set(payment.id, payment);
  const reusable = new Set(input.links.filter((l) => l.reusable).map((l) => l.id));
  const settlesInvoice = (p: Payment) => p.paymentLinkId != null && !reusable.has(p.paymentLinkId);

  for (const payment of payments.values()) {
    const date = businessDay(payment.createdAt, input.timeZone, `payment ${payment.id} createdAt`);
    const cancelled = payment.refunds.some((r) => r.voided);
    const skip =
      payment.status === 'FAILED'
        ? 'FAILED: nothing stays booked (a return reverses what was booked)'
        : cancelled
          ? 'cancelled before settlement: nothing stays booked'
          : payment.amountInCents === 0
            ? 'zero amount'
            : null;
    // A payment that settles no invoice (a reusable link, no link) is a sale of its own.
    const keyOf = settlesInvoice(payment) ? entryKeys.payment : entryKeys.sale;
    add(expected('payment', payment.id, date, payment.amountInCents, skip, keyOf));
    for (const refund of payment.refunds) {
      const refundSkip = skip
        ? `its payment maps to nothing (${skip})`
        : refund.amountCents === 0
          ? 'zero amount'
          : null;
      add(
        expected(
          'refund',
          refund.id,
          businessDay(refund.refundDate, input.timeZone, `refund ${refund.id} refundDate`),
          refund.amountCents,
          refundSkip,
          entryKeys.refund,
        ),
      );
    }
  }
}

/** Check deposits and their applications. */
function checkDepositObjects(input: CloseInput, add: Add): void {
  // A deposited check is booked whole on its own day (`check-deposited:`); a deposit the previous release
  // booked holds in it only what its applications did not (mapping/check-deposit.ts).
  // Applications of check deposits are external payments too (serviceBankingTransferId set): booked once,
  // by the check-deposit flow, as `check-application:`.
  for (const deposit of input.checkDeposits) {
    const returned = deposit.status === 'RETURNED' || deposit.status === 'REJECTED';
    const earlier = earlierCheckBooking(
      deposit.id,
      input.entries.filter((e) => e.links.checkDepositId === deposit.id),
    );
    const rest = deposit.amountCents - [...earlier.applications.values()].reduce((sum, c) => sum + c, 0);
    const depositSkip = returned
      ? `deposit ${deposit.status}: its entries are reversed`
      : rest === 0
        ? 'its applications booked by the previous release hold the whole check'
        : null;
    add(
      expected(
        'checkDeposit',
        deposit.id,
        businessDay(deposit.createdAt, input.timeZone, `check deposit ${deposit.id} createdAt`),
        rest,
        depositSkip,
        entryKeys.checkDeposited,
      ),
    );
    for (const application of deposit.applications) {
      if (application.voided) continue;
      const skip = returned ? `deposit ${deposit.status}: its applications are reversed` : null;
      add(
        expected(
          'depositApplication',
          application.id,
          businessDay(application.paidAt, input.timeZone, `application ${application.id} paidAt`),
          application.amountCents,
          skip,
          entryKeys.checkApplication,
        ),
      );
    }
  }
}

/** A link's external payments (a check's applications among them) and debit memos. */
function linkObjects(input: CloseInput, add: Add): void {
  for (const link of input.links) {
    for (const ep of link.externalPayments) {
      if (ep.voided) continue;
      const application = ep.serviceBankingTransferId != null;
      const date = businessDay(ep.paidAt, input.timeZone, `external payment ${ep.id} paidAt`);
      add(
        application
          ? expected('depositApplication', ep.id, date, ep.amountCents, null, entryKeys.checkApplication)
          : expected(
              'externalPayment',
              ep.id,
              date,
              ep.amountCents,
              null,
              link.reusable ? entryKeys.externalSale : entryKeys.externalPayment,
            ),
      );
    }
    for (const memo of link.debitMemos) {
      if (memo.voided) continue;
      // On a reusable link a memo books nothing of its own: the sale that pays it carries it.
      if (link.reusable) continue;
      add(
        expected(
          'debitMemo',
          memo.id,
          businessDay(memo.createdAt, input.timeZone, `debit memo ${memo.id} createdAt`),
          memo.amountCents,
          memo.amountCents === 0 ? 'zero amount' : null,
          entryKeys.debitMemo,
        ),
      );
    }
  }
}

/** Payouts: what left the service for the bank. */
function disbursementObjects(input: CloseInput, add: Add): void {
  for (const disbursement of input.disbursements) {
    const date = disbursement.createdAt ?? disbursement.paidAt;
    if (!date) continue;
    const skip =
      disbursement.status === 'FAILED'
        ? 'FAILED: the bank refused it, the money is back at the service'
        : disbursement.amountInCents === 0
          ? 'zero amount'
          : null;
    add(
      expected(
        'disbursement',
        disbursement.id,
        date,
        disbursement.amountInCents,
        skip,
        entryKeys.disbursementPending,
      ),
    );
  }
}

/** Bills and their payments (the books name them: bills have no list endpoint). */
function billObjects(input: CloseInput, add: Add): void {
  for (const bill of input.bills) {
    add(
      expected(
        'bill',
        bill.id,
        businessDay(bill.createdAt, input.timeZone, `bill ${bill.id} createdAt`),
        bill.amountCents,
        bill.amountCents === 0 ? 'zero amount' : null,
        entryKeys.bill,
      ),
    );
  }
  for (const bp of input.billPayments) {
    const sentAt = bp.sentAt ?? (bp.status === 'SUCCEEDED' ? bp.completedAt : null);
    const skip =
      bp.status === 'FAILED'
        ? `FAILED${bp.failureReason ? ` (${bp.failureReason})` : ''}: the bill is owed again`
        : !sentAt
          ? 'not sent yet'
          : bp.amountCents === 0
            ? 'zero amount'
            : null;
    add(
      expected(
        'billPayment',
        bp.id,
        businessDay(sentAt ?? bp.createdAt, input.timeZone, `bill payment ${bp.id} date`),
        bp.amountCents,
        skip,
        entryKeys.billPaymentSent,
      ),
    );
  }
}
