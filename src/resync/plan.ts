import type { Payment } from '@booksync/service-contract/schemas/index';
import type { BookedEntry, EntryLine, LedgerEntryInput, LinkField } from '../ledger/entry.js';
import { baseKey, keyVersion, versionedKey } from '../ledger/entry-key.js';
import {
  billEntries,
  billEntryKinds,
  billPaymentEntries,
  billPaymentEntryKinds,
  checkDepositEntries,
  checkDepositEntryKinds,
  diffEntries,
  disbursementEntries,
  disbursementEntryKinds,
  earlierCheckBooking,
  type PaymentLinkBookingOptions,
  type PaymentSettles,
  type PayoutBookingOptions,
  paymentEntries,
  paymentEntryKinds,
  paymentLinkEntries,
  paymentLinkEntryKinds,
  paymentSettles,
} from '../ledger/mapping/index.js';
import { bookableEntries, isOpeningDocument } from '../ledger/opening-balances.js';
import type { FetchedState } from '../service/fetched-state.js';

// Re-sync with a diff: what the books would hold under the current code and settings, from
// the service's objects fetched again and the pure mappings, against what they hold. Each object is compared
// within the entry kinds its own flow owns, as the event-driven syncs do. A desired entry whose live version
// has other contents (a mapping setting changed) is not a conflict here: it is reversed and booked again as
// the next version (`{key}#2`), never edited. Pure.

/** The service's objects fetched again and every booked entry, reversals included. */
export type ResyncSources = FetchedState;

export interface ResyncOptions extends PaymentLinkBookingOptions, PayoutBookingOptions {
  /** Only entries dated on or after this day (YYYY-MM-DD) are reversed or posted; null: all. */
  since: string | null;
}

export interface ResyncReversal {
  key: string;
  date: string;
  description: string;
  lines: EntryLine[];
  reason: string;
}

export interface ResyncDiff {
  since: string | null;
  /** Live entries the current mapping no longer gives (or gives with other contents). */
  toReverse: ResyncReversal[];
  /** Entries to post, under their next version when an earlier one was reversed. */
  toPost: LedgerEntryInput[];
  /** Live entries that stay as they are. */
  unchanged: number;
  /** Objects whose mapping refused their state (an unknown status...): left as they are, named. */
  unmappable: { object: string; error: string }[];
}

function indexBy(entries: readonly BookedEntry[], field: LinkField): Map<string, BookedEntry[]> {
  const map = new Map<string, BookedEntry[]>();
  for (const entry of entries) {
    const value = entry.links[field];
    if (value === undefined) continue;
    const list = map.get(value);
    if (list) list.push(entry);
    else map.set(value, [entry]);
  }
  return map;
}

/** What one resync's comparisons share: the diff being made, the books by key, what was already planned. */
interface DiffState {
  diff: ResyncDiff;
  byKey: Map<string, BookedEntry>;
  inRange: (date: string) => boolean;
  seenKeys: Set<string>;
  opensOn: string | null;
}

/** One service object: the entries it maps to now against those booked for it, added to the diff. */
function compare(
  state: DiffState,
  object: string,
  desired: () => LedgerEntryInput[],
  booked: readonly BookedEntry[],
  kinds: readonly string[],
): void {
  const { diff, byKey, inRange, seenKeys } = state;
  let plan: ReturnType<typeof diffEntries>;
  try {
    plan = diffEntries(bookableEntries(desired(), booked, state.opensOn), booked, {
      kinds,
      reason: `resync: ${object} maps to no such entry`,
    });
  } catch (error) {
    diff.unmappable.push({ object, error: error instanceof Error ? error.message : String(error) });
    return;
  }
  const reverse = (key: string, reason: string) => {
    const entry = byKey.get(key);
    if (!entry || !inRange(entry.date) || seenKeys.has(`-${key}`)) return;
    seenKeys.add(`-${key}`);
    diff.toReverse.push({
      key,
      date: entry.date,
      description: entry.description,
      lines: entry.lines,
      reason,
    });
  };
  const post = (entry: LedgerEntryInput) => {
    if (!inRange(entry.date) || seenKeys.has(`+${entry.key}`)) return;
    seenKeys.add(`+${entry.key}`);
    diff.toPost.push(entry);
  };
  diff.unchanged += plan.unchanged.length;
  for (const { key, reason } of plan.toReverse) reverse(key, reason);
  for (const entry of plan.toPost) post(entry);
  for (const { desired: entry, booked: live } of plan.conflicts) {
    // The next version after every one booked under this key.
    const versions = booked.filter((b) => b.reverses === null && baseKey(b.key) === entry.key);
    const next = Math.max(...versions.map((v) => keyVersion(v.key))) + 1;
    if (!inRange(live.date) && !inRange(entry.date)) continue;
    reverse(live.key, `resync: ${object} now maps ${entry.key} differently`);
    post({ ...entry, key: versionedKey(entry.key, next) });
  }
}

