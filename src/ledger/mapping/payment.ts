import type {
  Fee,
  Payment,
  PaymentLink,
  PaymentMethod,
  Refund,
} from '@booksync/service-contract/schemas/index';
import { Accounts } from '../chart-of-accounts.js';
import type { EntryLinks, LedgerEntryInput } from '../entry.js';
import { entryKeys, keyPrefix } from '../entry-key.js';
import { UnmappableStateError } from '../errors.js';
import { businessDay } from './dates.js';
import { debitCredit } from './debit-credit.js';

/** The subset of a fetched Payment the books depend on; the service's Payment satisfies it. */
export type PaymentForBooks = Pick<
  Payment,
  'id' | 'status' | 'amountInCents' | 'platformFeeInCents' | 'paymentLinkId' | 'createdAt'
> & {
  refunds: readonly Pick<Refund, 'id' | 'amountCents' | 'refundDate' | 'voided'>[];
  /** amountInCents plus the part of the card fee passed to the payer; absent: nothing passed on. */
  chargedAmountInCents?: Payment['chargedAmountInCents'];
  /** The fees the processor took (decision “Fees”); absent: only the card fee platformFeeInCents tells. */
  fees?: readonly Pick<Fee, 'type' | 'amountInCents'>[];
  /** The method's type tells a card chargeback from an ACH return; absent or null: not a card. */
  paymentMethod?: Pick<PaymentMethod, 'type'> | null;
};

/**
 * Key prefixes a payment's entries use: the scope to reconcile a payment against. Both `payment` and `sale`,
 * so a payment booked by an earlier release as `payment:` (crediting the receivable) while it settles no
 * invoice is reversed, dated today in the open period, when its `sale:` is booked: a correction, not an edit.
 */
export const paymentEntryKinds = [
  'payment',
  'sale',
  'payment-fee',
  'payment-surcharge',
  'surcharge-fee',
  'payment-other-fee',
  'refund',
  'refund-reopen',
] as const;

/** The kinds of a payment's fees: what the processor keeps when a card payment is disputed (a chargeback). */
const feeKinds = new Set<string>(['payment-fee', 'surcharge-fee', 'payment-other-fee']);

/** The card fee's type in fees[]; a fee of any other type is booked on its own (otherFeeEntries). */
const CARD_FEE = 'CREDIT_CARD_FEE';

/**
 * What a payment's money is: `invoice`, it pays its payment link's invoice (the receivable booked when the
 * link was, see invoice.ts); `sale`, it settles no invoice (a reusable link, a standing price that books no
 * invoice, or no link at all), so it is a sale of its own, recognised as revenue when received.
 */
export type PaymentSettles = 'invoice' | 'sale';

/** `invoice` for a payment on a link that books an invoice (not reusable), `sale` otherwise (no link). */
export function paymentSettles(link: Pick<PaymentLink, 'reusable'> | null | undefined): PaymentSettles {
  return link && !link.reusable ? 'invoice' : 'sale';
}

const bookedStatuses = new Set(['PENDING', 'SUCCEEDED', 'REFUNDED']);

