import type { Disbursement, PaymentLink } from '@booksync/service-contract/schemas/index';
import {
  disbursementEntries,
  disbursementEntryKinds,
  paymentLinkEntries,
  paymentLinkEntryKinds,
} from '../../ledger/mapping/index.js';
import { type SyncResult, syncEntries } from '../../ledger/sync.js';
import {
  type ActivityDependencies,
  accountingDate,
  linkBookingOptions,
  payoutBookingOptions,
} from './context.js';
import { syncInvoiceBooks } from './invoice-books.js';

// The books of a payment link's own records (its invoice, live external payments and debit memos) and of a
// payout, made to match the service's object: shared by reconciliation and the backfill.

/** Link entries (live external payments and debit memos): the payment-link flow's mapping and kinds. */
export async function syncPaymentLinkRecords(
  deps: ActivityDependencies,
  link: PaymentLink,
  reason: string,
  options: { openingDocument?: boolean } = {},
): Promise<SyncResult> {
  const invoice = await syncInvoiceBooks(deps, link, options);
  const records = await syncEntries(
    deps.ledger,
    paymentLinkEntries(link, linkBookingOptions(deps)),
    { paymentLinkId: link.id },
    { kinds: paymentLinkEntryKinds, date: accountingDate(deps), reason: `${reason}: not on link ${link.id}` },
  );
  return { ...records, posted: [...invoice.posted, ...records.posted] };
}

export async function syncDisbursementBooks(
  deps: ActivityDependencies,
  disbursement: Disbursement,
  reason: string,
): Promise<SyncResult> {
  return syncEntries(
    deps.ledger,
    disbursementEntries(disbursement, payoutBookingOptions(deps)),
    { disbursementId: disbursement.id },
    {
      kinds: disbursementEntryKinds,
      date: accountingDate(deps),
      reason: `${reason}: disbursement ${disbursement.id} is ${disbursement.status}`,
    },
  );
}
