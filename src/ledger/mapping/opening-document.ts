import type { PaymentLink } from '@booksync/service-contract/schemas/index';
import { Accounts } from '../chart-of-accounts.js';
import type { LedgerEntryInput } from '../entry.js';
import { entryKeys } from '../entry-key.js';
import { dayBefore } from '../opening-balances.js';
import { debitCredit } from './debit-credit.js';
import { invoiceAmountCents } from './invoice.js';
import { paymentEntries, paymentSettles } from './payment.js';
import { type PaymentLinkBookingOptions, paymentLinkEntries } from './payment-link.js';

// An invoice still owed when the books open, as an accountant enters it: one opening document per invoice
// (Dr Accounts Receivable / Cr Opening Balances) for what it owed that day, under the invoice's own key, so
// payments from the opening day on settle it as they settle any invoice, and last period's sale is never
// this period's revenue. What happened on it before the opening (payments, memos, refunds) stays in last
// period's books; from the opening day on, its entries book as usual.

/**
 * What the link's records dated before `opensOn` moved on its receivable, net (negative when money came in):
 * the link's own amount plus this is what it owed when the books opened.
 */
export function receivableBeforeOpening(
  link: PaymentLink,
  opensOn: string,
  options: PaymentLinkBookingOptions,
): number {
  const settles = paymentSettles(link);
  const entries = [
    ...paymentLinkEntries(link, options),
    ...link.payments.flatMap((p) => paymentEntries(p, options.timeZone, settles)),
  ];
  return entries
    .filter((e) => e.date < opensOn)
    .flatMap((e) => e.lines)
    .filter((l) => l.account === Accounts.AccountsReceivable)
    .reduce((sum, l) => sum + l.amountCents, 0);
}

/**
 * The opening document of a link owed when the books open on `opensOn`: `invoice:{link}` for what it owed
 * then, dated the day before. null for a reusable link (no invoice) or one that owed nothing.
 */
export function openingInvoiceEntry(
  link: PaymentLink,
  opensOn: string,
  options: PaymentLinkBookingOptions,
): LedgerEntryInput | null {
  if (link.reusable) return null;
  const owed = invoiceAmountCents(link) + receivableBeforeOpening(link, opensOn, options);
  if (owed <= 0) return null;
  return {
    key: entryKeys.invoice(link.id),
    date: dayBefore(opensOn),
    description: `Opening balance of the invoice of payment link ${link.id}, owed when the books opened on ${opensOn}`,
    lines: debitCredit(Accounts.AccountsReceivable, Accounts.OpeningBalances, owed),
    links: { paymentLinkId: link.id, ...(link.customerId ? { customerId: link.customerId } : {}) },
  };
}