/**
 * The entries that should exist for a payment in its current state (design overview mapping table):
 * - received (PENDING ACH counts from the start, decision “completedAmountCents”), gross: paying an invoice, Dr Processor Clearing /
 *   Cr Accounts Receivable (`payment:`); settling none (`settles` = 'sale': a reusable link or no link), a
 *   sale of its own, Dr Processor Clearing / Cr Revenue (`sale:`), so every sale is revenue exactly once and
 *   the receivable of a customer who owes nothing never goes negative;
 * - the card fee the business absorbs (platformFeeInCents, decision “Fees”): Dr Processing Fees / Cr Processor Clearing;
 * - the part of the card fee passed to the payer, P = chargedAmountInCents - amountInCents (decision “Fees”),
 *   when above 0: received as surcharge income, Dr Processor Clearing / Cr Surcharge Income
 *   (`payment-surcharge:`), and kept by the processor, Dr Processing Fees / Cr Processor Clearing
 *   (`surcharge-fee:`). So the gross received is what the payer was charged (the processor's 1099-K gross),
 *   the fees the whole card fee F = platformFeeInCents + P, and what stays in clearing is unchanged. Entries of
 *   their own, so the receipt and absorbed fee entries booked before stay as they are;
 * - each fee of fees[] of another type than the card fee (the spec lists none: a dispute or return fee would
 *   be one), Dr Processing Fees / Cr Processor Clearing, its type in the description (`payment-other-fee:`);
 * - each live refund: Dr Refunds / Cr Processor Clearing (Refunds is contra revenue); and when the payment
 *   paid an invoice, the service reopens it by the refunded amount (decision “completedAmountCents”: completedAmountCents drops), so the
 *   receivable comes back: Dr Accounts Receivable / Cr Refunds (`refund-reopen:`). A second entry rather than
 *   a changed refund entry, so refunds booked by earlier releases stay as they are. A sale's refund reopens
 *   nothing: there is no invoice.
 * Nothing when FAILED and not a card payment (an ACH return reverses what was booked) or when the charge was cancelled before
 * settlement (decision “Settlement and voids”: a voided refund; the payment entry is reversed). A returned ACH refund credit leaves
 * refunds[] (decision “Returned ACH refund credit”), so its entry stops being desired and is reversed.
 * A FAILED card payment is a chargeback: the payer's money and the surcharge go back, the fees stay (the
 * processor keeps them), so only the fee entries are desired and the rest is reversed.
 * Contents depend only on immutable fields of the payment, so the same fact always maps to the same entry.
 */
export function paymentEntries(
  payment: PaymentForBooks,
  timeZone: string,
  settles: PaymentSettles,
): LedgerEntryInput[] {
  if (payment.status === 'FAILED') {
    if (payment.paymentMethod?.type !== 'Card') return [];
    return paymentEntries({ ...payment, status: 'SUCCEEDED' }, timeZone, settles).filter((e) =>
      feeKinds.has(keyPrefix(e.key)),
    );
  }
  if (!bookedStatuses.has(payment.status)) {
    throw new UnmappableStateError(`payment ${payment.id}: unknown status ${payment.status}`);
  }
  if (payment.refunds.some((r) => r.voided)) return [];
  if (payment.platformFeeInCents < 0) {
    throw new UnmappableStateError(`payment ${payment.id}: negative platformFeeInCents`);
  }

  const date = businessDay(payment.createdAt, timeZone, `payment ${payment.id} createdAt`);
  const links = {
    paymentId: payment.id,
    ...(payment.paymentLinkId ? { paymentLinkId: payment.paymentLinkId } : {}),
  };
  // A payment on no link settles no invoice, whatever the caller says.
  const sale = settles === 'sale' || !payment.paymentLinkId;
  const entries: LedgerEntryInput[] = [];
  if (payment.amountInCents !== 0 && !sale) {
    entries.push({
      key: entryKeys.payment(payment.id),
      date,
      description: `Payment ${payment.id} received`,
      lines: debitCredit(Accounts.ProcessorClearing, Accounts.AccountsReceivable, payment.amountInCents),
      links,
    });
  } else if (payment.amountInCents !== 0) {
    entries.push({
      key: entryKeys.sale(payment.id),
      date,
      description: payment.paymentLinkId
        ? `Sale ${payment.id} on payment link ${payment.paymentLinkId}`
        : `Sale ${payment.id}`,
      lines: debitCredit(Accounts.ProcessorClearing, Accounts.Revenue, payment.amountInCents),
      links,
    });
  }
  if (payment.platformFeeInCents > 0) {
    entries.push({
      key: entryKeys.paymentFee(payment.id),
      date,
      description: `Card processing fee absorbed on payment ${payment.id}`,
      lines: debitCredit(Accounts.ProcessingFees, Accounts.ProcessorClearing, payment.platformFeeInCents),
      links,
    });
  }
  const surcharge = surchargeCents(payment);
  if (surcharge > 0) {
    entries.push({
      key: entryKeys.paymentSurcharge(payment.id),
      date,
      description: `Card surcharge paid on payment ${payment.id}`,
      lines: debitCredit(Accounts.ProcessorClearing, Accounts.SurchargeIncome, surcharge),
      links,
    });
    entries.push({
      key: entryKeys.surchargeFee(payment.id),
      date,
      description: `Card processing fee passed to the payer on payment ${payment.id}`,
      lines: debitCredit(Accounts.ProcessingFees, Accounts.ProcessorClearing, surcharge),
      links,
    });
  }
  entries.push(...otherFeeEntries(payment, date, links));
  for (const refund of payment.refunds) {
    if (refund.amountCents === 0) continue;
    entries.push({
      key: entryKeys.refund(refund.id),
      date: businessDay(refund.refundDate, timeZone, `refund ${refund.id} refundDate`),
      description: `Refund ${refund.id} of payment ${payment.id}`,
      lines: debitCredit(Accounts.Refunds, Accounts.ProcessorClearing, refund.amountCents),
      links: { ...links, refundId: refund.id },
    });
    if (payment.paymentLinkId && !sale) {
      entries.push({
        key: entryKeys.refundReopen(refund.id),
        date: businessDay(refund.refundDate, timeZone, `refund ${refund.id} refundDate`),
        description: `Invoice of payment link ${payment.paymentLinkId} reopened by refund ${refund.id}`,
        lines: debitCredit(Accounts.AccountsReceivable, Accounts.Refunds, refund.amountCents),
        links: { ...links, refundId: refund.id },
      });
    }
  }
  return entries;
}

