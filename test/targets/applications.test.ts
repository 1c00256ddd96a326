import { describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import type { BookedEntry } from '../../src/ledger/entry.js';
import { applicationsOf, reapplicationsOf } from '../../src/targets/applications.js';

// How money on a payment link settles the link's documents at every target: oldest first,
// each up to what it owes, the rest the customer's credit; worked out from the link's ledger entries alone.

let id = 0;
function entry(key: string, receivableCents: number, reverses: string | null = null): BookedEntry {
  const other = key.startsWith('debit-memo') ? Accounts.FeeIncome : Accounts.Revenue;
  return {
    id: ++id,
    key,
    date: '2026-01-10',
    description: key,
    lines: [
      { account: Accounts.AccountsReceivable, amountCents: receivableCents },
      {
        account: receivableCents > 0 ? other : Accounts.ProcessorClearing,
        amountCents: -receivableCents,
      },
    ],
    links: { paymentLinkId: 'pl_1' },
    reverses,
    reversedBy: null,
    contentHash: 'x'.repeat(64),
    createdAt: '2026-01-10T00:00:00Z',
  };
}
const reversal = (of: BookedEntry) =>
  entry(
    `reversal:${of.key}`,
    -(of.lines.find((l) => l.account === Accounts.AccountsReceivable)?.amountCents ?? 0),
    of.key,
  );

describe('applicationsOf: money on a link settles its documents oldest first', () => {
  it('a payment of the link and its memo pays both, each in full', () => {
    const book = [entry('invoice:pl_1', 10_000), entry('debit-memo:dm_1', 2_500)];
    const payment = entry('payment:py_1', -12_500);
    expect(applicationsOf(payment, [...book, payment])).toEqual({
      applied: [
        { key: 'invoice:pl_1', amountCents: 10_000 },
        { key: 'debit-memo:dm_1', amountCents: 2_500 },
      ],
      unappliedCents: 0,
    });
  });

  it('a second payment pays what the first left, oldest document first', () => {
    const book = [entry('invoice:pl_1', 10_000), entry('debit-memo:dm_1', 2_500)];
    const first = entry('payment:py_1', -3_000);
    book.push(first);
    const second = entry('external-payment:ep_1', -9_500);
    expect(applicationsOf(first, book)?.applied).toEqual([{ key: 'invoice:pl_1', amountCents: 3_000 }]);
    expect(applicationsOf(second, [...book, second])?.applied).toEqual([
      { key: 'invoice:pl_1', amountCents: 7_000 },
      { key: 'debit-memo:dm_1', amountCents: 2_500 },
    ]);
  });

  it('money over everything owed is unapplied: the customer credit', () => {
    const book = [entry('invoice:pl_1', 10_000)];
    expect(applicationsOf(entry('payment:py_1', -10_500), book)).toEqual({
      applied: [{ key: 'invoice:pl_1', amountCents: 10_000 }],
      unappliedCents: 500,
    });
  });

  it('a lowering is applied to the own invoice; a voided memo owes nothing', () => {
    const memo = entry('debit-memo:dm_1', 2_500);
    const book = [
      entry('invoice:pl_1', 10_000),
      entry('invoice-adjustment:pl_1:1', -2_000),
      memo,
      entry('debit-memo:dm_2', 1_000),
    ];
    book.push(reversal(memo));
    expect(applicationsOf(entry('check-application:ep_2', -9_000), book)?.applied).toEqual([
      { key: 'invoice:pl_1', amountCents: 8_000 },
      { key: 'debit-memo:dm_2', amountCents: 1_000 },
    ]);
  });

  it('a reversed payment gives back what it settled: the next one settles the same documents', () => {
    const book = [entry('invoice:pl_1', 10_000), entry('debit-memo:dm_1', 2_500)];
    const first = entry('payment:py_1', -12_500);
    book.push(first, reversal(first));
    expect(applicationsOf(entry('payment:py_2', -12_500), book)?.applied).toEqual([
      { key: 'invoice:pl_1', amountCents: 10_000 },
      { key: 'debit-memo:dm_1', amountCents: 2_500 },
    ]);
  });

  it('only money received: an invoice, a refund or a reversal has no split', () => {
    const invoice = entry('invoice:pl_1', 10_000);
    const payment = entry('payment:py_1', -10_000);
    expect(applicationsOf(invoice, [invoice])).toBeNull();
    expect(applicationsOf(reversal(payment), [invoice, payment])).toBeNull();
    expect(applicationsOf(entry('refund:rf_1', 2_000), [invoice])).toBeNull();
  });
});

describe('applicationsOf: a lowering credits the link’s own invoice first, then its other documents', () => {
  it('a raised link lowered below its own invoice: the rest of the credit goes to the raise', () => {
    const book = [entry('invoice:pl_1', 1_000), entry('invoice-adjustment:pl_1:1', 9_000)];
    const lowering = entry('invoice-adjustment:pl_1:2', -8_000);
    expect(applicationsOf(lowering, [...book, lowering])).toEqual({
      applied: [
        { key: 'invoice:pl_1', amountCents: 1_000 },
        { key: 'invoice-adjustment:pl_1:1', amountCents: 7_000 },
      ],
      unappliedCents: 0,
    });
    // The money after it pays what is left: 2,000 on the raise.
    book.push(lowering);
    expect(applicationsOf(entry('payment:py_1', -2_000), book)?.applied).toEqual([
      { key: 'invoice-adjustment:pl_1:1', amountCents: 2_000 },
    ]);
  });

  it('a lowering below what was paid: what no document owes is the customer’s credit', () => {
    const book = [entry('invoice:pl_1', 10_000), entry('payment:py_1', -10_000)];
    const lowering = entry('invoice-adjustment:pl_1:1', -4_000);
    expect(applicationsOf(lowering, [...book, lowering])).toEqual({ applied: [], unappliedCents: 4_000 });
  });
});

describe('reapplicationsOf: a reversal reopens the documents, and the customer’s credit is applied to them again', () => {
  it('a raised link paid in full, lowered, the payment reversed: the lowering’s credit goes to the own invoice', () => {
    // Made in posting order: the replay follows the entries' ids.
    const book = [entry('invoice:pl_1', 100), entry('invoice-adjustment:pl_1:1', 1)];
    const payment = entry('payment:py_1', -101);
    const lowering = entry('invoice-adjustment:pl_1:2', -1);
    book.push(payment, lowering);
    expect(applicationsOf(lowering, book)).toEqual({ applied: [], unappliedCents: 1 });
    const undone = reversal(payment);
    book.push(undone);
    expect(reapplicationsOf(undone, book)).toEqual([
      { credit: 'invoice-adjustment:pl_1:2', applied: [{ key: 'invoice:pl_1', amountCents: 1 }] },
    ]);
    // The money after it pays what the documents now owe: 99 on the own invoice, 1 on the raise.
    expect(applicationsOf(entry('payment:py_2', -100), book)).toEqual({
      applied: [
        { key: 'invoice:pl_1', amountCents: 99 },
        { key: 'invoice-adjustment:pl_1:1', amountCents: 1 },
      ],
      unappliedCents: 0,
    });
  });

  it('nothing to apply again: no credit waiting, a reversal of a document, a credit itself reversed', () => {
    const payment = entry('payment:py_1', -10_000);
    const invoice = entry('invoice:pl_1', 10_000);
    const plain = reversal(payment);
    expect(reapplicationsOf(plain, [invoice, payment, plain])).toEqual([]);
    expect(reapplicationsOf(entry('payment:py_9', -1), [invoice])).toEqual([]);
    const lowering = entry('invoice-adjustment:pl_1:1', -4_000);
    const unlowered = reversal(lowering);
    const undone = reversal(payment);
    expect(reapplicationsOf(undone, [invoice, payment, lowering, unlowered, undone])).toEqual([]);
  });

  it('a credit larger than what the reversal reopens: the rest stays the customer’s for later', () => {
    const invoice = entry('invoice:pl_1', 10_000);
    const first = entry('payment:py_1', -6_000);
    const second = entry('payment:py_2', -4_000);
    const lowering = entry('invoice-adjustment:pl_1:1', -5_000);
    const undone = reversal(second);
    const book = [invoice, first, second, lowering, undone];
    expect(reapplicationsOf(undone, book)).toEqual([
      { credit: 'invoice-adjustment:pl_1:1', applied: [{ key: 'invoice:pl_1', amountCents: 4_000 }] },
    ]);
    const again = reversal(first);
    book.push(again);
    expect(reapplicationsOf(again, book)).toEqual([
      { credit: 'invoice-adjustment:pl_1:1', applied: [{ key: 'invoice:pl_1', amountCents: 1_000 }] },
    ]);
  });
});

describe('reapplicationsOf: a charge on the link takes the customer’s credit a lowering left', () => {
  it('1.01 paid in full, lowered to 1.00, raised back to 1.01: the raise takes the lowering’s 0.01', () => {
    const invoice = entry('invoice:pl_1', 101);
    const payment = entry('payment:py_1', -101);
    const lowering = entry('invoice-adjustment:pl_1:1', -1);
    const raise = entry('invoice-adjustment:pl_1:2', 1);
    const book = [invoice, payment, lowering, raise];
    expect(applicationsOf(lowering, book)).toEqual({ applied: [], unappliedCents: 1 });
    expect(applicationsOf(raise, book)).toBeNull();
    expect(reapplicationsOf(raise, book)).toEqual([
      {
        credit: 'invoice-adjustment:pl_1:1',
        applied: [{ key: 'invoice-adjustment:pl_1:2', amountCents: 1 }],
      },
    ]);
    // Taken once: a reversal of the money after it reopens the invoice, with no credit left to apply again.
    const undone = reversal(payment);
    book.push(undone);
    expect(reapplicationsOf(undone, book)).toEqual([]);
  });

  it('a memo and a reopened amount take it too, up to what each charges; the rest stays the customer’s', () => {
    const book = [entry('invoice:pl_1', 10_000), entry('payment:py_1', -10_000)];
    const lowering = entry('invoice-adjustment:pl_1:1', -3_000);
    const memo = entry('debit-memo:dm_1', 2_000);
    const reopened = entry('refund-reopen:rf_1', 5_000);
    book.push(lowering, memo, reopened);
    expect(reapplicationsOf(memo, book)).toEqual([
      { credit: lowering.key, applied: [{ key: memo.key, amountCents: 2_000 }] },
    ]);
    expect(reapplicationsOf(reopened, book)).toEqual([
      { credit: lowering.key, applied: [{ key: reopened.key, amountCents: 1_000 }] },
    ]);
    // The money after it pays what is left: 4,000 on the reopened amount.
    expect(applicationsOf(entry('payment:py_2', -4_000), book)).toEqual({
      applied: [{ key: reopened.key, amountCents: 4_000 }],
      unappliedCents: 0,
    });
  });

  it('no credit waiting: a raise takes nothing', () => {
    const book = [entry('invoice:pl_1', 10_000), entry('invoice-adjustment:pl_1:1', -4_000)];
    const raise = entry('invoice-adjustment:pl_1:2', 4_000);
    book.push(raise);
    expect(reapplicationsOf(raise, book)).toEqual([]);
  });
});

describe('applicationsOf: money reversed in a later month is owed again on the reversal’s own document', () => {
  const inFebruary = (e: BookedEntry): BookedEntry => ({ ...e, date: '2026-02-03' });

  it('a January payment returned in February: later money and a lowering go to the reversal, the invoice stays paid', () => {
    const invoice = entry('invoice:pl_1', 12_000);
    const payment = entry('payment:py_1', -12_000);
    const returned = inFebruary(reversal(payment));
    const book = [invoice, payment, returned];
    const reopened = { key: returned.key, reopens: 'invoice:pl_1' };
    const money = inFebruary(entry('external-payment:ep_1', -6_000));
    expect(applicationsOf(money, [...book, money])).toEqual({
      applied: [{ ...reopened, amountCents: 6_000 }],
      unappliedCents: 0,
    });
    const lowering = inFebruary(entry('invoice-adjustment:pl_1:1', -7_000));
    expect(applicationsOf(lowering, [...book, lowering])).toEqual({
      applied: [{ ...reopened, amountCents: 7_000 }],
      unappliedCents: 0,
    });
  });

  it('a payment of the invoice and its memo returned next month: one document of the whole, naming none', () => {
    const book = [entry('invoice:pl_1', 10_000), entry('debit-memo:dm_1', 2_500)];
    const payment = entry('payment:py_1', -12_500);
    const returned = inFebruary(reversal(payment));
    book.push(payment, returned);
    expect(applicationsOf(inFebruary(entry('payment:py_2', -13_000)), book)).toEqual({
      applied: [{ key: returned.key, amountCents: 12_500 }],
      unappliedCents: 500,
    });
  });

  it('a reversal in the money’s own month reopens the documents it paid, as before', () => {
    const book = [entry('invoice:pl_1', 12_000)];
    const payment = entry('payment:py_1', -12_000);
    book.push(payment, reversal(payment));
    expect(applicationsOf(entry('payment:py_2', -6_000), book)?.applied).toEqual([
      { key: 'invoice:pl_1', amountCents: 6_000 },
    ]);
  });
});
