import type { AccountRole } from './account-mapping.js';

// The accounting-target port (design overview, "Accounting targets"). The embedded ledger stays the journal
// of record; every configured target receives each ledger entry, in posting order, as a business document.
// An adapter (Tryton, QuickBooks Online, Xero, a mirror ledger) maps each document kind to the target's
// native documents and keeps the push idempotent with the target's own mechanism.

/** A customer or vendor as the service knows it; adapters match or create the target's party from it. */
export interface Party {
  /** The service's id (customerId / vendorId). */
  serviceId: string;
  name: string;
  email: string | null;
}

/**
 * Document kinds: one per ledger key prefix (see entry-key.ts), plus `reversal`.
 * - invoice: a payment link's own amount (Dr receivable / Cr revenue); the target's customer invoice.
 * - invoice-adjustment: a later change of the link's requested amount (signed; a write-off is negative).
 * - debit-memo: a charge added to the link (Dr receivable / Cr fee income): an invoice line or charge invoice.
 * - payment: money received by the service against the invoice (Dr processor clearing / Cr receivable).
 * - sale: money received by the service that settles no invoice (a reusable link's payment, a payment on no
 *   link): a sale of its own (Dr processor clearing / Cr revenue); the target's sales receipt / receive money.
 * - payment-fee: the card fee the business absorbs (Dr processing fees / Cr processor clearing).
 * - refund: money returned to the payer (Dr refunds / Cr processor clearing).
 * - refund-reopen: the service reopens the invoice by the refunded amount (Dr receivable / Cr refunds).
 * - external-payment: money received outside the service (Dr checks to deposit or bank / Cr receivable).
 * - check-deposited: a deposited check, whole, not yet applied (Dr checks to deposit / Cr unapplied cash); one
 *   booked by the previous release holds only what its applications did not.
 * - check-application: a deposited check applied to the invoice (Dr unapplied cash / Cr receivable; booked by
 *   the previous release: Dr checks to deposit).
 * - check-cleared: the deposit cleared (Dr bank / Cr checks to deposit).
 * - disbursement-pending / disbursement-paid: the payout (clearing -> in transit -> bank).
 * - bill: a vendor bill (Dr bill expense / Cr payable); the target's supplier invoice.
 * - bill-payment-sent: a bill payment sent (Dr payable / Cr outgoing payments clearing).
 * - bill-payment-paid: the vendor cashed it (Dr outgoing payments clearing / Cr bank).
 * - opening-balances: a backfill's opening entry, the money in flight when the books opened (Dr clearing,
 *   in transit, checks / Cr Opening Balances); a journal entry at every target.
 * - reversal: the target's own cancel / void / reversal of the document pushed for `reverses`, in place only
 *   when both fall in the same open month; otherwise a reversing document dated in the open period
 *   (closed-periods.ts).
 */
export const documentKinds = [
  'invoice',
  'invoice-adjustment',
  'debit-memo',
  'payment',
  'sale',
  'payment-fee',
  'refund',
  'refund-reopen',
  'external-payment',
  'check-deposited',
  'check-application',
  'check-cleared',
  'disbursement-pending',
  'disbursement-paid',
  'bill',
  'bill-payment-sent',
  'bill-payment-paid',
  'opening-balances',
  'reversal',
] as const;
export type DocumentKind = (typeof documentKinds)[number];

export interface DocumentLine {
  /** The ledger account's role; the adapter maps it to the target's account (account-mapping.ts). */
  role: AccountRole;
  /** Signed cents, positive = debit. The lines of a document sum to zero. */
  amountCents: number;
}

