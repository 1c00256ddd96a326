import type { Bill, BillPayment, PaymentLink } from '@booksync/service-contract/schemas/index';
import { Accounts } from '../../ledger/chart-of-accounts.js';
import { baseKey, keyPrefix } from '../../ledger/entry-key.js';
import { LedgerConflictError } from '../../ledger/errors.js';
import {
  billBeforeOpening,
  billEntries,
  billEntryKinds,
  invoiceBeforeOpening,
  invoiceEntryKinds,
  invoiceEntryToPost,
  openingBillEntry,
  openingInvoiceEntry,
  receivableBeforeOpening,
} from '../../ledger/mapping/index.js';
import { bookedBeforeOpening, isOpeningDocument } from '../../ledger/opening-balances.js';
import { type SyncResult, syncEntries } from '../../ledger/sync.js';
import { writtenOffCents } from '../../ledger/write-offs.js';
import { type ActivityDependencies, accountingDate, linkBookingOptions } from './context.js';

const isInvoiceEntry = (e: { key: string; reverses: string | null }) =>
  (invoiceEntryKinds as readonly string[]).includes(keyPrefix(baseKey(e.reverses ?? e.key)));

// The document side of complete books (design overview, "Complete books"): the invoice of every payment
// link and the bill behind every bill payment, booked when booksync first learns of them, so receivables
// and payables are owed before they are paid.

/**
 * Books the link's invoice, or the adjustment for a changed amount. Two flows may learn of one link at once
 * (two payments on it): the loser of that race sees the winner's entry on its second look.
 */
export async function syncInvoiceBooks(
  deps: ActivityDependencies,
  link: PaymentLink,
  options: { openingDocument?: boolean } = {},
): Promise<SyncResult> {
  const result: SyncResult = { posted: [], reversed: [], unchanged: [] };
  const opensOn = await deps.ledger.booksOpenOn();
  const bookingOptions = linkBookingOptions(deps);
  for (let look = 1; ; look++) {
    // The business's write-offs are recorded before the link is lowered at the service: whichever flow books
    // the lowering sees them.
    const [booked, writeOffs] = await Promise.all([
      deps.ledger.entriesFor({ paymentLinkId: link.id }),
      deps.ledger.writeOffsFor(link.id),
    ]);
    const carried = opensOn === null ? 0 : receivableBeforeOpening(link, opensOn, bookingOptions);
    // A link of last period (money moved on it before the opening, or the backfill found it owed when the
    // books opened) whose invoice is not booked: its opening document (opening-document.ts), or nothing when
    // it was settled before the opening (its later memos and refunds book alone).
    const lastPeriod =
      opensOn !== null &&
      !booked.some(isInvoiceEntry) &&
      (options.openingDocument || invoiceBeforeOpening(link, booked, opensOn, deps.timeZone));
    const entry = lastPeriod
      ? openingInvoiceEntry(link, opensOn, bookingOptions)
      : invoiceEntryToPost(
          link,
          booked,
          accountingDate(deps),
          deps.timeZone,
          carried,
          writtenOffCents(writeOffs),
        );
    if (!entry) return result;
    try {
      const { created } = await deps.ledger.post(entry);
      if (created) result.posted.push(entry.key);
      // A lowering part written off, part discounted, and a raise taking back earlier discounts, are two
      // adjustments each: the next look books the rest.
      if (!isFirstPart(entry)) return result;
    } catch (error) {
      if (!(error instanceof LedgerConflictError) || look >= 3) throw error;
    }
  }
}

/**
 * A lowering's written-off part (Dr Bad Debt) or a raise's taken-back discount (Cr Discounts and Write-offs),
 * after which the rest of the change may still be booked.
 */
const isFirstPart = (entry: { key: string; lines: readonly { account: string; amountCents: number }[] }) =>
  keyPrefix(entry.key) === 'invoice-adjustment' &&
  entry.lines.some(
    (l) =>
      l.account === Accounts.BadDebt || (l.account === Accounts.DiscountsAndWriteOffs && l.amountCents < 0),
  );

const isBillEntry = (e: { key: string; reverses: string | null }) =>
  (billEntryKinds as readonly string[]).includes(keyPrefix(baseKey(e.reverses ?? e.key)));

/**
 * Books the bill (Bill Expenses / Accounts Payable) a bill payment pays. A bill of last period (created
 * before the books opened) whose entry is not booked is its opening document instead (opening-bill.ts), for
 * what it owed on the opening day less what `billPayment` paid before it, or nothing when that paid it; once
 * booked, that document stays as it is. Two payments of one bill may book it at once: the loser of that race
 * sees the winner's entry on its second look.
 */
export async function syncBillBooks(
  deps: ActivityDependencies,
  bill: Bill,
  billPayment: BillPayment | null = null,
): Promise<SyncResult> {
  const opensOn = await deps.ledger.booksOpenOn();
  for (let look = 1; opensOn !== null; look++) {
    const booked = await deps.ledger.entriesFor({ billId: bill.id });
    const bills = booked.filter(isBillEntry);
    if (bills.some((e) => isOpeningDocument(e))) {
      return {
        posted: [],
        reversed: [],
        unchanged: bills.filter((e) => e.reverses === null && e.reversedBy === null).map((e) => e.key),
      };
    }
    const lastPeriod =
      bills.length === 0 &&
      !bookedBeforeOpening(booked, opensOn) &&
      billBeforeOpening(bill, opensOn, deps.timeZone);
    if (!lastPeriod) break;
    const entry = openingBillEntry(bill, opensOn, deps.timeZone, billPayment);
    if (!entry) return { posted: [], reversed: [], unchanged: [] };
    try {
      const { created } = await deps.ledger.post(entry);
      return { posted: created ? [entry.key] : [], reversed: [], unchanged: created ? [] : [entry.key] };
    } catch (error) {
      if (!(error instanceof LedgerConflictError) || look >= 2) throw error;
    }
  }
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
