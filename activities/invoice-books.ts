import { LedgerConflictError } from '../src/ledger/errors.js';
import {
  billEntries,
  billEntryKinds,
  invoiceBeforeOpening,
  invoiceEntryToPost,
} from '../src/ledger/mapping/index.js';
import { type SyncResult, syncEntries } from '../src/ledger/sync.js';
import type { Bill, PaymentLink } from '../src/service/schemas/index.js';
import { type ActivityDependencies, accountingDate } from './context.js';

// The document side of complete books (design overview, "Complete books"): the invoice of every payment
// link and the bill behind every bill payment, booked when booksync first learns of them, so receivables
// and payables are owed before they are paid.

/**
 * Books the link's invoice, or the adjustment for a changed amount. Two flows may learn of one link at once
 * (two payments on it): the loser of that race sees the winner's entry on its second look.
 */
export async function syncInvoiceBooks(deps: ActivityDependencies, link: PaymentLink): Promise<SyncResult> {
  const result: SyncResult = { posted: [], reversed: [], unchanged: [] };
  const opensOn = await deps.ledger.booksOpenOn();
  for (let look = 1; ; look++) {
    const booked = await deps.ledger.entriesFor({ paymentLinkId: link.id });
    // An invoice settled before the books opened is in last period's books (the backfill left it out): a
    // later memo or refund on it books alone.
    if (opensOn !== null && invoiceBeforeOpening(link, booked, opensOn, deps.timeZone)) return result;
    const entry = invoiceEntryToPost(link, booked, accountingDate(deps), deps.timeZone);
    if (!entry) return result;
    try {
      const { created } = await deps.ledger.post(entry);
      if (created) result.posted.push(entry.key);
      return result;
    } catch (error) {
      if (!(error instanceof LedgerConflictError) || look >= 2) throw error;
    }
  }
}

/** Books the bill (Bill Expenses / Accounts Payable) a bill payment pays. */
export async function syncBillBooks(deps: ActivityDependencies, bill: Bill): Promise<SyncResult> {
  return syncEntries(
    deps.ledger,
    billEntries(bill, deps.timeZone),
    { billId: bill.id },
    {
      kinds: billEntryKinds,
      date: accountingDate(deps),
      reason: `bill ${bill.id} no longer at the service`,
    },
  );
}
