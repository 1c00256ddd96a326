import { Accounts } from '../chart-of-accounts.js';
import type { BookedEntry, LedgerEntryInput } from '../entry.js';
import { baseKey, keyPrefix } from '../entry-key.js';

// A deposit slip: the business saying when and where the checks it received outside the service (external
// payments, booked Dr Checks To Deposit) were banked. One entry per slip, `deposit-slip:{reference}`, dated
// the bank date: Dr Operating Bank for the total, and one Cr Checks To Deposit line per external payment,
// whose memo is the key of the entry that put that payment in Checks To Deposit. The memos are how the books
// tell which payments a slip took to the bank (a payment is on at most one slip); the entry's link
// `depositSlipId` finds the slips themselves.

/** One external payment named on a slip: its payment link and its id at the service. */
export interface DepositSlipPayment {
  paymentLinkId: string;
  externalPaymentId: string;
}

/** What the business says of a deposit: which payments, banked on which day, under which slip number. */
export interface DepositSlip {
  /** The slip's number: the entry's key and link; no whitespace, ',', ';' or '#'. */
  reference: string;
  /** YYYY-MM-DD, the day the bank took the deposit. */
  date: string;
  payments: readonly DepositSlipPayment[];
}

/** An external payment as it sits in Checks To Deposit: the live entry that booked it there. */
export interface HeldPayment extends DepositSlipPayment {
  /** The key of the entry booking it Dr Checks To Deposit (`external-payment:{id}`, or a later version). */
  entryKey: string;
  amountCents: number;
  /** The day it was paid (the entry's own date, even when booked later in the first open day). */
  paidOn: string;
}

/** The entry kinds that book money received outside the service into Checks To Deposit. */
export const heldPaymentKinds: readonly string[] = ['external-payment', 'external-sale'];

/** A slip's number as the books take it: 1 to 100 characters, no whitespace, ',', ';' or '#'. */
export const depositSlipReferencePattern = /^[^\s,;#]{1,100}$/;

export const depositSlipKey = (reference: string) => `deposit-slip:${reference}`;

/**
 * The slip's entry: Dr Operating Bank the total / Cr Checks To Deposit each payment (memo: its entry's key),
 * dated the bank date, linked by `depositSlipId`. `held` is the payments, as booked, in the slip's order.
 */
export function depositSlipEntry(slip: DepositSlip, held: readonly HeldPayment[]): LedgerEntryInput {
  const total = held.reduce((sum, p) => sum + p.amountCents, 0);
  return {
    key: depositSlipKey(slip.reference),
    date: slip.date,
    description: `Deposit slip ${slip.reference}: ${held.length} ${held.length === 1 ? 'check' : 'checks'} received outside the service, deposited to the operating bank`,
    lines: [
      { account: Accounts.OperatingBank, amountCents: total },
      ...held.map((p) => ({
        account: Accounts.ChecksToDeposit,
        amountCents: -p.amountCents,
        memo: p.entryKey,
      })),
    ],
    links: { depositSlipId: slip.reference },
  };
}

/** The keys of the entries a booked slip took out of Checks To Deposit (its credit lines' memos). */
export function depositedKeys(slip: Pick<BookedEntry, 'lines'>): string[] {
  return slip.lines
    .filter((l) => l.account === Accounts.ChecksToDeposit && l.amountCents < 0 && l.memo !== undefined)
    .map((l) => l.memo as string);
}

/** The payment a live entry holds in Checks To Deposit; null for any other entry. */
export function heldPaymentOf(
  entry: Pick<BookedEntry, 'key' | 'date' | 'economicDate' | 'lines' | 'links' | 'reverses' | 'reversedBy'>,
): HeldPayment | null {
  if (entry.reverses !== null || entry.reversedBy !== null) return null;
  if (!heldPaymentKinds.includes(keyPrefix(baseKey(entry.key)))) return null;
  const { paymentLinkId, externalPaymentId } = entry.links;
  const checks = entry.lines.find((l) => l.account === Accounts.ChecksToDeposit && l.amountCents > 0);
  if (!paymentLinkId || !externalPaymentId || !checks) return null;
  return {
    paymentLinkId,
    externalPaymentId,
    entryKey: entry.key,
    amountCents: checks.amountCents,
    paidOn: entry.economicDate ?? entry.date,
  };
}
