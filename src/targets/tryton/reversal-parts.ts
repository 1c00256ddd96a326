import type { OriginalLine } from './helpers.js';
import { centsOf, decimalOf, isoDateOf, type TrytonDecimal } from './json-rpc.js';
import type { TrytonSession } from './session.js';

// A payment of several invoices (a link's invoice and its memo) reversed after its month closed: the lines
// it paid stay reconciled with each invoice in the closed period, so each invoice is owed again through a
// move of the open period among its additional moves (owed-again.ts). A move's lines on the receivable
// account are lines to pay of every invoice it is an additional move of, and Tryton refuses payment lines
// beyond an invoice's lines to pay (`Invoice.check_payment_lines`): one reversing move cannot serve two
// invoices. The reversal is then one move per invoice the payment paid, each taking that invoice's lines
// and its share of the others (the bank or clearing side), as the payment reversed document by document;
// created in one call (one transaction: all or none) and posted in one.

/** An original line with what says whether it is one invoice's payment in the closed period. */
export interface PaidLine extends OriginalLine {
  invoice_payment: number | null;
  reconciliation: number | null;
}

export const paidLineFields = ['account', 'party', 'debit', 'credit', 'invoice_payment', 'reconciliation'];

/**
 * What a reversing line's description adds when the line it reverses paid an invoice: the invoice, which the
 * reversal owes again and which money applied to the return later pays (owed-again.ts spreadOverOwedAgain).
 */
export const paidNote = (line: { invoice_payment: number | null }) =>
  line.invoice_payment !== null ? ` (paid invoice ${line.invoice_payment})` : '';

/** The invoices a reversing move's line descriptions name (paidNote). */
export const invoicesNamed = (descriptions: readonly (string | null)[]) => [
  ...new Set(
    descriptions.flatMap((d) => [...(d ?? '').matchAll(/\(paid invoice (\d+)\)/g)].map((m) => Number(m[1]))),
  ),
];

/**
 * The original's lines in one group per invoice they paid, when two or more invoices were paid by lines
 * reconciled on or before the lock (those reconciliations stay); null when one move reverses it (one invoice
 * or none, or reconciliations the reversal may undo).
 */
export async function partsPerInvoice(
  s: TrytonSession,
  lines: readonly PaidLine[],
  lock: string | null,
): Promise<PaidLine[][] | null> {
  if (lock === null) return null;
  const paying = lines.filter((l) => l.invoice_payment !== null && l.reconciliation !== null);
  if (new Set(paying.map((l) => l.invoice_payment)).size < 2) return null;
  const reconciliations = await s.rpc.model<{ id: number; date: unknown }[]>(
    'account.move.reconciliation',
    'read',
    [...new Set(paying.map((l) => l.reconciliation as number))],
    ['date'],
  );
  const closed = new Set(
    reconciliations.flatMap((r) => {
      const on = isoDateOf(r.date);
      return on !== null && on <= lock ? [r.id] : [];
    }),
  );
  const kept = paying.filter((l) => closed.has(l.reconciliation as number));
  const invoices = [...new Set(kept.map((l) => l.invoice_payment as number))].sort((a, b) => a - b);
  if (invoices.length < 2) return null;
  return invoices.map((invoice) => kept.filter((l) => l.invoice_payment === invoice));
}

/** A reversing line: the original's debit and credit swapped, in cents. */
interface Negated {
  line: PaidLine;
  cents: number;
}

const balanceOf = (l: OriginalLine) => centsOf(l.credit) - centsOf(l.debit);

/**
 * The reversing lines of each part: its invoice's lines negated, and each other line of the original spread
 * over the parts by their weight (cumulative rounding, so each line's parts add up to it exactly), the
 * largest of them taking what balances each part.
 */
export function spreadLines(lines: readonly PaidLine[], groups: readonly PaidLine[][]): Negated[][] {
  const own = new Set(groups.flat().map((l) => l.id));
  const others = lines.filter((l) => !own.has(l.id));
  const weights = groups.map((g) => g.reduce((sum, l) => sum + balanceOf(l), 0));
  const total = weights.reduce((a, b) => a + b, 0);
  const largest = others.reduce<PaidLine | null>(
    (best, l) => (best === null || Math.abs(balanceOf(l)) > Math.abs(balanceOf(best)) ? l : best),
    null,
  );
  const parts = groups.map((g) => g.map((line) => ({ line, cents: balanceOf(line) })));
  for (const line of others) {
    if (line === largest) continue;
    let before = 0;
    let weightBefore = 0;
    for (const [k, part] of parts.entries()) {
      weightBefore += weights[k] as number;
      const upTo = total === 0 ? 0 : Math.round((balanceOf(line) * weightBefore) / total);
      if (upTo - before !== 0) part.push({ line, cents: upTo - before });
      before = upTo;
    }
  }
  if (largest) {
    for (const part of parts) {
      const rest = -part.reduce((sum, n) => sum + n.cents, 0);
      if (rest !== 0) part.push({ line: largest, cents: rest });
    }
  }
  return parts;
}

/** The values of one reversing line in Tryton's terms. */
export function negatedValues(n: Negated, description: string) {
  const amount = (cents: number): TrytonDecimal => decimalOf(cents);
  return {
    account: n.line.account,
    ...(n.line.party !== null ? { party: n.line.party } : {}),
    debit: amount(Math.max(n.cents, 0)),
    credit: amount(Math.max(-n.cents, 0)),
    origin: `account.move.line,${n.line.id}`,
    description: `${description}${paidNote(n.line)}`,
  };
}
