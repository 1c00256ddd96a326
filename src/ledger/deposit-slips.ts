import { Accounts } from './chart-of-accounts.js';
import { type BookedEntry, canonicalContents, isValidDate } from './entry.js';
import { baseKey, keyPrefix } from './entry-key.js';
import { LedgerConflictError } from './errors.js';
import type { LedgerPort } from './ledger-port.js';
import {
  type DepositSlip,
  depositedKeys,
  depositSlipEntry,
  depositSlipKey,
  depositSlipReferencePattern,
  type HeldPayment,
  heldPaymentKinds,
  heldPaymentOf,
} from './mapping/deposit-slip.js';
import { formatUsd } from './money.js';

// Deposit slips against the ledger: which external payments still sit in Checks To Deposit, and booking a
// slip that takes some of them to the bank (mapping/deposit-slip.ts says what the entry is). Everything a
// slip is checked against is in the books: the payment's entry (booked, voided, to which account, on which
// day) and the slips booked before.

/** A slip the books refuse, with the reasons a bookkeeper can act on. Nothing was written. */
export class DepositSlipRefusedError extends Error {
  override readonly name = 'DepositSlipRefusedError';
  readonly reasons: readonly string[];
  constructor(reasons: readonly string[]) {
    super(reasons.join('; '));
    this.reasons = reasons;
  }
}

export interface DepositSlipBooked {
  key: string;
  reference: string;
  date: string;
  totalCents: number;
  payments: HeldPayment[];
  /** false when the same slip was booked already (the command was a no-op). */
  created: boolean;
}

type SlipLedger = Pick<LedgerPort, 'entriesFor' | 'entriesWithLink' | 'get' | 'post' | 'booksClosedThrough'>;

const live = (e: BookedEntry) => e.reverses === null && e.reversedBy === null;

/** The entry keys every live slip took out of Checks To Deposit, with the slip that took each. */
async function depositedBySlips(ledger: Pick<LedgerPort, 'entriesWithLink'>): Promise<Map<string, string>> {
  const deposited = new Map<string, string>();
  for (const slip of await ledger.entriesWithLink('depositSlipId')) {
    if (!live(slip) || keyPrefix(slip.key) !== 'deposit-slip') continue;
    for (const key of depositedKeys(slip)) deposited.set(key, slip.links.depositSlipId ?? slip.key);
  }
  return deposited;
}

/**
 * The external payments still in Checks To Deposit: booked there, not voided, on no slip; oldest first
 * (the day paid, then the entry's key).
 */
export async function paymentsToDeposit(ledger: Pick<LedgerPort, 'entriesWithLink'>): Promise<HeldPayment[]> {
  const [entries, deposited] = await Promise.all([
    ledger.entriesWithLink('externalPaymentId'),
    depositedBySlips(ledger),
  ]);
  return entries
    .map(heldPaymentOf)
    .filter((p): p is HeldPayment => p !== null && !deposited.has(p.entryKey))
    .sort((a, b) => (a.paidOn < b.paidOn ? -1 : a.paidOn > b.paidOn ? 1 : a.entryKey < b.entryKey ? -1 : 1));
}

/** One named payment as the books hold it, or why it cannot be deposited. */
async function heldOrReason(
  ledger: SlipLedger,
  paymentLinkId: string,
  externalPaymentId: string,
): Promise<HeldPayment | string> {
  const name = `external payment ${externalPaymentId} on payment link ${paymentLinkId}`;
  const entries = (await ledger.entriesFor({ externalPaymentId })).filter((e) => e.reverses === null);
  const onLink = entries.filter((e) => e.links.paymentLinkId === paymentLinkId);
  if (entries.length > 0 && onLink.length === 0) {
    return `${name}: the books hold it on payment link ${entries[0]?.links.paymentLinkId ?? '(none)'}`;
  }
  const booked = onLink.filter((e) => heldPaymentKinds.includes(keyPrefix(baseKey(e.key))));
  const current = booked.find(live);
  if (!current) {
    if (booked.length > 0) return `${name} is voided: its entry ${booked[0]?.key} is reversed`;
    if (onLink.some((e) => keyPrefix(e.key) === 'check-application')) {
      return `${name} applies a check deposit, which reaches the bank by its own deposit, not by a slip`;
    }
    return `${name} is not booked: record it (booksync link record-payment) and let it be booked first`;
  }
  if (current.lines.some((l) => l.account === Accounts.OperatingBank && l.amountCents > 0)) {
    return `${name} was booked straight to the operating bank (EXTERNAL_PAYMENTS_ACCOUNT=operating-bank): there is no check to deposit`;
  }
  return heldPaymentOf(current) ?? `${name}: its entry ${current.key} holds nothing in Checks To Deposit`;
}

