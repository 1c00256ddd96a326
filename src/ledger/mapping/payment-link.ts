import type { DebitMemo, ExternalPayment, PaymentLink } from '@booksync/service-contract/schemas/index';
import { Accounts } from '../chart-of-accounts.js';
import type { EntryLinks, LedgerEntryInput } from '../entry.js';
import { entryKeys } from '../entry-key.js';
import { businessDay } from './dates.js';
import { debitCredit } from './debit-credit.js';

export type ExternalPaymentForBooks = Pick<
  ExternalPayment,
  'id' | 'amountCents' | 'paidAt' | 'voided' | 'serviceBankingTransferId'
>;
export type DebitMemoForBooks = Pick<DebitMemo, 'id' | 'amountCents' | 'createdAt' | 'voided'>;

/** The subset of a fetched PaymentLink the books depend on. */
export type PaymentLinkForBooks = Pick<PaymentLink, 'id' | 'customerId'> & {
  /** A reusable link is a standing price, not an invoice: its money is a sale, never a receivable. */
  reusable?: boolean | undefined;
  externalPayments: readonly ExternalPaymentForBooks[];
  debitMemos: readonly DebitMemoForBooks[];
};

export interface PaymentLinkBookingOptions {
  /** BOOKS_TIME_ZONE: the zone whose calendar days the entries are dated in. */
  timeZone: string;
  /**
   * Where money recorded as received outside the service goes: Checks To Deposit (default; it is a check
   * still to take to the bank) or straight to Operating Bank. Fixed per deployment: changing it turns
   * re-syncs of already booked records into conflicts.
   */
  externalPaymentAccount?: 'checks-to-deposit' | 'operating-bank';
}

/** What the payment-link flow owns. Check deposit applications are booked by the check-deposit flow. */
export const paymentLinkEntryKinds = ['external-payment', 'external-sale', 'debit-memo'] as const;

/**
 * The entries that should exist for a link's live external payments and debit memos. Voided records are
 * omitted by the service (2.7, 2.8), so their booked entries get reversed. Records applying a check deposit
 * (serviceBankingTransferId set, 4.1) are left to checkDepositEntries, so they are never booked twice.
 */
export function paymentLinkEntries(
  link: PaymentLinkForBooks,
  options: PaymentLinkBookingOptions,
): LedgerEntryInput[] {
  const entries: LedgerEntryInput[] = [];
  for (const payment of link.externalPayments) {
    if (payment.voided || payment.serviceBankingTransferId != null) continue;
    entries.push(externalPaymentEntry(link, payment, options));
  }
  for (const memo of link.debitMemos) {
    // On a reusable link a memo is part of the price the next payer pays: that payment's sale carries it,
    // and no one owes it before (no invoice, no receivable).
    if (memo.voided || link.reusable) continue;
    entries.push(debitMemoEntry(link, memo, options.timeZone));
  }
  return entries.filter((e) => e.lines.every((l) => l.amountCents !== 0));
}

function linkLinks(link: PaymentLinkForBooks): EntryLinks {
  return { paymentLinkId: link.id, ...(link.customerId ? { customerId: link.customerId } : {}) };
}

/**
 * Dr Checks To Deposit (or Operating Bank, by config) / Cr Accounts Receivable, on paidAt; on a reusable link,
 * which books no invoice, a sale of its own (`external-sale:`): Cr Revenue, as its payments through the
 * service are. Under its own key, so one booked by an earlier release against the receivable is reversed
 * (dated the day it is seen, in the open period) and the sale booked: a correction, not an edit.
 */
export function externalPaymentEntry(
  link: PaymentLinkForBooks,
  payment: ExternalPaymentForBooks,
  options: PaymentLinkBookingOptions,
): LedgerEntryInput {
  const debit =
    options.externalPaymentAccount === 'operating-bank' ? Accounts.OperatingBank : Accounts.ChecksToDeposit;
  return {
    key: link.reusable ? entryKeys.externalSale(payment.id) : entryKeys.externalPayment(payment.id),
    date: businessDay(payment.paidAt, options.timeZone, `external payment ${payment.id} paidAt`),
    description: link.reusable
      ? `Sale ${payment.id} received outside the service on payment link ${link.id}`
      : `External payment ${payment.id} on payment link ${link.id}`,
    lines: [
      { account: debit, amountCents: payment.amountCents },
      {
        account: link.reusable ? Accounts.Revenue : Accounts.AccountsReceivable,
        amountCents: -payment.amountCents,
      },
    ],
    links: { ...linkLinks(link), externalPaymentId: payment.id },
  };
}

/** Dr Accounts Receivable / Cr Fee Income, on the memo's creation date. */
export function debitMemoEntry(
  link: PaymentLinkForBooks,
  memo: DebitMemoForBooks,
  timeZone: string,
): LedgerEntryInput {
  return {
    key: entryKeys.debitMemo(memo.id),
    date: businessDay(memo.createdAt, timeZone, `debit memo ${memo.id} createdAt`),
    description: `Debit memo ${memo.id} on payment link ${link.id}`,
    lines: debitCredit(Accounts.AccountsReceivable, Accounts.FeeIncome, memo.amountCents),
    links: { ...linkLinks(link), debitMemoId: memo.id },
  };
}
