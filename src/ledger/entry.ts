import { type AccountName, isAccountName } from './chart-of-accounts.js';
import { isReversalKey, isValidKey } from './entry-key.js';
import { LedgerValidationError } from './errors.js';
import { isSafeCents } from './money.js';

// Amount convention: one signed integer per line, hledger's: positive = debit, negative = credit.
// An entry balances when its lines sum to exactly zero.

/** The service objects an entry concerns; every field is optional and filterable. */
export interface EntryLinks {
  paymentLinkId?: string;
  paymentId?: string;
  customerId?: string;
  disbursementId?: string;
  checkDepositId?: string;
  billPaymentId?: string;
  externalPaymentId?: string;
  debitMemoId?: string;
  refundId?: string;
  vendorId?: string;
  /** The bill a payable entry concerns (the service's bill id). */
  billId?: string;
  /** The deposit slip (its reference, the slip number) that took checks received outside the service to the bank. */
  depositSlipId?: string;
}

export const linkFields = [
  'paymentLinkId',
  'paymentId',
  'customerId',
  'disbursementId',
  'checkDepositId',
  'billPaymentId',
  'externalPaymentId',
  'debitMemoId',
  'refundId',
  'vendorId',
  'billId',
  'depositSlipId',
] as const satisfies readonly (keyof EntryLinks)[];

export type LinkField = (typeof linkFields)[number];

export interface EntryLine {
  account: AccountName;
  /** Positive = debit, negative = credit; a non-zero safe integer. */
  amountCents: number;
  memo?: string;
}

/** What a caller posts. */
export interface LedgerEntryInput {
  key: string;
  /** YYYY-MM-DD, the accounting date (when the money moved), not when it was booked. */
  date: string;
  description: string;
  lines: readonly EntryLine[];
  links?: EntryLinks;
}

/** An entry as booked. Immutable: corrections are reversing entries. */
export interface BookedEntry {
  id: number;
  key: string;
  date: string;
  description: string;
  lines: EntryLine[];
  links: EntryLinks;
  /** For a reversing entry, the key it reverses. */
  reverses: string | null;
  /** The key of the entry that reverses this one, if any. */
  reversedBy: string | null;
  /** Hash of the contents (everything but the key and bookkeeping timestamps). */
  contentHash: string;
  /** ISO date-time when the ledger wrote the entry. */
  createdAt: string;
  /**
   * The entry's own date when that day was in a closed period as it was booked: it is then dated on the
   * first open day (`date`), and this keeps when the money really moved. Absent otherwise.
   */
  economicDate?: string;
}

export interface PostResult {
  entry: BookedEntry;
  /** false when the key was already booked with the same contents (the post was a no-op). */
  created: boolean;
}

/** The contents compared for idempotency: date, description, lines, links and what a reversal reverses. */
export interface EntryContents {
  date: string;
  description: string;
  lines: readonly EntryLine[];
  links?: EntryLinks;
  reverses?: string | null;
}

const MAX_TEXT = 500;
const MAX_LINK = 200;
const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isValidDate(date: string): boolean {
  const m = datePattern.exec(date);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const probe = new Date(Date.UTC(y, mo - 1, d));
  return probe.getUTCFullYear() === y && probe.getUTCMonth() === mo - 1 && probe.getUTCDate() === d;
}

function checkText(what: string, value: unknown, required: boolean): void {
  if (value === undefined && !required) return;
  if (typeof value !== 'string' || (required && value.trim() === '')) {
    throw new LedgerValidationError(`${what} must be a non-empty string`);
  }
  // One line each in the journal; a newline would break the hledger export.
  if (value.length > MAX_TEXT || /[\r\n]/.test(value)) {
    throw new LedgerValidationError(`${what} must be one line of at most ${MAX_TEXT} characters`);
  }
}

