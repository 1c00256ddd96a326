import { describe, expect, it } from 'vitest';
import { decimalOf } from '../../../src/targets/tryton/json-rpc.js';
import { spreadLines } from '../../../src/targets/tryton/reversal-parts.js';

// A payment of several invoices reversed after close, one move per invoice: each part takes its invoice's
// lines and a share of the others, every part balanced, every original line's parts adding up to it.

const line = (
  id: number,
  account: number,
  debitCents: number,
  creditCents: number,
  party: number | null = null,
) => ({
  id,
  account,
  party,
  debit: decimalOf(debitCents),
  credit: decimalOf(creditCents),
  invoice_payment: null,
  reconciliation: null,
});

const sums = (parts: ReturnType<typeof spreadLines>) =>
  parts.map((p) => p.reduce((sum, n) => sum + n.cents, 0));

describe('spreadLines', () => {
  it('a payment of 120.00 and 30.00 from clearing: each part reverses its invoice line and its own amount of clearing', () => {
    const clearing = line(1, 10, 150_00, 0);
    const invoiceLine = line(2, 20, 0, 120_00, 7);
    const memoLine = line(3, 20, 0, 30_00, 7);
    const parts = spreadLines([clearing, invoiceLine, memoLine], [[invoiceLine], [memoLine]]);
    expect(parts.map((p) => p.map((n) => [n.line.id, n.cents]))).toEqual([
      [
        [2, 120_00],
        [1, -120_00],
      ],
      [
        [3, 30_00],
        [1, -30_00],
      ],
    ]);
    expect(sums(parts)).toEqual([0, 0]);
  });

  it('several other lines: shares rounded so each line adds up exactly, the largest balancing each part', () => {
    const clearing = line(1, 10, 99_67, 0);
    const fee = line(2, 11, 0, 0);
    const surcharge = line(3, 12, 0, 3_33);
    const lines = [line(4, 20, 0, 33_33, 7), line(5, 20, 0, 33_33, 7), line(6, 20, 0, 29_68, 7)];
    const all = [clearing, fee, surcharge, ...lines];
    // The original balances: 99.67 debit against 3.33 + 96.34 credit.
    const parts = spreadLines(
      all,
      lines.map((l) => [l]),
    );
    expect(sums(parts)).toEqual([0, 0, 0]);
    const totalOf = (id: number) =>
      parts.flat().reduce((sum, n) => sum + (n.line.id === id ? n.cents : 0), 0);
    expect(totalOf(1)).toBe(-99_67);
    expect(totalOf(3)).toBe(3_33);
    expect(totalOf(2)).toBe(0);
    expect(parts.every((p) => p.some((n) => n.line.id === 3))).toBe(true);
  });
});
