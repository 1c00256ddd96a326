import { describe, expect, it } from 'vitest';
import { compareWithTarget, ledgerFiguresAsOf } from '../../src/close/target-comparison.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import type { BookedEntry } from '../../src/ledger/entry.js';
import type { TargetFigures } from '../../src/targets/target-figures.js';

// The third side of the close certificate: the ledger as of the period's last day against a target's own
// figures as of that day. The targets' own reports are read by the adapters (test/targets/*figures*).

let id = 0;
function entry(
  key: string,
  date: string,
  debit: string,
  credit: string,
  cents: number,
  links = {},
): BookedEntry {
  return {
    id: ++id,
    key,
    date,
    description: key,
    lines: [
      { account: debit as never, amountCents: cents },
      { account: credit as never, amountCents: -cents },
    ],
    links,
    reverses: null,
    reversedBy: null,
    contentHash: 'h',
    createdAt: 't',
  };
}

const books = [
  entry('invoice:pl_1', '2026-01-05', Accounts.AccountsReceivable, Accounts.Revenue, 100_00, {
    paymentLinkId: 'pl_1',
  }),
  entry('payment:p1', '2026-01-20', Accounts.ProcessorClearing, Accounts.AccountsReceivable, 40_00, {
    paymentLinkId: 'pl_1',
    paymentId: 'p1',
  }),
  entry('bill:b1', '2026-01-10', Accounts.BillExpenses, Accounts.AccountsPayable, 70_00, { billId: 'b1' }),
  // February: the rest of the invoice paid.
  entry('payment:p2', '2026-02-03', Accounts.ProcessorClearing, Accounts.AccountsReceivable, 60_00, {
    paymentLinkId: 'pl_1',
    paymentId: 'p2',
  }),
];

const januaryAtTarget = (): TargetFigures => ({
  asOf: '2026-01-31',
  balances: {
    ProcessorClearing: 40_00,
    AccountsReceivable: 60_00,
    Revenue: -100_00,
    OperatingBank: 12_345_00,
  },
  openInvoices: { pl_1: 60_00 },
  openBills: { b1: 70_00 },
});

describe('the ledger against a target, as of a day', () => {
  it('counts only entries dated up to the day', () => {
    const jan = ledgerFiguresAsOf(books, '2026-01-31');
    expect(jan.balances.ProcessorClearing).toBe(40_00);
    expect(jan.openInvoices).toEqual({ pl_1: 60_00 });
    expect(jan.openBills).toEqual({ b1: 70_00 });
    const feb = ledgerFiguresAsOf(books, '2026-02-28');
    expect(feb.balances.ProcessorClearing).toBe(100_00);
    expect(feb.openInvoices).toEqual({ pl_1: 0 });
  });

  it('agrees when the target reports the same: its own bank balance is shown, not compared', () => {
    const result = compareWithTarget('quickbooks', ledgerFiguresAsOf(books, '2026-01-31'), januaryAtTarget());
    expect(result.ok).toBe(true);
    expect(result.problems).toEqual([]);
    expect(result.agreeingDocuments).toBe(2);
    expect(result.accounts.find((a) => a.role === 'OperatingBank')).toEqual({
      role: 'OperatingBank',
      ledgerCents: 0,
      targetCents: 12_345_00,
      compared: false,
      ok: true,
    });
  });

  it('names a document edited by hand at the target, with the ledger entries behind it', () => {
    const edited = januaryAtTarget();
    edited.openInvoices.pl_1 = 55_00;
    const result = compareWithTarget('xero', ledgerFiguresAsOf(books, '2026-01-31'), edited);
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([
      'xero: invoice pl_1 open as of 2026-01-31: ledger 6000 cents, target 5500 cents (ledger entries: invoice:pl_1, payment:p1)',
    ]);
  });

  it('names a clearing account that differs, and a document only the target has', () => {
    const figures = januaryAtTarget();
    figures.balances.ProcessorClearing = 39_00;
    figures.openBills['Bill:77'] = 10_00;
    const result = compareWithTarget('tryton', ledgerFiguresAsOf(books, '2026-01-31'), figures);
    expect(result.problems).toEqual([
      'tryton: ProcessorClearing as of 2026-01-31: ledger 4000 cents, target 3900 cents',
      'tryton: bill Bill:77 open as of 2026-01-31: ledger 0 cents, target 1000 cents',
    ]);
  });

  it('refuses figures of another day than the ledger', () => {
    expect(() =>
      compareWithTarget('quickbooks', ledgerFiguresAsOf(books, '2026-02-28'), januaryAtTarget()),
    ).toThrow(RangeError);
  });
});
