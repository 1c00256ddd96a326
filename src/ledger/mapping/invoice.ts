import type { PaymentLink } from '@booksync/service-contract/schemas/index';
import { type AccountName, Accounts } from '../chart-of-accounts.js';
import type { BookedEntry, LedgerEntryInput } from '../entry.js';
import { baseKey, entryKeys, keyPrefix } from '../entry-key.js';
import { bookedBeforeOpening, isOpeningDocument } from '../opening-balances.js';
import { businessDay, earliestDay } from './dates.js';
import { debitCredit } from './debit-credit.js';

/** The subset of a fetched PaymentLink its invoice depends on. */
export type InvoiceForBooks = Pick<
  PaymentLink,
  | 'id'
  | 'customerId'
  | 'requestedAmountCents'
  | 'debitMemoAmountCents'
  | 'reusable'
  | 'payments'
  | 'externalPayments'
  | 'debitMemos'
>;

/** What the invoice flow owns under a link: the invoice and later changes of its amount. */
export const invoiceEntryKinds = ['invoice', 'invoice-adjustment'] as const;

/** The link's own amount (2.1): what it asks for without its debit memos, which are booked on their own. */
export function invoiceAmountCents(link: InvoiceForBooks): number {
  return link.requestedAmountCents - link.debitMemoAmountCents;
}

const isInvoiceKind = (key: string) =>
  (invoiceEntryKinds as readonly string[]).includes(keyPrefix(baseKey(key)));

/**
 * The one entry that brings the books' invoice for a link up to date, or null when nothing is due.
 * - first time: `invoice:{link}`, Dr Accounts Receivable / Cr Revenue for the link's own amount;
 * - the own amount changed since (4.3: a write-off, a discount, a correction): `invoice-adjustment:{link}:{n}`
 *   for the difference, never an edit of the invoice. A lowering is Dr Discounts and Write-offs / Cr Accounts
 *   Receivable: Revenue keeps what was invoiced and the books show what was forgiven (a bookkeeper's
 *   "discounts given"); a raise first takes back what earlier lowerings discounted (Dr Accounts Receivable /
 *   Cr Discounts and Write-offs, an adjustment of its own), then is more revenue, Dr Accounts Receivable /
 *   Cr Revenue. A lowering an earlier
 *   release booked against Revenue stays as it is: the plan counts only Accounts Receivable, so it is not
 *   booked again.
 * - what of a lowering the business's write-offs cover (`writtenOffCents`: the link's recorded write-offs,
 *   write-offs.ts, less what earlier adjustments booked to Bad Debt) is an uncollectible receivable, Dr Bad
 *   Debt (an expense) instead of Discounts and Write-offs; the rest of a larger lowering stays a discount,
 *   booked as the next adjustment (one entry per account, asked for again by the caller).
 * The spec gives a link no creation date, so the invoice is dated when booksync first learns of it (`today`),
 * or earlier: never after the first money on it (a payment, an external payment or applied check, a memo),
 * so a receivable is owed before it is paid, in the same month (a backfilled December invoice paid in
 * January is December's revenue). Once booked its date never changes, which is why this is a plan against
 * what is booked rather than a desired set compared by contents. Adjustments are dated `today`.
 * A reusable link is a standing price, not an invoice: nothing is booked.
 */