/** One ledger entry as a business document: everything an adapter needs, nothing it must look up in booksync. */
export interface TargetDocument {
  /** The ledger entry key: the idempotency key at the target. */
  key: string;
  kind: DocumentKind;
  /** YYYY-MM-DD accounting date. */
  date: string;
  description: string;
  /** The document's amount, positive (the sum of its debit lines). */
  amountCents: number;
  lines: DocumentLine[];
  /** SHA-256 of the entry's contents; same key with another hash is a conflict. */
  contentHash: string;
  /** The invoice (payment link) this document belongs to, with its number (the link's name) and due date. */
  invoice?: { paymentLinkId: string; number: string; dueDate?: string | null };
  /** The bill this document belongs to, with the vendor's invoice number and its due date when known. */
  bill?: { billId: string; number: string | null; dueDate?: string | null };
  customer?: Party;
  vendor?: Party;
  /** The service object the money is (payment id, external payment id, check deposit id, disbursement id...). */
  reference?: string;
  /**
   * The business's own reference for the money, what its bank statement or its payer shows, for the
   * target's reconciliation field: an external payment's or check application's
   * externalReferenceId (else the deposit's transferId), a cleared check deposit's transferId, a payout's
   * id, a vendor check's number. Absent when the money has none (a card payment, a fee, an ACH bill
   * payment). Not part of the content hash: it only labels the record.
   */
  businessReference?: string;
  /**
   * For kind `disbursement-pending`: the receipts the payout carries, so a target that keeps received money
   * apart until deposited (QuickBooks' Undeposited Funds) deposits exactly those; `netted`, what else the
   * payout nets of those payments (their `payment-surcharge:` entries, positive, and `payment-fee:`,
   * `surcharge-fee:`, `payment-other-fee:` and `refund:` entries, negative: each signed as it moves clearing),
   * so such a target deposits them too.
   */
  payout?: { receipts: PayoutReceipt[]; netted?: PayoutReceipt[] };
  /**
   * For money received on a payment link (kinds `payment`, `external-payment`, `check-application` crediting
   * the receivable) and a lowering of its amount (`invoice-adjustment` crediting it): how it settles the
   * link's documents (their keys: the invoice, raises, memos, reopened amounts), oldest first, and what
   * exceeds everything owed, the customer's credit (applications.ts).
   */
  settles?: { applied: DocumentApplication[]; unappliedCents: number };
  /**
   * For a reversal of money received on a payment link, and a charge on the link (a raise, a memo, a
   * reopened amount): the customer's credit a lowering left (no document owed it when it was booked) that
   * the documents the reversal reopens, or the charge's own document, take (applications.ts), so each
   * document owes the service's remainder, as a bookkeeper applies the credit to them.
   */
  reapplies?: CreditApplication[];
  /**
   * For a reversal of a receipt (a `payment:` or `sale:` entry) that a payout booked before it carries: that
   * payout's `disbursement-pending:` key, so a target that lists a payout's receipts (Xero's notes on the
   * payout's transfer) can say the receipt was reversed since, and by what.
   */
  carriedBy?: string;
  /**
   * For a surcharge, fee or refund entry of a payment a payout carries, dated on or before that payout (what
   * the payout's `netted` lists): the payout's `disbursement-pending:` entry, its key and date, booked before
   * or after this one. A target whose payout document links what the payout nets (QuickBooks' Deposit) links
   * one pushed after the payout's document, which could not name it.
   */
  nettedBy?: { key: string; date: string };
  /** For kind `reversal`: the key of the document it reverses, and why. */
  reverses?: string;
  reason?: string;
  /**
   * For kind `reversal`: the YYYY-MM-DD date of the entry it reverses (the ledger's), so an adapter can tell
   * a same-month void from a reversal across months or into a closed period. Absent when the ledger no
   * longer holds the original (then the date the target holds the original under decides).
   */
  originalDate?: string;
}

/** A credit (a lowering's ledger key) applied to the link's documents, as `applied` splits it. */
export interface CreditApplication {
  credit: string;
  applied: DocumentApplication[];
}

/** Part of a receipt applied to one of the link's documents (its ledger key). */
export interface DocumentApplication {
  key: string;
  amountCents: number;
  /**
   * When `key` is a reversal of money in an earlier month than the reversal (its amount owed again on a
   * document of its own: QuickBooks' and Xero's charge invoice of it), the one document that money had
   * settled, which a target owing it again there (Tryton's invoice, the reversal an additional move of it)
   * applies the part to.
   */
  reopens?: string;
}

/**
 * A receipt a payout carries: its ledger entry (`payment:` or `sale:`), day and gross amount; among what it
 * nets, a surcharge's, fee's or refund's entry, day and amount signed as it moves clearing (out: negative).
 */
export interface PayoutReceipt {
  key: string;
  date: string;
  amountCents: number;
}

/** What a target holds for one document: its own ids, and the key/hash stored with them. */
export interface RemoteRecord {
  key: string;
  /** The target's ids of what was created (move, invoice, payment...), first the main one. */
  remoteIds: string[];
  contentHash: string;
}

