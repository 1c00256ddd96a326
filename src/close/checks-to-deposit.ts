import type { BookedEntry } from '../ledger/entry.js';
import { keyPrefix } from '../ledger/entry-key.js';
import { depositedKeys, type HeldPayment, heldPaymentOf } from '../ledger/mapping/deposit-slip.js';

/** An external payment recorded as received and on no deposit slip yet, at the period's end. */
export interface CheckToDeposit extends Pick<HeldPayment, 'paymentLinkId' | 'externalPaymentId' | 'paidOn'> {
  amountCents: number;
  /** Days from the day it was paid to the period's last day. */
  ageDays: number;
}

const dayMs = 86_400_000;
const daysBetween = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / dayMs);

/**
 * What Checks To Deposit holds at the end of `day`: the external payments paid by then and taken to the bank
 * by no deposit slip dated by then, oldest first, with their age. A finding for the bookkeeper (a check
 * still in a drawer, or banked without its slip recorded), not a failure: the service cannot tell when a
 * check it never saw reached the bank.
 */
export function checksToDepositAsOf(entries: readonly BookedEntry[], day: string): CheckToDeposit[] {
  const live = (e: BookedEntry) => e.reverses === null && e.reversedBy === null;
  const deposited = new Set(
    entries
      .filter((e) => live(e) && keyPrefix(e.key) === 'deposit-slip' && (e.economicDate ?? e.date) <= day)
      .flatMap(depositedKeys),
  );
  return entries
    .map((e) => {
      const held = heldPaymentOf(e);
      return held && held.paidOn <= day && !deposited.has(held.entryKey) ? held : null;
    })
    .filter((p): p is HeldPayment => p !== null)
    .sort((a, b) => (a.paidOn < b.paidOn ? -1 : a.paidOn > b.paidOn ? 1 : a.entryKey < b.entryKey ? -1 : 1))
    .map((p) => ({
      paymentLinkId: p.paymentLinkId,
      externalPaymentId: p.externalPaymentId,
      paidOn: p.paidOn,
      amountCents: p.amountCents,
      ageDays: daysBetween(p.paidOn, day),
    }));
}