/**
 * The part of the card fee the payer paid on top of what the invoice is credited: chargedAmountInCents less
 * amountInCents, 0 when the payment tells none. A charge below the amount passes nothing on.
 */
export function surchargeCents(
  payment: Pick<PaymentForBooks, 'amountInCents' | 'chargedAmountInCents'>,
): number {
  const charged = payment.chargedAmountInCents;
  return charged === undefined || charged <= payment.amountInCents ? 0 : charged - payment.amountInCents;
}

/** A fee type as a key's last part: lower case, anything but letters, digits, '_' and '-' as '-'. */
const feeTypeKey = (type: string) => type.toLowerCase().replace(/[^a-z0-9_-]+/g, '-') || 'fee';

/**
 * The payment's fees of another type than the card fee (which platformFeeInCents and the surcharge book): one
 * entry per type, its fees summed, Dr Processing Fees / Cr Processor Clearing, the type named in the
 * description. The spec names no other type (fees[] "the complete set of fee types: not shown"); DisputeFees
 * and ReturnFees are there for when the service names a dispute or return fee.
 */
function otherFeeEntries(payment: PaymentForBooks, date: string, links: EntryLinks): LedgerEntryInput[] {
  const byType = new Map<string, { types: Set<string>; cents: number }>();
  for (const fee of payment.fees ?? []) {
    if (fee.type === CARD_FEE) continue;
    if (fee.amountInCents < 0) {
      throw new UnmappableStateError(`payment ${payment.id}: negative ${fee.type} fee`);
    }
    if (fee.amountInCents === 0) continue;
    const key = feeTypeKey(fee.type);
    const found = byType.get(key) ?? { types: new Set<string>(), cents: 0 };
    found.types.add(fee.type);
    found.cents += fee.amountInCents;
    byType.set(key, found);
  }
  return [...byType.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([type, { types, cents }]) => ({
      key: entryKeys.paymentOtherFee(payment.id, type),
      date,
      description: `Fee ${[...types].sort().join(', ')} on payment ${payment.id}`,
      lines: debitCredit(Accounts.ProcessingFees, Accounts.ProcessorClearing, cents),
      links,
    }));
}

/**
 * Whether the payment's money was taken back after it was received: an ACH return (FAILED) or a charge
 * cancelled before settlement (a voided refund). Its books then hold what was received and its reversal.
 */
export function paymentUndone(payment: Pick<PaymentForBooks, 'status' | 'refunds'>): boolean {
  return payment.status === 'FAILED' || payment.refunds.some((r) => r.voided);
}

/**
 * The entries a payment held while it stood, before it was returned or cancelled (paymentUndone): what
 * booksync booked when it followed the payment step by step. A payment seen only in its final state books
 * them too, and then reverses them, so its history does not depend on when booksync first looked. The refunds
 * are the live ones its record still lists.
 */
export function paymentReceivedEntries(
  payment: PaymentForBooks,
  timeZone: string,
  settles: PaymentSettles,
): LedgerEntryInput[] {
  return paymentEntries(
    { ...payment, status: 'SUCCEEDED', refunds: payment.refunds.filter((r) => !r.voided) },
    timeZone,
    settles,
  );
}