/** Drops undefined link fields and rejects unknown ones, so two equal link sets compare equal. */
export function normalizeLinks(links: EntryLinks | undefined): EntryLinks {
  const out: EntryLinks = {};
  if (links === undefined) return out;
  for (const [field, value] of Object.entries(links)) {
    if (value === undefined || value === null) continue;
    if (!(linkFields as readonly string[]).includes(field)) {
      throw new LedgerValidationError(`unknown link field ${field}`);
    }
    // Links become hledger tags, whose values end at a comma or a line end.
    if (typeof value !== 'string' || value === '' || value.length > MAX_LINK || /[\s,;]/.test(value)) {
      throw new LedgerValidationError(`link ${field} must be an id without spaces, commas or semicolons`);
    }
    out[field as LinkField] = value;
  }
  return out;
}

/**
 * Checks an entry is acceptable double-entry and returns it normalized (links without undefined values).
 * Throws LedgerValidationError otherwise. `allowReversalKey` is for the ledger's own reversing entries.
 */
export function validateEntry(input: LedgerEntryInput, allowReversalKey = false): LedgerEntryInput {
  if (typeof input.key !== 'string' || !isValidKey(input.key)) {
    throw new LedgerValidationError(`bad entry key ${JSON.stringify(input.key)}`);
  }
  if (isReversalKey(input.key) && !allowReversalKey) {
    throw new LedgerValidationError(`keys starting with reversal: are reserved for reverse(): ${input.key}`);
  }
  if (typeof input.date !== 'string' || !isValidDate(input.date)) {
    throw new LedgerValidationError(`entry ${input.key}: date must be a YYYY-MM-DD calendar date`);
  }
  checkText(`entry ${input.key}: description`, input.description, true);
  if (!Array.isArray(input.lines) || input.lines.length < 2) {
    throw new LedgerValidationError(`entry ${input.key}: needs at least two lines`);
  }
  let sum = 0n;
  const lines: EntryLine[] = input.lines.map((line, i) => {
    if (typeof line.account !== 'string' || !isAccountName(line.account)) {
      throw new LedgerValidationError(`entry ${input.key} line ${i + 1}: unknown account ${line.account}`);
    }
    if (!isSafeCents(line.amountCents) || line.amountCents === 0) {
      throw new LedgerValidationError(
        `entry ${input.key} line ${i + 1}: amountCents must be a non-zero safe integer, got ${line.amountCents}`,
      );
    }
    checkText(`entry ${input.key} line ${i + 1}: memo`, line.memo, false);
    sum += BigInt(line.amountCents);
    // Running totals are stored (the database re-checks balance from them), so they must stay exact.
    if (sum > BigInt(Number.MAX_SAFE_INTEGER) || sum < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw new LedgerValidationError(`entry ${input.key}: running total leaves the safe integer range`);
    }
    return line.memo === undefined
      ? { account: line.account, amountCents: line.amountCents }
      : { account: line.account, amountCents: line.amountCents, memo: line.memo };
  });
  if (sum !== 0n) {
    throw new LedgerValidationError(`entry ${input.key}: lines sum to ${sum} cents, not zero (unbalanced)`);
  }
  return {
    key: input.key,
    date: input.date,
    description: input.description,
    lines,
    links: normalizeLinks(input.links),
  };
}

/**
 * A canonical string of an entry's contents: line order does not matter, undefined links do not matter.
 * Pure and dependency-free, so workflow code and reconciliation can compare contents without a hash.
 */
export function canonicalContents(entry: EntryContents): string {
  const lines = entry.lines
    .map((l) => [l.account, l.amountCents, l.memo ?? null] as const)
    .sort((a, b) => compare(a[0], b[0]) || a[1] - b[1] || compare(a[2] ?? '', b[2] ?? ''));
  const links = Object.entries(normalizeLinks(entry.links)).sort(([a], [b]) => compare(a, b));
  return JSON.stringify({
    date: entry.date,
    description: entry.description,
    lines,
    links,
    reverses: entry.reverses ?? null,
  });
}

// Code-unit order, not locale order: the canonical form must not depend on the machine.
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
