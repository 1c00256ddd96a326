import type { TargetDocument } from '../target-port.js';

// Money on a payment link as Xero applies it. A Xero Payment is against ONE invoice, credit
// note, prepayment or overpayment (https://developer.xero.com/documentation/api/accounting/payments; the
// Payment schema of xero_accounting.yaml holds one Invoice), and Xero refuses a payment over the invoice's
// AmountDue. So money that settles the link's invoice and its memos (TargetDocument.settles, applications.ts)
// is one Payment per document it settles, each for its part, and what exceeds everything owed a
// RECEIVE-OVERPAYMENT bank transaction (the customer's credit). Every record carries the document's marker
// and, when there are several, ` part=<tag>` after it: the key of the document the part settles, or `credit`
// for the overpayment; so a push after a crash between parts finds the parts Xero has by the document's key
// and creates only the missing ones.

/** One record the money becomes: a Payment of `settles` (a ledger key), or the customer's credit (null). */
export interface PaymentPart {
  tag: string;
  settles: string | null;
  cents: number;
  /** The Xero invoice the part pays, where `settles` is one of several (owed-again-parts.ts). */
  invoiceId?: string;
}

const CREDIT = 'credit';

/**
 * The parts of money on a link, in the order applied (oldest document first, the credit last); null when the
 * document carries no split (money booked before applications, or not on a link).
 */
export function partsOf(doc: TargetDocument): PaymentPart[] | null {
  if (!doc.settles) return null;
  const parts: PaymentPart[] = doc.settles.applied
    .filter((a) => a.amountCents > 0)
    .map((a) => ({ tag: a.key, settles: a.key, cents: a.amountCents }));
  if (doc.settles.unappliedCents > 0)
    parts.push({ tag: CREDIT, settles: null, cents: doc.settles.unappliedCents });
  return parts.length > 0 ? parts : null;
}

/** The marker text of a part: the document's marker alone when it is the only part (as before parts). */
export function partReference(mark: string, part: { tag: string } | null, note = ''): string {
  return [mark, part ? `part=${part.tag}` : '', note].filter((s) => s !== '').join(' ');
}

/**
 * The part a record's marker text names, null when it names none: the `part=` right after the marker, so a
 * business reference before it (references.ts) is never read as one.
 */
export function partIn(text: string): string | null {
  return /booksync key=\S+ hash=\S* part=(\S+)/.exec(text)?.[1] ?? null;
}
