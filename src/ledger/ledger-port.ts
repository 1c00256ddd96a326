import type { AccountName, AccountType } from './chart-of-accounts.js';
import type { BookedEntry, EntryLinks, LedgerEntryInput, LinkField, PostResult } from './entry.js';
import type { WriteOff, WriteOffInput, WriteOffRecorded } from './write-offs.js';

export type { BookedEntry, EntryLine, EntryLinks, LedgerEntryInput, PostResult } from './entry.js';
export type { WriteOff, WriteOffInput, WriteOffRecorded } from './write-offs.js';

export interface ReverseOptions {
  /** Why the entry is reversed (an ACH return, a voided record...); kept in the reversal's description. */
  reason: string;
  /** YYYY-MM-DD accounting date of the reversal. */
  date: string;
}

export interface AccountBalance {
  account: AccountName;
  title: string;
  type: AccountType;
  /** Sum of debits (positive). */
  debitCents: number;
  /** Sum of credits (positive). */
  creditCents: number;
  /** debitCents - creditCents: positive is a debit balance, negative a credit balance. */
  balanceCents: number;
}

export interface TrialBalance {
  /** Every account of the chart, in chart order, including accounts never used. */
  accounts: AccountBalance[];
  totalDebitCents: number;
  totalCreditCents: number;
  /** true when total debits equal total credits (always, for a sound ledger). */
  balanced: boolean;
}

/** One closing of the books: through which day, when, why, and whether it was forced past a failing certificate. */
export interface BooksClosing {
  through: string;
  /** ISO date-time the closing was recorded. */
  at: string;
  reason: string;
  /** true when the period's certificate did not pass and the closing was forced (its reason says why). */
  forced: boolean;
}

export interface BooksOpening {
  opensOn: string;
  balancesBooked: boolean;
}

/**
 * What one document (an invoice: payment link; a bill) still owes in the books: the balance of its
 * receivable or payable lines, with its counterparty (customer or vendor) when the books know it.
 */
export interface OpenItem {
  /** The payment link id (receivable) or bill id (payable); null for lines booked without a document. */
  documentId: string | null;
  counterpartyId: string | null;
  /** What is still owed, positive when owed (to the business for receivables, by it for payables). */
  openCents: number;
}

/**
 * What the workflows' activities write through. Async so adapters to accounting software (QuickBooks,
 * Xero, hledger-web) can implement it; the embedded ledger is the first implementation.
 *
 * Amounts: integer cents, positive = debit, negative = credit.
 */