export interface PushResult extends RemoteRecord {
  /** false when the target already held the document (found by key): nothing was created. */
  created: boolean;
}

/** What the push gives the adapter besides the document: the index's records of earlier documents. */
export interface PushContext {
  /** The remote record of an earlier pushed key (e.g. the invoice a payment settles), from the target index. */
  pushed(key: string): RemoteRecord | null;
  /**
   * Whether the target may already hold this document: an earlier push attempt marked it before writing
   * (the index's write-ahead record) and never learned the outcome, or it predates those marks. Only then
   * does the adapter look it up at the target before creating it; otherwise the target is known not to hold
   * it, and it is created with no look-up.
   */
  mayExist(key: string): boolean;
  /**
   * How many times the target refused this document before (0 for a first push). A vendor that replays the
   * first answer to a repeated idempotency key (Xero's Idempotency-Key, QuickBooks' requestid) replays a
   * refusal too, so a document retried after a person fixed the target (an archived account restored, a
   * contact unarchived: nothing in the body changes) would be refused again forever; the adapters put this
   * count in the key, so each retry after a refusal is a request of its own. A lost answer's retry keeps
   * the count, hence the key, and is still replayed.
   */
  refusals(key: string): number;
  /**
   * The day through which the ledger's own books are closed (YYYY-MM-DD), null or absent when none. The
   * effective lock of a target is the later of this and the target's lockedThrough() (closed-periods.ts).
   */
  closedThrough?: string | null;
}

/** A payout fact a document may carry (TargetDocument.carriedBy, nettedBy), read at the service. */
export type PayoutFact = 'carriedBy' | 'nettedBy';
export const payoutFactsAll: readonly PayoutFact[] = ['carriedBy', 'nettedBy'];

export interface AccountingTarget {
  /** Stable name: the index and the push workflow are per name (`tryton`, `quickbooks`, `xero`, ...). */
  readonly name: string;
  /**
   * The company pushed to, for a target with several behind one login (QuickBooks' realm id, Xero's tenant
   * id): the target index is that company's only (TargetIndexStore.lease refuses another's).
   */
  readonly company?: string;
  /**
   * Start-up check: connection, and every mapped account present at the target. Throws
   * TargetConfigurationError listing one line per problem.
   */
  verify(): Promise<void>;
  /**
   * Creates the document at the target, or, when context.mayExist(key), first finds it by key (a crash
   * between the create and the index write must not duplicate). Same key with another contentHash: TargetConflictError.
   * Refusals retrying cannot fix: TargetRefusedError with the target's message. Outages, rate limits:
   * TargetUnavailableError (retryable).
   */
  push(document: TargetDocument, context: PushContext): Promise<PushResult>;
  /**
   * true when pushMany() writes a backlog in fewer requests than push() one by one would (QBO's and Xero's
   * batches): the push then hands it a slice at once; false, it pushes document by document itself.
   */
  readonly batches: boolean;
  /**
   * The payout facts its documents use (TargetDocument.carriedBy, nettedBy): each costs a read of the
   * payment at the service, so a target asks only for what it uses; none when absent.
   */
  readonly payoutFacts?: readonly PayoutFact[];
  /**
   * Pushes several documents: one outcome per document, in order: its PushResult, or the error push() would
   * have thrown for it. The same guarantees as push(): a document the target may hold (context.mayExist) is
   * looked up, never created twice. A target without batches pushes them one by one (push-one-by-one.ts).
   */
  pushMany(documents: TargetDocument[], context: PushContext): Promise<(PushResult | Error)[]>;
  /** Finds what the target holds for a key, by the key stored at the target (not booksync's index). */
  find(key: string): Promise<RemoteRecord | null>;
  /**
   * The day (YYYY-MM-DD) through which the target refuses or warns on writes: its closed books (QuickBooks'
   * BookCloseDate, Xero's lock dates, Tryton's closed periods); null when none. A document dated on or
   * before it is dated the day after instead, and nothing dated on or before it is voided or edited.
   */
  lockedThrough(): Promise<string | null>;
  /**
   * What a person should know before it stops the pushes (Xero's daily call budget nearly spent), shown on
   * the push workflow (NeedsAttention, LastError); null when nothing is.
   */
  warning(): string | null;
  close(): Promise<void>;
}
