import { Accounts } from '../chart-of-accounts.js';
import type { BookedEntry } from '../entry.js';
import { baseKey, keyPrefix } from '../entry-key.js';
import type { DocumentApplication } from './target-port.js';

// How money received on a payment link settles the link's receivable documents at a target (issue 30 item 3).
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
// an invoice adjustment) is applied to the link's own invoice, as every target applies its credit note; money
// (a receivable credit of a payment, an external payment, a check application) settles oldest first; a
// reversal gives back what the money it reverses had settled, or closes what is left of the document it
// reverses (its credit note applied to it).

/** What a receivable document still owes, in the order the link's documents were booked. */
type OpenDocuments = Map<string, number>;

const moneyKinds = new Set(['payment', 'external-payment', 'check-application']);

function receivableOf(entry: Pick<BookedEntry, 'lines'>): number {
  return entry.lines
    .filter((l) => l.account === Accounts.AccountsReceivable)
    .reduce((sum, l) => sum + l.amountCents, 0);
}

/** Spreads `cents` over the open documents, oldest first, each up to what it owes. */
function settle(open: OpenDocuments, cents: number): { applied: DocumentApplication[]; unapplied: number } {
  const applied: DocumentApplication[] = [];
  let left = cents;
  for (const [key, owed] of open) {
    if (left === 0) break;
    if (owed <= 0) continue;
    const part = Math.min(owed, left);
    open.set(key, owed - part);
    applied.push({ key, amountCents: part });
    left -= part;
  }
  return { applied, unapplied: left };
}

/**
 * The split of `money` (a booked payment, external payment or check application crediting the link's
 * receivable) over the link's documents, from the link's entries booked before it; null for any other entry.
 */
export function applicationsOf(
  money: Pick<BookedEntry, 'id' | 'key' | 'lines' | 'reverses'>,
  linkEntries: readonly BookedEntry[],
): { applied: DocumentApplication[]; unappliedCents: number } | null {
  const received = -receivableOf(money);
  if (money.reverses !== null || received <= 0 || !moneyKinds.has(keyPrefix(baseKey(money.key)))) return null;
  const open: OpenDocuments = new Map();
  const settledBy = new Map<string, DocumentApplication[]>();
  let ownInvoice: string | null = null;
  for (const entry of [...linkEntries].sort((a, b) => a.id - b.id)) {
    if (entry.id >= money.id) break;
    const receivable = receivableOf(entry);
    const kind = keyPrefix(baseKey(entry.key));
    if (entry.reverses !== null) {
      const given = settledBy.get(entry.reverses);
      if (given) {
        for (const { key, amountCents } of given) open.set(key, (open.get(key) ?? 0) + amountCents);
        settledBy.delete(entry.reverses);
      } else if (open.has(entry.reverses)) {
        // A document reversed: its credit note settles what it still owes (the rest, if it was paid in part,
        // stays the customer's credit at the target, as the ledger's receivable says).
        const owed = open.get(entry.reverses) ?? 0;
        open.set(entry.reverses, Math.max(owed + receivable, 0));
      }
      continue;
    }
    if (receivable > 0) {
      if (kind === 'invoice') ownInvoice = entry.key;
      open.set(entry.key, (open.get(entry.key) ?? 0) + receivable);
    } else if (receivable < 0 && kind === 'invoice-adjustment' && ownInvoice) {
      open.set(ownInvoice, Math.max((open.get(ownInvoice) ?? 0) + receivable, 0));
    } else if (receivable < 0 && moneyKinds.has(kind)) {
      settledBy.set(entry.key, settle(open, -receivable).applied);
    }
  }
  const { applied, unapplied } = settle(open, received);
  return { applied, unappliedCents: unapplied };
}
