import { type AccountName, Accounts } from '../../src/ledger/chart-of-accounts.js';
import type { BookedEntry } from '../../src/ledger/entry.js';
import { documentFor, type EntryLookup, type ReferenceData } from '../../src/targets/documents.js';
import type { TargetDocument } from '../../src/targets/target-port.js';

// Money on a link after its closed month's money was reversed, for every target's test, the documents made
// from the link's ledger entries (documentFor, so each carries the ledger's split over the link's documents):
// a 120.00 link invoiced and paid in full in January; the books then closed through January 31; the payment
// returned in February (a document of its own at QuickBooks and Xero, the link's invoice staying paid in
// January); then in February an external payment of 60.00, or the link lowered to 50.00. Or, lowered to
// 100.00 in January after it was paid (its 20.00 credit the customer's), returned the same way. Or, with a
// 30.00 debit memo, the payment of 150.00 paying both, returned the same way: both owed again.

export const lockedThrough = '2026-01-31';

export function reversedAcrossCloseDocuments(
  options: { loweredInJanuary?: boolean; withMemo?: boolean } = {},
) {
  const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const paymentLinkId = `pl_${run}`;
  const customerId = `cus_${run}`;
  let id = 0;
  const booked = (
    key: string,
    date: string,
    lines: [AccountName, number][],
    reverses: string | null = null,
  ): BookedEntry => ({
    id: ++id,
    key,
    date,
    description: reverses ? `Reversal of ${reverses}: payment returned` : key,
    lines: lines.map(([account, amountCents]) => ({ account, amountCents })),
    links: { paymentLinkId, customerId },
    reverses,
    reversedBy: null,
    contentHash: `${id}`.padStart(64, 'c'),
    createdAt: `${date}T12:00:00.000Z`,
  });
  const invoice = booked(`invoice:${paymentLinkId}`, '2026-01-10', [
    [Accounts.AccountsReceivable, 120_00],
    [Accounts.Revenue, -120_00],
  ]);
  const memo = booked(`debit-memo:dm_${run}`, '2026-01-12', [
    [Accounts.AccountsReceivable, 30_00],
    [Accounts.FeeIncome, -30_00],
  ]);
  const paidCents = options.withMemo ? 150_00 : 120_00;
  const payment = booked(`payment:py_${run}`, '2026-01-15', [
    [Accounts.ProcessorClearing, paidCents],
    [Accounts.AccountsReceivable, -paidCents],
  ]);
  // Lowered to 100.00 after it was paid: the 20.00 credit no document owes, the customer's.
  const januaryLowering = booked(`invoice-adjustment:${paymentLinkId}:0`, '2026-01-20', [
    [Accounts.DiscountsAndWriteOffs, 20_00],
    [Accounts.AccountsReceivable, -20_00],
  ]);
  const returned = booked(
    `reversal:${payment.key}`,
    '2026-02-03',
    [
      [Accounts.AccountsReceivable, paidCents],
      [Accounts.ProcessorClearing, -paidCents],
    ],
    payment.key,
  );
  const external = booked(`external-payment:ep_${run}`, '2026-02-05', [
    [Accounts.ChecksToDeposit, 60_00],
    [Accounts.AccountsReceivable, -60_00],
  ]);
  const externalWhole = booked(`external-payment:ep_whole_${run}`, '2026-02-05', [
    [Accounts.ChecksToDeposit, 150_00],
    [Accounts.AccountsReceivable, -150_00],
  ]);
  const externalRest = booked(`external-payment:ep_rest_${run}`, '2026-02-06', [
    [Accounts.ChecksToDeposit, 90_00],
    [Accounts.AccountsReceivable, -90_00],
  ]);
  // With the memo, after `external`: the link lowered from 120.00 to 20.00, its 100.00 credit more than the
  // link's invoice owed again still owes (60.00).
  const loweredAfterExternal = booked(`invoice-adjustment:${paymentLinkId}:2`, '2026-02-07', [
    [Accounts.DiscountsAndWriteOffs, 100_00],
    [Accounts.AccountsReceivable, -100_00],
  ]);
  const lowered = booked(`invoice-adjustment:${paymentLinkId}:1`, '2026-02-05', [
    [Accounts.DiscountsAndWriteOffs, 70_00],
    [Accounts.AccountsReceivable, -70_00],
  ]);
  const references = {
    paymentLink: async () => ({ name: `RC-${run}`, customerId }),
    customer: async () => ({ serviceId: customerId, name: `Returned ${run}`, email: `${run}@returned.test` }),
  } as unknown as ReferenceData;
  /** The document of `entry`, the link's entries booked up to it (`book`) as the ledger holds them. */
  const documentOf = (entry: BookedEntry, book: BookedEntry[]): Promise<TargetDocument> => {
    const entries: EntryLookup = {
      get: async (key) => book.find((e) => e.key === key) ?? null,
      entriesFor: async () => book,
    };
    return documentFor(entry, references, entries);
  };
  const charged = options.withMemo ? [invoice, memo] : [invoice];
  const paid = [...charged, payment, ...(options.loweredInJanuary ? [januaryLowering] : [])];
  const before = [...paid, returned];
  return {
    run,
    invoice: () => documentOf(invoice, [invoice]),
    /** With `withMemo`: the 30.00 debit memo, before the payment. */
    memo: () => documentOf(memo, charged),
    payment: () => documentOf(payment, [...charged, payment]),
    /** With `loweredInJanuary`: the link lowered to 100.00 after it was paid. */
    januaryLowering: () => documentOf(januaryLowering, paid),
    returned: () => documentOf(returned, before),
    /** 60.00 received outside the service in February: the service's remainder 60.00 (90.00 with the memo). */
    external: () => documentOf(external, [...before, external]),
    /** With `withMemo`: 150.00 received outside the service in February, the whole owed again. */
    externalWhole: () => documentOf(externalWhole, [...before, externalWhole]),
    /** With `withMemo`: after `external`, the link lowered to 20.00 (a 100.00 credit). */
    loweredAfterExternal: () => documentOf(loweredAfterExternal, [...before, external, loweredAfterExternal]),
    /** With `withMemo`: after `external`, the 90.00 still owed. */
    externalRest: () => documentOf(externalRest, [...before, external, externalRest]),
    /** The link lowered to 50.00 in February: the service's remainder 50.00. */
    lowered: () => documentOf(lowered, [...before, lowered]),
  };
}
