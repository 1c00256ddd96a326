import { Accounts } from '../ledger/chart-of-accounts.js';
import { baseKey, keyPrefix } from '../ledger/entry-key.js';
import type { BookedEntry, LedgerPort } from '../ledger/ledger-port.js';

// The Payouts page's list: the payouts the books hold, newest first, from their own entries (a payout's
// `disbursement-pending:` when it left the service, `disbursement-paid:` when it reached the bank, and the
// reversal of what was booked when it failed), read through the ledger's disbursement index
// (LedgerPort.entriesWithLink): no pass over the whole ledger, no request to the service and no workflow per
// row; a payout's report is one click away.

export type PayoutStatus = 'pending' | 'paid' | 'failed';

export interface RecentPayout {
  disbursementId: string;
  /** The day it left the service (its pending entry's own date). */
  date: string;
  /** The day it reached the bank, when it did. */
  paidOn: string | null;
  amountCents: number;
  status: PayoutStatus;
}

export interface RecentPayoutsPage {
  payouts: RecentPayout[];
  /** Payouts before this page (newest first). */
  offset: number;
  /** Payouts per page. */
  limit: number;
  /** Whether older payouts follow. */
  more: boolean;
  total: number;
}

interface Seen {
  pending: BookedEntry | null;
  paid: BookedEntry | null;
  /** A live (not reversed) booking of each kind. */
  livePending: boolean;
  livePaid: boolean;
}

const dayOf = (entry: BookedEntry) => entry.economicDate ?? entry.date;

export async function recentPayouts(
  ledger: LedgerPort,
  page: { offset: number; limit: number },
): Promise<RecentPayoutsPage> {
  const seen = new Map<string, Seen>();
  for (const entry of await ledger.entriesWithLink('disbursementId')) {
    const kind = keyPrefix(baseKey(entry.key));
    if (kind !== 'disbursement-pending' && kind !== 'disbursement-paid') continue;
    const id = entry.links.disbursementId;
    if (!id) continue;
    const payout = seen.get(id) ?? { pending: null, paid: null, livePending: false, livePaid: false };
    const live = entry.reversedBy === null;
    if (kind === 'disbursement-pending') {
      // The live booking is the payout as it stands; a reversed one is kept only while there is no other.
      if (live || !payout.pending) payout.pending = entry;
      payout.livePending ||= live;
    } else {
      if (live || !payout.paid) payout.paid = entry;
      payout.livePaid ||= live;
    }
    seen.set(id, payout);
  }
  const all: (RecentPayout & { order: number })[] = [];
  for (const [disbursementId, p] of seen) {
    const first = p.pending ?? p.paid;
    if (!first) continue;
    const amountCents =
      first.lines.find((line) => line.account === Accounts.PayoutsInTransit && line.amountCents > 0)
        ?.amountCents ?? Math.abs(first.lines[0]?.amountCents ?? 0);
    const status: PayoutStatus = p.livePaid ? 'paid' : p.livePending ? 'pending' : 'failed';
    all.push({
      disbursementId,
      date: dayOf(first),
      paidOn: p.livePaid && p.paid ? dayOf(p.paid) : null,
      amountCents,
      status,
      order: first.id,
    });
  }
  all.sort((a, b) => (a.date === b.date ? b.order - a.order : a.date < b.date ? 1 : -1));
  const slice = all.slice(page.offset, page.offset + page.limit);
  return {
    payouts: slice.map(({ order: _order, ...payout }) => payout),
    offset: page.offset,
    limit: page.limit,
    more: page.offset + page.limit < all.length,
    total: all.length,
  };
}
