import { describe, expect, it } from 'vitest';
import { addOpen, checkedDay, ownerOf, reportCents } from '../../src/targets/target-figures.js';

// The figures port's helpers: report amounts to cents through their digits, the link or bill a
// document at a target belongs to.

describe('target figures', () => {
  it('reads report amounts as integer cents, never through a float', () => {
    expect(reportCents('1201.00')).toBe(120100);
    expect(reportCents('1,234.5')).toBe(123450);
    expect(reportCents('-0.07')).toBe(-7);
    expect(reportCents('(12.34)')).toBe(-1234);
    expect(reportCents('')).toBe(0);
    expect(reportCents(undefined)).toBe(0);
    expect(reportCents('0.29')).toBe(29); // 0.29 * 100 is 28.999999999999996 as a float
    expect(reportCents('90071992547409.91')).toBe(9007199254740991);
    expect(() => reportCents('1.234')).toThrow(/not an amount/);
    expect(() => reportCents('abc')).toThrow(/not an amount/);
  });

  it('attributes a document to its link or bill: the note first, else its key', () => {
    expect(ownerOf('debit-memo:dm1', 'booksync key=debit-memo:dm1 hash=h booksync link=pl_9')).toEqual({
      paymentLinkId: 'pl_9',
    });
    expect(ownerOf('reversal:bill-payment-sent:bp', 'x; booksync key=k hash=h booksync bill=b_1')).toEqual({
      billId: 'b_1',
    });
    expect(ownerOf('invoice:pl:with:colons#2', '')).toEqual({ paymentLinkId: 'pl:with:colons' });
    expect(ownerOf('invoice-adjustment:pl_1:3', '')).toEqual({ paymentLinkId: 'pl_1' });
    expect(ownerOf('bill:b_2', null)).toEqual({ billId: 'b_2' });
    expect(ownerOf('debit-memo:dm1', 'no note')).toBeNull();
    expect(ownerOf(null, undefined)).toBeNull();
  });

  it('adds open amounts per key and leaves zero out', () => {
    const open: Record<string, number> = {};
    addOpen(open, 'pl', 250_00);
    addOpen(open, 'pl', 15_00);
    addOpen(open, 'gone', 0);
    addOpen(open, 'paid', 10_00);
    addOpen(open, 'paid', -10_00);
    expect(open).toEqual({ pl: 265_00 });
  });

  it('checks the day', () => {
    expect(checkedDay('2026-02-28')).toBe('2026-02-28');
    expect(() => checkedDay('2026-02-29')).toThrow(RangeError);
    expect(() => checkedDay('2026-1-31')).toThrow(RangeError);
  });
});