export function invoiceEntryToPost(
  link: InvoiceForBooks,
  booked: readonly BookedEntry[],
  today: string,
  timeZone: string,
  carriedBeforeOpening = 0,
  writtenOffCents = 0,
): LedgerEntryInput | null {
  if (link.reusable) return null;
  const own = invoiceAmountCents(link);
  const mine = booked.filter((e) => isInvoiceKind(e.reverses ?? e.key));
  // An opening document holds the own amount less what moved on the receivable before the opening
  // (`carriedBeforeOpening`, opening-document.ts): that part counts as invoiced too.
  const opening = mine.some((e) => isOpeningDocument(e));
  const invoiced = invoiceLineCents(mine, Accounts.AccountsReceivable) - (opening ? carriedBeforeOpening : 0);
  const links = { paymentLinkId: link.id, ...(link.customerId ? { customerId: link.customerId } : {}) };
  const hasInvoice = mine.some((e) => keyPrefix(e.key) === 'invoice');
  if (!hasInvoice) {
    if (own <= 0) return null;
    const firstMoney = earliestDay(linkMoneyDays(link, timeZone));
    return {
      key: entryKeys.invoice(link.id),
      date: firstMoney !== undefined && firstMoney < today ? firstMoney : today,
      description: `Invoice for payment link ${link.id}`,
      lines: debitCredit(Accounts.AccountsReceivable, Accounts.Revenue, own),
      links,
    };
  }
  const delta = own - invoiced;
  if (delta === 0) return null;
  const adjustments = mine.filter((e) => keyPrefix(e.key) === 'invoice-adjustment').length;
  const key = entryKeys.invoiceAdjustment(link.id, adjustments + 1);
  if (delta > 0) {
    // What earlier lowerings gave as discounts is taken back first, an adjustment of its own (the caller asks
    // again for the rest): a link lowered from 10,000 to 8,000 and raised to 11,000 sold 11,000 and gave no
    // discount, so neither Revenue nor Discounts and Write-offs is overstated.
    const discounted = invoiceLineCents(mine, Accounts.DiscountsAndWriteOffs);
    const takenBack = Math.min(delta, Math.max(0, discounted));
    if (takenBack > 0)
      return {
        key,
        date: today,
        description: `Invoice for payment link ${link.id}: ${takenBack} cents of earlier discounts taken back, amount raised to ${own - delta + takenBack} cents`,
        lines: [
          { account: Accounts.AccountsReceivable, amountCents: takenBack },
          { account: Accounts.DiscountsAndWriteOffs, amountCents: -takenBack },
        ],
        links,
      };
    return {
      key,
      date: today,
      description: `Invoice for payment link ${link.id}: amount raised to ${own} cents`,
      lines: [
        { account: Accounts.AccountsReceivable, amountCents: delta },
        { account: Accounts.Revenue, amountCents: -delta },
      ],
      links,
    };
  }
  const lowered = -delta;
  const badDebt = Math.min(lowered, Math.max(0, writtenOffCents - invoiceLineCents(mine, Accounts.BadDebt)));
  if (badDebt > 0) {
    // The written-off part first, an adjustment of its own: a lowering that is also a discount books the
    // rest as the next adjustment (the caller asks again), so every target reads each as the one credit it is
    // (one account against the receivable), never a three-line journal that lowers no invoice.
    return {
      key,
      date: today,
      description: `Invoice for payment link ${link.id}: ${badDebt} cents written off as bad debt, amount lowered to ${own + lowered - badDebt} cents`,
      lines: [
        { account: Accounts.AccountsReceivable, amountCents: -badDebt },
        { account: Accounts.BadDebt, amountCents: badDebt },
      ],
      links,
    };
  }
  return {
    key,
    date: today,
    description: `Invoice for payment link ${link.id}: amount lowered to ${own} cents`,
    lines: [
      { account: Accounts.AccountsReceivable, amountCents: delta },
      { account: Accounts.DiscountsAndWriteOffs, amountCents: lowered },
    ],
    links,
  };
}

/**
 * What the link's invoice entries (its invoice, its adjustments, their reversals) booked to `account`: on
 * Accounts Receivable what is invoiced, on Bad Debt what was written off.
 */
export function invoiceLineCents(booked: readonly BookedEntry[], account: AccountName): number {
  return booked
    .filter((e) => isInvoiceKind(e.reverses ?? e.key))
    .flatMap((e) => e.lines)
    .filter((l) => l.account === account)
    .reduce((sum, l) => sum + l.amountCents, 0);
}

/**
 * Whether the link's invoice is in the books (its invoice, or its opening document): a write-off lowers it, so
 * an invoice not booked yet would be booked at the lowered amount and the write-off never seen.
 */
export function invoiceBooked(booked: readonly BookedEntry[]): boolean {
  return booked.some((e) => e.reverses === null && isInvoiceKind(e.key));
}

/** The days money moved on a link (its payments, external payments and debit memos). */
export function linkMoneyDays(
  link: Pick<PaymentLink, 'payments' | 'externalPayments' | 'debitMemos'>,
  timeZone: string,
): string[] {
  return [
    ...link.payments.map((p) => businessDay(p.createdAt, timeZone, `payment ${p.id} createdAt`)),
    ...link.externalPayments.map((e) => businessDay(e.paidAt, timeZone, `external payment ${e.id} paidAt`)),
    ...link.debitMemos.map((m) => businessDay(m.createdAt, timeZone, `debit memo ${m.id} createdAt`)),
  ];
}

/**
 * Whether the link's invoice belongs to the books before they opened on `opensOn`: no invoice booked,
 * nothing of the link booked from before the opening (a backfill imports a link that was still open whole),
 * and money moved on it before then. Its later memos and refunds then book alone.
 */
export function invoiceBeforeOpening(
  link: Pick<PaymentLink, 'payments' | 'externalPayments' | 'debitMemos'>,
  booked: readonly BookedEntry[],
  opensOn: string,
  timeZone: string,
): boolean {
  if (booked.some((e) => isInvoiceKind(e.reverses ?? e.key))) return false;
  if (bookedBeforeOpening(booked, opensOn)) return false;
  return linkMoneyDays(link, timeZone).some((day) => day < opensOn);
}
