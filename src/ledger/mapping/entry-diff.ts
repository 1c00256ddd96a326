import { type BookedEntry, canonicalContents, type LedgerEntryInput } from '../entry.js';
import { baseKey, keyPrefix, keyVersion, versionedKey } from '../entry-key.js';
import { LedgerValidationError } from '../errors.js';

export interface EntryDiffOptions {
  /**
   * Key prefixes this caller owns (e.g. paymentEntryKinds). Booked entries of other kinds are ignored, so
   * a payment-link sync never reverses the payments booked under the same link. Omitted: every booked
   * entry passed in is in scope.
   */
  kinds?: readonly string[];
  /** Reason recorded on reversals; default 'no longer in the service state'. */
  reason?: string;
}

export interface EntryDiff {
  /** Entries to post, under their base key or the next version (`key#n`) when earlier versions were reversed. */
  toPost: LedgerEntryInput[];
  /** Booked live entries no longer desired. */
  toReverse: { key: string; reason: string }[];
  /** Keys already booked live with the desired contents: nothing to do. */
  unchanged: string[];
  /**
   * Desired entries whose live booked version has different contents. Never silently corrected: posting
   * one (applyEntryDiff does, last) raises LedgerConflictError, so the drift is looked at.
   */
  conflicts: { desired: LedgerEntryInput; booked: BookedEntry }[];
}

/**
 * The difference between what should be booked (desired, from the fetched service state, base keys) and
 * what is booked (from entriesFor, reversals included). Pure.
 *
 * Rule for keys: one "slot" per base key, holding versions `key`, `key#2`, `key#3`...; a version is live
 * until reversed. Desired and a live version has the same contents: unchanged. Desired and no live version:
 * post under the next version (base key if none was ever booked, else highest version + 1), so an entry
 * reversed earlier and desired again (a refund credit returned, then re-sent...) books afresh, while the
 * reversed history stays. Not desired and live: reverse (once; a reversed version is never touched again).
 */
export function diffEntries(
  desired: readonly LedgerEntryInput[],
  booked: readonly BookedEntry[],
  options: EntryDiffOptions = {},
): EntryDiff {
  const reason = options.reason ?? 'no longer in the service state';
  const inScope = (key: string) => !options.kinds || options.kinds.includes(keyPrefix(key));

  const slots = new Map<string, BookedEntry[]>();
  for (const entry of booked) {
    if (entry.reverses !== null || !inScope(entry.key)) continue;
    const base = baseKey(entry.key);
    const slot = slots.get(base);
    if (slot) slot.push(entry);
    else slots.set(base, [entry]);
  }

  const plan: EntryDiff = { toPost: [], toReverse: [], unchanged: [], conflicts: [] };
  const desiredKeys = new Set<string>();
  for (const entry of desired) {
    if (baseKey(entry.key) !== entry.key) {
      throw new LedgerValidationError(`desired entries use base keys, got ${entry.key}`);
    }
    if (desiredKeys.has(entry.key)) throw new LedgerValidationError(`desired key ${entry.key} appears twice`);
    if (options.kinds && !inScope(entry.key)) {
      throw new LedgerValidationError(`desired key ${entry.key} is outside the compared kinds`);
    }
    desiredKeys.add(entry.key);

    const versions = (slots.get(entry.key) ?? []).sort((a, b) => keyVersion(a.key) - keyVersion(b.key));
    const live = versions.filter((v) => v.reversedBy === null);
    const last = versions.at(-1);
    if (live.length === 0) {
      const next = last ? keyVersion(last.key) + 1 : 1;
      plan.toPost.push({ ...entry, key: versionedKey(entry.key, next) });
      continue;
    }
    const wanted = canonicalContents(entry);
    const match = live.find((v) => sameContents(v, entry, wanted));
    if (match) {
      plan.unchanged.push(match.key);
      // Two live versions of one slot only arise from a bug or a race; keep the matching one.
      for (const v of live) if (v !== match) plan.toReverse.push({ key: v.key, reason: 'duplicate version' });
    } else {
      plan.conflicts.push({ desired: entry, booked: live.at(-1) as BookedEntry });
    }
  }

  for (const [base, versions] of slots) {
    if (desiredKeys.has(base)) continue;
    for (const v of versions) if (v.reversedBy === null) plan.toReverse.push({ key: v.key, reason });
  }
  return plan;
}

/**
 * Link fields added by a later release (the bill dimension of bill payments, v2). An entry booked before
 * lacks them; that is not drift, so it compares as if the desired entry lacked them too.
 */
const linksAddedLater = ['billId'] as const;

/**
 * Whether a live booked entry holds what is desired. A booked entry's date never moves: it may have been
 * booked on the first open day of a closed period's books (its economic date is the desired date), or
 * before BOOKS_TIME_ZONE was set (a UTC day), and moving it would change a period that may be closed. So
 * entries that differ only in their date are the same.
 */
function sameContents(booked: BookedEntry, desired: LedgerEntryInput, wanted: string): boolean {
  const contents = canonicalContents(booked);
  if (contents === wanted) return true;
  if (booked.date !== desired.date)
    return sameContents(
      booked,
      { ...desired, date: booked.date },
      canonicalContents({ ...desired, date: booked.date }),
    );
  const missing = linksAddedLater.filter(
    (f) => booked.links[f] === undefined && desired.links?.[f] !== undefined,
  );
  if (missing.length === 0) return false;
  const links = { ...desired.links };
  for (const f of missing) delete links[f];
  return contents === canonicalContents({ ...desired, links });
}
