import type { EntryLinks, LedgerEntryInput } from './entry.js';
import type { LedgerPort } from './ledger-port.js';
import { diffEntries, type EntryDiff, type EntryDiffOptions } from './mapping/entry-diff.js';
import { bookableEntries } from './opening-balances.js';

export interface SyncResult {
  posted: string[];
  reversed: string[];
  unchanged: string[];
}

/**
 * Writes an entry diff through the port: reversals first, then posts, then the conflicts (whose
 * post raises LedgerConflictError after everything else was written). Every step is idempotent, so a
 * retried activity converges.
 */
export async function applyEntryDiff(
  ledger: LedgerPort,
  plan: EntryDiff,
  options: { date: string },
): Promise<SyncResult> {
  const result: SyncResult = { posted: [], reversed: [], unchanged: [...plan.unchanged] };
  for (const { key, reason } of plan.toReverse) {
    const { created } = await ledger.reverse(key, { reason, date: options.date });
    if (created) result.reversed.push(key);
  }
  // The new entries of one record in one transaction (a payment and its fee: one commit, one fsync on
  // SQLite), all or nothing: the books never hold half of what the record says.
  const posted =
    plan.toPost.length === 1
      ? [await ledger.post(plan.toPost[0] as LedgerEntryInput)]
      : plan.toPost.length > 1
        ? await ledger.postMany(plan.toPost)
        : [];
  posted.forEach(({ created }, i) => {
    if (created) result.posted.push((plan.toPost[i] as LedgerEntryInput).key);
  });
  for (const { desired, booked } of plan.conflicts) await ledger.post({ ...desired, key: booked.key });
  return result;
}

/**
 * What an activity calls after fetching a service object: make the books hold exactly `desired` for the
 * objects matching `scope`, among the entry kinds it owns. `date` is the accounting date of reversals.
 * Once the books open on a day (backfill), an object never imported books only its entries from that day
 * on: the rest is in Opening Balances (src/ledger/opening-balances.ts).
 *
 *   await syncEntries(ledger, paymentEntries(payment), { paymentId: payment.id },
 *     { kinds: paymentEntryKinds, date: today, reason: 'payment.failed' });
 */
export async function syncEntries(
  ledger: LedgerPort,
  desired: readonly LedgerEntryInput[],
  scope: EntryLinks,
  options: EntryDiffOptions & { date: string },
): Promise<SyncResult> {
  const booked = await ledger.entriesFor(scope);
  const bookable = bookableEntries(desired, booked, await ledger.booksOpenOn());
  return applyEntryDiff(ledger, diffEntries(bookable, booked, options), options);
}
