import { Accounts } from '../ledger/chart-of-accounts.js';
import type { BookedEntry } from '../ledger/entry.js';
import { baseKey, keyPrefix } from '../ledger/entry-key.js';
import type { CreditApplication, DocumentApplication } from './target-port.js';

// How money received on a payment link settles the link's receivable documents at a target.
// The service counts money per link (completedAmountCents against requestedAmountCents, which includes the
// link's live debit memos, 2.1); it does not say which document a payment pays. booksync applies it as a
// bookkeeper would, oldest document first: the link's own invoice, then each memo or reopened amount in the
// order booked, each up to what it still owes; what exceeds everything owed is unapplied (the customer's
// credit). Every target receives that same split, so each document's open amount at the target is the same
// everywhere, and a 12,500 payment of a 10,000 invoice and its 2,500 memo pays both instead of being
// applied whole to the invoice (which QuickBooks and Tryton refuse, and Xero books as an overpayment).
//
// Worked out from the ledger alone, replaying the link's entries in posting order: a document (a receivable
// debit: the invoice, a raising, a memo, a refund's reopened amount) opens; a lowering (a receivable credit of
// an invoice adjustment) is a credit the targets apply as money is, the link's own invoice first, then the
// others oldest first (a raise's or a memo's charge invoice: a link raised and lowered again owes the lowered
// amount on its invoices together, as the service says), what no document still owes staying the customer's
// credit; money (a receivable credit of a payment, an external payment, a check application) settles oldest
// first; a reversal gives back what the money it reverses had settled, or closes what is left of the
// document it reverses (its credit note applied to it). Money reversed in a later month than it was booked
// (after a close) is owed again on a document of the reversal's own, the documents it paid staying paid in
// their month, as every target books it (reopensOnItsOwn): later money and lowerings settle that document.

/** What a receivable document still owes, in the order the link's documents were booked. */
type OpenDocuments = Map<string, number>;

const moneyKinds = new Set(['payment', 'external-payment', 'check-application']);
/** What credits the link's documents: money received, and a lowering of the link's amount. */
const creditKinds = new Set([...moneyKinds, 'invoice-adjustment']);

function receivableOf(entry: Pick<BookedEntry, 'lines'>): number {
  return entry.lines
    .filter((l) => l.account === Accounts.AccountsReceivable)
    .reduce((sum, l) => sum + l.amountCents, 0);
}

/**
 * Spreads `cents` over the open documents, oldest first (`first`, the link's own invoice for a lowering,
 * before them all), each up to what it owes.
 */
function settle(
  open: OpenDocuments,
  cents: number,
  first: string | null = null,
): { applied: DocumentApplication[]; unapplied: number } {
  const applied: DocumentApplication[] = [];
  let left = cents;
  const order = [...open].sort(([a], [b]) => Number(b === first) - Number(a === first));
  for (const [key, owed] of order) {
    if (left === 0) break;
    if (owed <= 0) continue;
    const part = Math.min(owed, left);
    open.set(key, owed - part);
    applied.push({ key, amountCents: part });
    left -= part;
  }
  return { applied, unapplied: left };
}

/** What the link's entries before a point left: what each document owes, what each credit settled. */
interface LinkState {
  open: OpenDocuments;
  settledBy: Map<string, DocumentApplication[]>;
  /** A lowering's credit no document owed when it was booked (the customer's credit), by its key. */
  waiting: Map<string, number>;
  ownInvoice: string | null;
  /**
   * What a reversal's reopened documents, or a charge's document, took of the waiting credits, by the
   * reversal's or the charge's key.
   */
  reapplied: Map<string, CreditApplication[]>;
  /** A reversal that reopened money on a document of its own: the one document that money had settled. */
  reopened: Map<string, string>;
}

/**
 * Whether a reversal of money reopens what that money settled on a document of its own rather than on the
 * documents themselves: the money was booked in an earlier month than its reversal (a reversal after a
 * close is dated in the open period), so no target cancels it in place (closed-periods.ts reversesInPlace)
 * and the documents it paid stay paid in their month: QuickBooks' charge invoice (the bounced-payment
 * invoice), Xero's ACCREC invoice of the dishonoured payment, both keyed by the reversal. Tryton owes it
 * again on the invoice the money paid (owed-again.ts: the reversal one of its additional moves), which
 * `reopens` names. A reversal in the money's own month reopens the documents it paid, as before.
 */
function reopensOnItsOwn(original: BookedEntry, reversal: BookedEntry): boolean {
  return (
    moneyKinds.has(keyPrefix(baseKey(original.key))) &&
    original.date.slice(0, 7) !== reversal.date.slice(0, 7)
  );
}

/** What the reversed money settled, owed again on the reversal's own document (reopensOnItsOwn). */
function reopenOnItsOwn(state: LinkState, reversal: string, given: readonly DocumentApplication[]): void {
  const cents = given.reduce((sum, a) => sum + a.amountCents, 0);
  if (cents <= 0) return;
  state.open.set(reversal, (state.open.get(reversal) ?? 0) + cents);
  const [only] = given;
  if (given.length === 1 && only) state.reopened.set(reversal, only.key);
}