/**
 * Books a deposit slip: `deposit-slip:{reference}`, Dr Operating Bank / Cr Checks To Deposit, dated the bank
 * date. The same slip again is a no-op (`created: false`); the same reference with other contents, or a
 * slip the books cannot take, is a DepositSlipRefusedError naming every reason, and nothing is written.
 */
export async function bookDepositSlip(ledger: SlipLedger, slip: DepositSlip): Promise<DepositSlipBooked> {
  const reasons: string[] = [];
  if (!depositSlipReferencePattern.test(slip.reference)) {
    reasons.push(
      `reference ${JSON.stringify(slip.reference)}: 1 to 100 characters, no spaces, commas, semicolons or '#'`,
    );
  }
  if (!isValidDate(slip.date)) reasons.push(`date ${JSON.stringify(slip.date)} is not a YYYY-MM-DD day`);
  if (slip.payments.length === 0) reasons.push('a deposit slip names at least one external payment');
  const seen = new Set<string>();
  for (const p of slip.payments) {
    if (seen.has(p.externalPaymentId)) reasons.push(`external payment ${p.externalPaymentId} is named twice`);
    seen.add(p.externalPaymentId);
  }
  if (reasons.length > 0) throw new DepositSlipRefusedError(reasons);

  const found = await Promise.all(
    slip.payments.map((p) => heldOrReason(ledger, p.paymentLinkId, p.externalPaymentId)),
  );
  const held = found.filter((f): f is HeldPayment => typeof f !== 'string');
  const key = depositSlipKey(slip.reference);
  const existing = await ledger.get(key);
  if (existing) {
    const wanted = depositSlipEntry(slip, held);
    const same =
      held.length === found.length &&
      (existing.economicDate ?? existing.date) === slip.date &&
      canonicalContents({ ...wanted, date: existing.date }) === canonicalContents(existing);
    if (same) return booked(slip, held, false);
    const total = existing.lines.reduce((sum, l) => sum + Math.max(l.amountCents, 0), 0);
    throw new DepositSlipRefusedError([
      `deposit slip ${slip.reference} is booked already with other contents (${existing.economicDate ?? existing.date}, ${depositedKeys(existing).length} checks, ${formatUsd(total)}): a slip number is booked once`,
    ]);
  }
  reasons.push(...found.filter((f): f is string => typeof f === 'string'));
  const closedThrough = await ledger.booksClosedThrough();
  if (closedThrough !== null && slip.date <= closedThrough) {
    reasons.push(
      `the books are closed through ${closedThrough}: a deposit slip dated ${slip.date} would be in a closed period`,
    );
  }
  const deposited = await depositedBySlips(ledger);
  for (const p of held) {
    if (p.paidOn > slip.date) {
      reasons.push(
        `external payment ${p.externalPaymentId} was paid on ${p.paidOn}, after the bank date ${slip.date}`,
      );
    }
    const other = deposited.get(p.entryKey);
    if (other !== undefined)
      reasons.push(`external payment ${p.externalPaymentId} is on deposit slip ${other} already`);
  }
  if (reasons.length > 0) throw new DepositSlipRefusedError(reasons);
  try {
    const { created } = await ledger.post(depositSlipEntry(slip, held));
    return booked(slip, held, created);
  } catch (error) {
    if (error instanceof LedgerConflictError) {
      throw new DepositSlipRefusedError([
        `deposit slip ${slip.reference} was booked meanwhile with other contents: a slip number is booked once`,
      ]);
    }
    throw error;
  }
}

function booked(slip: DepositSlip, held: HeldPayment[], created: boolean): DepositSlipBooked {
  return {
    key: depositSlipKey(slip.reference),
    reference: slip.reference,
    date: slip.date,
    totalCents: held.reduce((sum, p) => sum + p.amountCents, 0),
    payments: held,
    created,
  };
}
