import { describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import {
  type BillForBooks,
  type BillPaymentForBooks,
  billBeforeOpening,
  billEntries,
  openingBillEntry,
} from '../../src/ledger/mapping/index.js';

// A bill of last period still owed when the books open is an opening document: `bill:<id>` dated the day
// before the opening, Dr Opening Balances / Cr Accounts Payable for what it owed that day (its amount less
// the payment in hand when that was sent before the opening and did not fail). Figures worked out by hand.

const opensOn = '2026-03-10';
const bill: BillForBooks = {
  id: 'bill_old',
  vendorId: 'ven_1',
  amountCents: 50_000,
  createdAt: '2026-02-20T15:00:00Z',
};
const payment = (overrides: Partial<BillPaymentForBooks> = {}): BillPaymentForBooks => ({
  id: 'bp_1',
  billId: 'bill_old',
  vendorId: 'ven_1',
  amountCents: 20_000,
  status: 'PENDING',
  sentAt: '2026-03-03T12:00:00Z',
  completedAt: null,
  deliveryMethodType: 'ACH',
  ...overrides,
});

describe('the opening document of a bill owed when the books open', () => {
  it('owed whole (its payment sent after the opening): Dr Opening Balances / Cr A/P, the day before', () => {
    const entry = openingBillEntry(bill, opensOn, 'UTC', payment({ sentAt: '2026-03-15T12:00:00Z' }));
    expect(entry).toEqual({
      key: 'bill:bill_old',
      date: '2026-03-09',
      description:
        'Opening balance of bill bill_old from vendor ven_1, owed when the books opened on 2026-03-10',
      lines: [
        { account: Accounts.OpeningBalances, amountCents: 50_000 },
        { account: Accounts.AccountsPayable, amountCents: -50_000 },
      ],
      links: { billId: 'bill_old', vendorId: 'ven_1' },
    });
    // No payment in hand: the whole bill.
    expect(openingBillEntry(bill, opensOn, 'UTC')?.lines[1]?.amountCents).toBe(-50_000);
  });

  it('partly paid before the opening: what was left', () => {
    const entry = openingBillEntry(bill, opensOn, 'UTC', payment());
    expect(entry?.lines).toEqual([
      { account: Accounts.OpeningBalances, amountCents: 30_000 },
      { account: Accounts.AccountsPayable, amountCents: -30_000 },
    ]);
    // A check sent before the opening and deposited after it paid the bill when it was sent.
    const check = payment({
      deliveryMethodType: 'CHECK',
      status: 'SUCCEEDED',
      completedAt: '2026-03-12T12:00:00Z',
    });
    expect(openingBillEntry(bill, opensOn, 'UTC', check)?.lines[0]?.amountCents).toBe(30_000);
  });

  it('a payment that failed, or one of another bill, paid nothing of it', () => {
    const failed = payment({ status: 'FAILED' });
    expect(openingBillEntry(bill, opensOn, 'UTC', failed)?.lines[0]?.amountCents).toBe(50_000);
    const other = payment({ billId: 'bill_other' });
    expect(openingBillEntry(bill, opensOn, 'UTC', other)?.lines[0]?.amountCents).toBe(50_000);
  });

  it('paid in full before the opening: nothing', () => {
    expect(openingBillEntry(bill, opensOn, 'UTC', payment({ amountCents: 50_000 }))).toBeNull();
  });

  it('created on or after the opening day is no bill of last period: booked as any bill, on its creation day', () => {
    const later = { ...bill, createdAt: '2026-03-10T09:00:00Z' };
    expect(billBeforeOpening(bill, opensOn, 'UTC')).toBe(true);
    expect(billBeforeOpening(later, opensOn, 'UTC')).toBe(false);
    expect(billEntries(later, 'UTC').map((e) => [e.key, e.date, e.lines])).toEqual([
      [
        'bill:bill_old',
        '2026-03-10',
        [
          { account: Accounts.BillExpenses, amountCents: 50_000 },
          { account: Accounts.AccountsPayable, amountCents: -50_000 },
        ],
      ],
    ]);
    // The business's day: 02:00 UTC on the opening day is the evening before in New York.
    const evening = { ...bill, createdAt: '2026-03-10T02:00:00Z' };
    expect(billBeforeOpening(evening, opensOn, 'America/New_York')).toBe(true);
  });
});