/** The split as a target receives it: a part on a reversal's own document names what it reopened. */
function withReopened(applied: DocumentApplication[], state: LinkState): DocumentApplication[] {
  return applied.map((a) => {
    const reopens = state.reopened.get(a.key);
    return reopens ? { ...a, reopens } : a;
  });
}

/**
 * The lowerings' credits waiting (no document owed them when booked) applied to what the link's documents
 * owe now (the link's own invoice first), recorded as what entry `by` (a reversal reopening documents, a
 * charge opening one) made them take.
 */
function takeWaiting(state: LinkState, by: string): void {
  const again: CreditApplication[] = [];
  for (const [credit, cents] of state.waiting) {
    const { applied, unapplied } = settle(state.open, cents, state.ownInvoice);
    if (applied.length === 0) continue;
    state.settledBy.set(credit, [...(state.settledBy.get(credit) ?? []), ...applied]);
    state.waiting.set(credit, unapplied);
    again.push({ credit, applied });
  }
  if (again.length > 0) state.reapplied.set(by, again);
}

/** Replays the link's entries booked before `untilId` (none past it). */
function replayLink(linkEntries: readonly BookedEntry[], untilId: number): LinkState {
  const state: LinkState = {
    open: new Map(),
    settledBy: new Map(),
    waiting: new Map(),
    ownInvoice: null,
    reapplied: new Map(),
    reopened: new Map(),
  };
  const { open, settledBy, waiting } = state;
  for (const entry of [...linkEntries].sort((a, b) => a.id - b.id)) {
    if (entry.id >= untilId) break;
    const receivable = receivableOf(entry);
    const kind = keyPrefix(baseKey(entry.key));
    if (entry.reverses !== null) {
      const given = settledBy.get(entry.reverses);
      waiting.delete(entry.reverses);
      if (given) {
        const original = linkEntries.find((e) => e.key === entry.reverses);
        if (original && reopensOnItsOwn(original, entry)) reopenOnItsOwn(state, entry.key, given);
        else for (const { key, amountCents } of given) open.set(key, (open.get(key) ?? 0) + amountCents);
        settledBy.delete(entry.reverses);
        // What the reversal reopened takes the customer's credit a lowering left, as a bookkeeper applies
        // it again (the link's own invoice first): the documents owe the service's remainder.
        takeWaiting(state, entry.key);
      } else if (open.has(entry.reverses)) {
        // A document reversed: its credit note settles what it still owes (the rest, if it was paid in part,
        // stays the customer's credit at the target, as the ledger's receivable says).
        const owed = open.get(entry.reverses) ?? 0;
        open.set(entry.reverses, Math.max(owed + receivable, 0));
      }
      continue;
    }
    if (receivable > 0) {
      if (kind === 'invoice') state.ownInvoice = entry.key;
      open.set(entry.key, (open.get(entry.key) ?? 0) + receivable);
      // A charge on the link (a raise, a memo, a reopened amount) takes the customer's credit a lowering
      // left, as a bookkeeper applies it to the new charge: the link owes the service's remainder.
      if (kind !== 'invoice') takeWaiting(state, entry.key);
    } else if (receivable < 0 && creditKinds.has(kind)) {
      const lowering = kind === 'invoice-adjustment';
      const { applied, unapplied } = settle(open, -receivable, lowering ? state.ownInvoice : null);
      settledBy.set(entry.key, applied);
      if (lowering && unapplied > 0) waiting.set(entry.key, unapplied);
    }
  }
  return state;
}

/**
 * The split of `money` (a booked payment, external payment or check application crediting the link's
 * receivable, or a lowering of the link's amount) over the link's documents, from the link's entries booked
 * before it; null for any other entry (a raise, a document, a reversal).
 */
export function applicationsOf(
  money: Pick<BookedEntry, 'id' | 'key' | 'lines' | 'reverses'>,
  linkEntries: readonly BookedEntry[],
): { applied: DocumentApplication[]; unappliedCents: number } | null {
  const received = -receivableOf(money);
  if (money.reverses !== null || received <= 0 || !creditKinds.has(keyPrefix(baseKey(money.key))))
    return null;
  const state = replayLink(linkEntries, money.id);
  const lowering = keyPrefix(baseKey(money.key)) === 'invoice-adjustment';
  const { applied, unapplied } = settle(state.open, received, lowering ? state.ownInvoice : null);
  return { applied: withReopened(applied, state), unappliedCents: unapplied };
}

/**
 * The lowerings' credits the customer held (no document owed them when booked) that an entry makes the
 * link's documents take, each with its split: for a reversal of money on the link (a payment returned,
 * refunded, voided), the documents it reopens; for a charge on the link (a raise, a memo, a reopened
 * amount), its own document. None for any other entry, or when there is no such credit.
 */
export function reapplicationsOf(
  entry: Pick<BookedEntry, 'id' | 'key'>,
  linkEntries: readonly BookedEntry[],
): CreditApplication[] {
  return replayLink(linkEntries, entry.id + 1).reapplied.get(entry.key) ?? [];
}