/**
 * Which link each application of a check deposit is on: applications do not name their link; the books do,
 * for the applications booksync made, and the links list theirs.
 */
function applicationLinks(
  booked: readonly BookedEntry[],
  links: ResyncSources['links'],
): Map<string, string> {
  const linkOf = new Map<string, string>();
  for (const e of booked) {
    if (e.links.externalPaymentId && e.links.paymentLinkId)
      linkOf.set(e.links.externalPaymentId, e.links.paymentLinkId);
  }
  for (const link of links) {
    for (const ep of link.externalPayments)
      if (ep.serviceBankingTransferId != null) linkOf.set(ep.id, link.id);
  }
  return linkOf;
}

export function resyncDiff(sources: ResyncSources, options: ResyncOptions): ResyncDiff {
  const diff: ResyncDiff = { since: options.since, toReverse: [], toPost: [], unchanged: 0, unmappable: [] };
  const state: DiffState = {
    diff,
    byKey: new Map(sources.entries.map((e) => [e.key, e])),
    inRange: (date: string) => options.since === null || date >= options.since,
    seenKeys: new Set<string>(),
    opensOn: sources.opensOn ?? null,
  };
  const compareObject = (
    object: string,
    desired: () => LedgerEntryInput[],
    booked: readonly BookedEntry[],
    kinds: readonly string[],
  ) => compare(state, object, desired, booked, kinds);

  const byPayment = indexBy(sources.entries, 'paymentId');
  const byLink = indexBy(sources.entries, 'paymentLinkId');
  const byDisbursement = indexBy(sources.entries, 'disbursementId');
  const byDeposit = indexBy(sources.entries, 'checkDepositId');
  const byBill = indexBy(sources.entries, 'billId');
  const byBillPayment = indexBy(sources.entries, 'billPaymentId');

  const payments = new Map<string, Payment>();
  for (const p of sources.payments) payments.set(p.id, p);
  for (const link of sources.links) for (const p of link.payments) payments.set(p.id, p);
  // A payment on a reusable link (or on none) settles no invoice: a sale of its own. A link the sources do
  // not hold is taken to book its invoice, as the payment's flow found it when it booked the payment.
  const settlesByLink = new Map(sources.links.map((l) => [l.id, paymentSettles(l)]));
  for (const payment of payments.values()) {
    const settles: PaymentSettles = payment.paymentLinkId
      ? (settlesByLink.get(payment.paymentLinkId) ?? 'invoice')
      : 'sale';
    compareObject(
      `payment ${payment.id}`,
      () => paymentEntries(payment, options.timeZone, settles),
      byPayment.get(payment.id) ?? [],
      paymentEntryKinds,
    );
  }
  const linkOptions: PaymentLinkBookingOptions = {
    timeZone: options.timeZone,
    ...(options.externalPaymentAccount ? { externalPaymentAccount: options.externalPaymentAccount } : {}),
  };
  for (const link of sources.links) {
    compareObject(
      `payment link ${link.id}`,
      () => paymentLinkEntries(link, linkOptions),
      byLink.get(link.id) ?? [],
      paymentLinkEntryKinds,
    );
  }
  for (const disbursement of sources.disbursements) {
    compareObject(
      `disbursement ${disbursement.id}`,
      () => disbursementEntries(disbursement, options),
      byDisbursement.get(disbursement.id) ?? [],
      disbursementEntryKinds,
    );
  }
  for (const deposit of sources.checkDeposits) {
    const booked = byDeposit.get(deposit.id) ?? [];
    const linkOf = applicationLinks(booked, sources.links);
    compareObject(
      `check deposit ${deposit.id}`,
      () =>
        checkDepositEntries(
          deposit,
          (id) => linkOf.get(id),
          options.timeZone,
          earlierCheckBooking(deposit.id, booked),
        ),
      booked,
      checkDepositEntryKinds,
    );
  }
  for (const bill of sources.bills) {
    const booked = byBill.get(bill.id) ?? [];
    // A bill owed when the books opened is its opening document (opening-bill.ts), what it owed that day as
    // its payment's flow found it: it stays as booked.
    const opening = booked.filter((e) => e.reversedBy === null && isOpeningDocument(e));
    if (opening.length > 0) {
      diff.unchanged += opening.length;
      continue;
    }
    compareObject(`bill ${bill.id}`, () => billEntries(bill, options.timeZone), booked, billEntryKinds);
  }
  for (const bp of sources.billPayments) {
    compareObject(
      `bill payment ${bp.id}`,
      () => billPaymentEntries(bp, options.timeZone),
      byBillPayment.get(bp.id) ?? [],
      billPaymentEntryKinds,
    );
  }
  diff.toReverse.sort((a, b) => a.date.localeCompare(b.date) || a.key.localeCompare(b.key));
  diff.toPost.sort((a, b) => a.date.localeCompare(b.date) || a.key.localeCompare(b.key));
  return diff;
}
