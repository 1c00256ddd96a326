import { contentHash } from './content-hash.js';
import {
  type BookedEntry,
  type EntryLinks,
  type LedgerEntryInput,
  normalizeLinks,
  type PostResult,
  validateEntry,
} from './entry.js';
import type { LedgerPort } from './ledger-port.js';
import { newlyBooked, repeatedPost } from './posting-rules.js';

// A payment's sync writes its link's invoice, the payment and its fee; a backfill page a few hundred new
// entries. Posted one by one, each would be its own transaction (and its own fsync on the embedded ledger:
// most of a backfill's time, and the worker's main thread blocked once per entry). Both write through this
// view of the ledger instead: new entries wait in memory and are written together by flush(), through the
// ledger's postMany (one transaction, all or nothing), before the activity returns. Reads see the waiting
// entries as if booked (the syncs read what they just posted: an invoice, then the link's records), so every
// sync decides as it would on the ledger itself. Anything else than post, postMany, get, entriesFor,
// isReversed and the books' opening day (a reversal, balances) writes the waiting entries first, then goes to
// the ledger.

export interface WriteBehindLedger extends LedgerPort {
  /** Entries waiting to be written. */
  readonly waiting: number;
  /** Writes the waiting entries in one transaction (all or nothing); on failure they are dropped. */
  flush(): Promise<void>;
}

export function writeBehind(ledger: LedgerPort): WriteBehindLedger {
  const pending = new Map<string, BookedEntry>();
  const flush = async () => {
    if (pending.size === 0) return;
    const entries = [...pending.values()].map(({ key, date, description, lines, links }) => ({
      key,
      date,
      description,
      lines,
      links,
    }));
    pending.clear();
    await ledger.postMany(entries);
  };
  const matches = (entry: BookedEntry, filter: EntryLinks) =>
    Object.entries(normalizeLinks(filter)).every(
      ([field, value]) => entry.links[field as keyof EntryLinks] === value,
    );
  /**
   * Checks each entry as the ledger's post would (valid; a repeat of a waiting or booked key with the same
   * contents is no new entry, other contents a conflict), then lets the new ones wait: all or none.
   */
  const stage = async (inputs: readonly LedgerEntryInput[]): Promise<PostResult[]> => {
    const staged = new Map<string, BookedEntry>();
    const results: PostResult[] = [];
    for (const input of inputs) {
      const entry = validateEntry(input);
      const hash = contentHash({ ...entry, reverses: null });
      const waiting = staged.get(entry.key) ?? pending.get(entry.key);
      if (waiting) {
        results.push(repeatedPost(waiting, entry.key, hash));
        continue;
      }
      // Booked already: the ledger answers (the same contents again, or a conflict) and writes nothing.
      if (await ledger.get(entry.key)) {
        results.push(await ledger.post(input));
        continue;
      }
      // id 0: not written yet (nothing reads an entry's id; its key is its identity).
      const booked = newlyBooked(entry, {
        id: 0,
        reverses: null,
        contentHash: hash,
        createdAt: new Date().toISOString(),
        // Dated as posted while it waits; the write moves it to the first open day if its day is closed.
        economicDate: null,
      });
      staged.set(entry.key, booked);
      results.push({ entry: booked, created: true });
    }
    for (const [key, booked] of staged) pending.set(key, booked);
    return results;
  };
  /** Anything else writes the waiting entries first, then asks the ledger. */
  const flushed =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await flush();
      return call(...args);
    };
  return {
    get waiting() {
      return pending.size;
    },
    flush,
    async post(input: LedgerEntryInput): Promise<PostResult> {
      return (await stage([input]))[0] as PostResult;
    },
    // A record's few entries (a payment and its fee) wait together: all of them, or none when one is
    // refused (the ledger's postMany rules).
    postMany: (inputs) => stage(inputs),
    async get(key: string) {
      return pending.get(key) ?? ledger.get(key);
    },
    async getMany(keys: readonly string[]) {
      const found = await ledger.getMany(keys.filter((k) => !pending.has(k)));
      for (const key of keys) {
        const waiting = pending.get(key);
        if (waiting) found.set(key, waiting);
      }
      return found;
    },
    async isReversed(key: string) {
      // A waiting entry has no reversal: reverse() writes the waiting entries before it reverses one.
      return pending.has(key) ? false : ledger.isReversed(key);
    },
    // The books' opening is not an entry: nothing waiting changes it.
    booksOpenOn: () => ledger.booksOpenOn(),
    booksOpening: () => ledger.booksOpening(),
    booksClosedThrough: () => ledger.booksClosedThrough(),
    booksClosings: () => ledger.booksClosings(),
    // A closing moves where the waiting entries are booked: they are written first.
    closeBooks: flushed(ledger.closeBooks.bind(ledger)),
    async entriesFor(filter: EntryLinks) {
      const booked = await ledger.entriesFor(filter);
      return [...booked, ...[...pending.values()].filter((e) => matches(e, filter))];
    },
    entriesWithLink: flushed(ledger.entriesWithLink.bind(ledger)),
    reverse: flushed(ledger.reverse.bind(ledger)),
    async *entries(options) {
      await flush();
      yield* ledger.entries(options);
    },
    allEntries: flushed(ledger.allEntries.bind(ledger)),
    balances: flushed(ledger.balances.bind(ledger)),
    trialBalance: flushed(ledger.trialBalance.bind(ledger)),
    balanceOf: flushed(ledger.balanceOf.bind(ledger)),
    openItems: flushed(ledger.openItems.bind(ledger)),
    openBooks: flushed(ledger.openBooks.bind(ledger)),
    markOpeningBalancesBooked: flushed(ledger.markOpeningBalancesBooked.bind(ledger)),
    // The business's write-offs are not entries: nothing waiting changes them.
    recordWriteOff: (writeOff) => ledger.recordWriteOff(writeOff),
    withdrawWriteOff: (id) => ledger.withdrawWriteOff(id),
    writeOffsFor: (paymentLinkId) => ledger.writeOffsFor(paymentLinkId),
  };
}