export interface LedgerPort {
  /**
   * Books an entry under its deterministic key. Same key and same contents: a no-op returning the existing
   * entry (`created: false`). Same key, different contents: LedgerConflictError. Invalid entry
   * (unbalanced, unknown account, unsafe amount...): LedgerValidationError.
   */
  post(entry: LedgerEntryInput): Promise<PostResult>;
  /**
   * Books `reversal:{key}`, the original's lines negated, linked to it (`reverses: key`). At most once: a
   * second call returns the existing reversal (`created: false`). Unknown key: LedgerEntryNotFoundError.
   */
  reverse(key: string, options: ReverseOptions): Promise<PostResult>;
  /**
   * Books several entries in one transaction, all or nothing (a backfill's page): each follows post()'s
   * rules, and any LedgerConflictError or LedgerValidationError writes none of them. Results in input order.
   */
  postMany(entries: readonly LedgerEntryInput[]): Promise<PostResult[]>;
  get(key: string): Promise<BookedEntry | null>;
  /**
   * The entries of these keys read in one query (a push's slice): found ones by key, unknown keys absent.
   */
  getMany(keys: readonly string[]): Promise<Map<string, BookedEntry>>;
  isReversed(key: string): Promise<boolean>;
  /** Everything booked for the given links (all given fields must match), reversals included, oldest first. */
  entriesFor(filter: EntryLinks): Promise<BookedEntry[]>;
  /**
   * Every entry carrying the link field at all (every payout's entries: `disbursementId`), reversals
   * included, oldest first: read through the field's index, not the whole ledger.
   */
  entriesWithLink(field: LinkField): Promise<BookedEntry[]>;
  /**
   * Every entry, oldest first, read a page at a time (certificates, resyncs, exports of large books): one
   * consistent view of the books as they were when the read began, never the whole ledger in one array.
   */
  entries(options?: { pageSize?: number }): AsyncIterable<BookedEntry>;
  /** entries() gathered into one array: for small books, exports and tests. */
  allEntries(): Promise<BookedEntry[]>;
  /** Per-account balances of every account in the chart. */
  balances(): Promise<AccountBalance[]>;
  trialBalance(): Promise<TrialBalance>;
  /** Signed balance (debit positive) of one account. */
  balanceOf(account: AccountName): Promise<number>;
  /** Receivables per invoice (payment link) or payables per bill: "what does INV-1006 still owe". */
  openItems(side: 'receivable' | 'payable'): Promise<OpenItem[]>;
  /**
   * The day the books open (YYYY-MM-DD), set by a backfill: money of objects settled before it is in
   * Opening Balances, so their entries dated before it are never posted (src/ledger/opening-balances.ts).
   * null: the books hold everything booksync has seen, from the start.
   */
  booksOpenOn(): Promise<string | null>;
  /** The books' opening: its day, and whether the backfill booked its opening balances (it finished). */
  booksOpening(): Promise<BooksOpening | null>;
  /**
   * Sets the day the books open, once. The same day again is a no-op (`created: false`); another day:
   * BooksAlreadyOpenError (the books cannot start twice).
   */
  openBooks(date: string): Promise<{ opensOn: string; created: boolean }>;
  /**
   * The last day of the closed period (YYYY-MM-DD), or null while no period is closed. An entry posted with a
   * date on or before it (post, postMany, reverse) is booked on the first open day with its own date as
   * `economicDate`; the database refuses any entry dated in the closed period.
   */
  booksClosedThrough(): Promise<string | null>;
  /** Every closing of the books, oldest first. */
  booksClosings(): Promise<BooksClosing[]>;
  /**
   * Closes the books through `through`, recorded with its reason. The same day again: no-op
   * (`created: false`); an earlier day: BooksClosedError (a closed period never reopens); not a day, or no
   * reason: LedgerValidationError.
   */
  closeBooks(
    through: string,
    record: { reason: string; forced: boolean },
  ): Promise<{ closedThrough: string; created: boolean }>;
  /** Records that the opening balances of the books opened on `date` are booked (once; BooksAlreadyOpenError if the books open on another day or not at all). */
  markOpeningBalancesBooked(date: string): Promise<void>;
  /**
   * Records the business's write-off of what a payment link still owes (write-offs.ts), before the link's
   * amount is lowered at the service. The same id and contents again: a no-op (`created: false`); the same id
   * with other contents: WriteOffConflictError; an invalid one: LedgerValidationError.
   */
  recordWriteOff(writeOff: WriteOffInput): Promise<WriteOffRecorded>;
  /**
   * Withdraws a write-off whose lowering never reached the service: it covers nothing from then on. Once; a
   * second call returns it as it is. Unknown id: null.
   */
  withdrawWriteOff(id: string): Promise<WriteOff | null>;
  /** The link's write-offs, withdrawn ones included, oldest first. */
  writeOffsFor(paymentLinkId: string): Promise<WriteOff[]>;
}

/**
 * Every method of the port, by name: a decorator's test checks it forwards each one (the compiler keeps this
 * list equal to the interface: a method added to the port and not here, or here and not in the port, fails
 * the typecheck).
 */
export const ledgerPortMethods = Object.keys({
  post: true,
  reverse: true,
  postMany: true,
  get: true,
  getMany: true,
  isReversed: true,
  entriesFor: true,
  entriesWithLink: true,
  entries: true,
  allEntries: true,
  balances: true,
  trialBalance: true,
  balanceOf: true,
  openItems: true,
  booksOpenOn: true,
  booksOpening: true,
  openBooks: true,
  markOpeningBalancesBooked: true,
  booksClosedThrough: true,
  booksClosings: true,
  closeBooks: true,
  recordWriteOff: true,
  withdrawWriteOff: true,
  writeOffsFor: true,
} satisfies Record<keyof LedgerPort, true>) as (keyof LedgerPort)[];
