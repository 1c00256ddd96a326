import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { describe, expect, it } from 'vitest';
import { defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import { TokenCipher } from '../../../src/targets/quickbooks/index.js';
import type { TargetDocument } from '../../../src/targets/target-port.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { pushIndex } from '../../support/push-index.js';
import { quickBooksCompany } from '../../support/quickbooks/company.js';
import { documentsForContract } from '../target-contract.js';
import { twoLineDocuments } from '../two-line-documents.js';

// A payout's Deposit links what it carries in Undeposited Funds (LinkedTxn), as a bank deposit made in
// QuickBooks does, so it leaves the list of funds to deposit and cannot be deposited twice: its payments and
// sales receipts, and the fee journals and refund receipts it nets (`netted`) for their negative amount.
// What it nets that QuickBooks holds no transaction of (an entry not named) is one line on the clearing
// account, so the deposit equals the payout. Undeposited Funds then holds exactly what no payout carried yet.

const double = doubleForFile(new QuickBooksDouble());
const cipher = new TokenCipher('test-secret-for-quickbooks-payout-deposits');
const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';

const company = () => quickBooksCompany(double, cipher);

function businessDay() {
  const docs = documentsForContract();
  const two = twoLineDocuments(docs.payment, (key) => key.length.toString(16).padStart(64, '7'));
  const p1 = docs.payment; // 50.00 on the invoice
  const p2 = {
    ...two(`payment:pay2_${docs.run}`, 'payment', 'ProcessorClearing', 'AccountsReceivable', 30_00),
  };
  const sale = {
    ...two(`sale:sale_${docs.run}`, 'sale', 'ProcessorClearing', 'Revenue', 25_00),
    invoice: undefined,
  };
  const fee = two(`payment-fee:pay_${docs.run}`, 'payment-fee', 'ProcessingFees', 'ProcessorClearing', 1_75);
  // The payout carries p1 and the sale, less p1's fee: 73.25.
  const payout: TargetDocument = {
    ...two(
      `disbursement-pending:dis_${docs.run}`,
      'disbursement-pending',
      'PayoutsInTransit',
      'ProcessorClearing',
      73_25,
    ),
    invoice: undefined,
    customer: undefined,
    payout: {
      receipts: [
        { key: p1.key, date: p1.date, amountCents: 50_00 },
        { key: sale.key, date: sale.date, amountCents: 25_00 },
      ],
    },
  };
  return { docs, p1, p2, sale, fee, payout };
}

/**
 * The day above with p1's card surcharge (a SalesReceipt into Undeposited Funds) and a refund of the sale (a
 * RefundReceipt out of it) before the payout, which then carries p1, its surcharge and the sale less p1's fee
 * and the refund: 69.25, the surcharge, fee and refund as what it nets.
 */
function dayWithRefund() {
  const day = businessDay();
  const two = twoLineDocuments(day.docs.payment, (key) => key.length.toString(16).padStart(64, '6'));
  const surcharge = two(
    `payment-surcharge:pay_${day.docs.run}`,
    'sale',
    'ProcessorClearing',
    'SurchargeIncome',
    1_00,
    {
      invoice: undefined,
    },
  );
  const refund = two(`refund:re_${day.docs.run}`, 'refund', 'Refunds', 'ProcessorClearing', 5_00, {
    invoice: undefined,
  });
  const payout: TargetDocument = {
    ...day.payout,
    amountCents: 69_25,
    lines: [
      { role: 'PayoutsInTransit', amountCents: 69_25 },
      { role: 'ProcessorClearing', amountCents: -69_25 },
    ],
    payout: {
      receipts: day.payout.payout?.receipts ?? [],
      netted: [
        { key: surcharge.key, date: surcharge.date, amountCents: 1_00 },
        { key: day.fee.key, date: day.fee.date, amountCents: -1_75 },
        { key: refund.key, date: refund.date, amountCents: -5_00 },
      ],
    },
  };
  return { ...day, surcharge, refund, payout };
}

/**
 * The day with a refund as `dayWithRefund`, its fee and refund pushed after the payout's Deposit: netted by
 * the payout (`nettedBy`, as the ledger names it), the refund not named by the payout's document (its entry
 * booked after the payout's); the payout's amount is the same 69.25.
 */
function netsPushedLater() {
  const day = dayWithRefund();
  const nettedBy = { key: day.payout.key, date: day.payout.date };
  const netted = (day.payout.payout?.netted ?? []).filter((n) => n.key !== day.refund.key);
  return {
    ...day,
    fee: { ...day.fee, nettedBy },
    refund: { ...day.refund, nettedBy },
    payout: { ...day.payout, payout: { receipts: day.payout.payout?.receipts ?? [], netted } },
    /** The payout's document had the refund's entry been booked before it (then pushed after it). */
    naming: day.payout,
  };
}

type DepositLine = {
  Amount: number;
  DetailType?: string;
  LinkedTxn?: { TxnId: string; TxnType: string }[];
};

describe('QuickBooks Online: payouts that empty Undeposited Funds', () => {
  it('links the payout’s payments and sales receipts; Undeposited Funds keeps only what no payout carried', async () => {
    const c = company();
    const day = businessDay();
    const { pushed, context } = pushIndex({ mayExist: true });
    const target = c.target();
    for (const doc of [day.docs.invoice, day.p1, day.p2, day.sale, day.fee, day.payout]) {
      pushed.set(doc.key, await target.push(doc, context));
    }
    const deposit = double.get(c.realmId, 'Deposit', idOf(pushed.get(day.payout.key)?.remoteIds[0]));
    const lines = (deposit?.Line ?? []) as {
      Amount: number;
      LinkedTxn?: { TxnId: string; TxnType: string }[];
    }[];
    expect(lines.flatMap((l) => l.LinkedTxn ?? []).map((t) => [t.TxnType, t.TxnId])).toEqual([
      ['Payment', idOf(pushed.get(day.p1.key)?.remoteIds[0])],
      ['SalesReceipt', idOf(pushed.get(day.sale.key)?.remoteIds[0])],
    ]);
    expect(lines.map((l) => l.Amount)).toEqual([50, 25, -1.75]);
    // Undeposited Funds (the clearing account) holds p2 only; the payout is in transit.
    expect(double.balanceOf(c.realmId, defaultAccountCodes.ProcessorClearing)).toBe(30_00);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.PayoutsInTransit)).toBe(73_25);
  });

  it('links the payout’s surcharge, fee journal and refund receipt too: nothing it carries stays in Undeposited Funds', async () => {
    const c = company();
    const day = dayWithRefund();
    const { pushed, context } = pushIndex({ mayExist: true });
    const target = c.target();
    const docs = [day.docs.invoice, day.p1, day.surcharge, day.p2, day.sale, day.fee, day.refund, day.payout];
    for (const doc of docs) {
      pushed.set(doc.key, await target.push(doc, context));
    }
    const id = (key: string) => idOf(pushed.get(key)?.remoteIds[0]);
    expect(pushed.get(day.refund.key)?.remoteIds[0]).toMatch(/^RefundReceipt:/);
    expect(pushed.get(day.fee.key)?.remoteIds[0]).toMatch(/^JournalEntry:/);
    const deposit = double.get(c.realmId, 'Deposit', id(day.payout.key));
    const lines = (deposit?.Line ?? []) as {
      Amount: number;
      DetailType?: string;
      LinkedTxn?: { TxnId: string; TxnType: string }[];
    }[];
    // Every line links a transaction: no line of the deposit's own on the clearing account.
    expect(lines.map((l) => [l.LinkedTxn?.[0]?.TxnType, l.LinkedTxn?.[0]?.TxnId, l.Amount])).toEqual([
      ['Payment', id(day.p1.key), 50],
      ['SalesReceipt', id(day.sale.key), 25],
      ['SalesReceipt', id(day.surcharge.key), 1],
      ['JournalEntry', id(day.fee.key), -1.75],
      ['RefundReceipt', id(day.refund.key), -5],
    ]);
    expect(lines.some((l) => l.DetailType === 'DepositLineDetail')).toBe(false);
    expect(deposit?.TotalAmt).toBe(69.25);
    // QuickBooks' list of funds to deposit holds p2 alone: the payout took everything of its own.
    expect(double.fundsToDeposit(c.realmId)).toEqual([
      { type: 'Payment', id: id(day.p2.key), lineId: '0', cents: 30_00 },
    ]);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.ProcessorClearing)).toBe(30_00);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.PayoutsInTransit)).toBe(69_25);
  });

  it('found again by key after a restart, never deposited twice; a deposited payment is reversed by a document of its own', async () => {
    const c = company();
    const day = businessDay();
    const { pushed, context } = pushIndex({ mayExist: true });
    const target = c.target();
    for (const doc of [day.docs.invoice, day.p1, day.p2, day.sale, day.fee, day.payout]) {
      pushed.set(doc.key, await target.push(doc, context));
    }
    // A new process, with no index at hand: the deposit is found by its key, not made again.
    const repeat = await c
      .target()
      .push(day.payout, { mayExist: () => true, refusals: () => 0, pushed: () => null, closedThrough: null });
    expect(repeat.created).toBe(false);
    expect(double.all(c.realmId, 'Deposit')).toHaveLength(1);
    // Another payout claiming p1 again is refused by QuickBooks' rule, not deposited twice.
    const twice: TargetDocument = {
      ...day.payout,
      key: `disbursement-pending:dis2_${day.docs.run}`,
      contentHash: 'd'.repeat(64),
    };
    await expect(target.push(twice, context)).rejects.toThrow(/already deposited/);
    // An ACH return of p1 in the same month: QBO refuses to void a deposited payment (6540), so the return is
    // a charge invoice for the customer, and the invoice's customer owes the 50.00 again.
    const reversal: TargetDocument = {
      ...day.p1,
      key: `reversal:${day.p1.key}`,
      kind: 'reversal',
      description: `Reversal of ${day.p1.key}: payment.failed`,
      lines: day.p1.lines.map((l) => ({ ...l, amountCents: -l.amountCents })),
      contentHash: 'e'.repeat(64),
      reverses: day.p1.key,
      reason: 'payment.failed',
      originalDate: day.p1.date,
    };
    const reversed = await target.push(reversal, context);
    expect(reversed.remoteIds[0]).toMatch(/^Invoice:/);
    expect(double.isVoided(c.realmId, 'Payment', idOf(pushed.get(day.p1.key)?.remoteIds[0]))).toBe(false);
    expect(double.get(c.realmId, 'Invoice', idOf(reversed.remoteIds[0]))?.Balance).toBe(50);
  });

  it('links a fee and a refund pushed after the payout’s Deposit: its own line shrinks by them, its total stays the payout’s, once', async () => {
    const c = company();
    const day = netsPushedLater();
    const { pushed, context } = pushIndex({ mayExist: true });
    const target = c.target();
    for (const doc of [day.docs.invoice, day.p1, day.surcharge, day.p2, day.sale, day.payout]) {
      pushed.set(doc.key, await target.push(doc, context));
    }
    const id = (key: string) => idOf(pushed.get(key)?.remoteIds[0]);
    const deposit = () => double.get(c.realmId, 'Deposit', id(day.payout.key));
    const lines = () => (deposit()?.Line ?? []) as DepositLine[];
    const own = () =>
      lines()
        .filter((l) => l.DetailType === 'DepositLineDetail')
        .map((l) => l.Amount);
    // The fee and the refund are in the payout's money, no QuickBooks transaction yet: its own line.
    expect(own()).toEqual([-6.75]);
    pushed.set(day.fee.key, await target.push(day.fee, context));
    expect(own()).toEqual([-5]);
    pushed.set(day.refund.key, await target.push(day.refund, context));
    expect(lines().map((l) => [l.LinkedTxn?.[0]?.TxnType, l.LinkedTxn?.[0]?.TxnId, l.Amount])).toEqual([
      ['Payment', id(day.p1.key), 50],
      ['SalesReceipt', id(day.sale.key), 25],
      ['SalesReceipt', id(day.surcharge.key), 1],
      ['JournalEntry', id(day.fee.key), -1.75],
      ['RefundReceipt', id(day.refund.key), -5],
    ]);
    expect(own()).toEqual([]);
    expect(deposit()?.TotalAmt).toBe(69.25);
    expect(double.fundsToDeposit(c.realmId)).toEqual([
      { type: 'Payment', id: id(day.p2.key), lineId: '0', cents: 30_00 },
    ]);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.ProcessorClearing)).toBe(30_00);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.PayoutsInTransit)).toBe(69_25);
    // Pushed again by a new process (no index): found, the Deposit found by its date, nothing changed.
    const token = deposit()?.SyncToken;
    const again = await c.target().push(day.refund, { ...context, pushed: () => null });
    expect(again.created).toBe(false);
    expect(deposit()?.SyncToken).toBe(token);
    const refunds = lines().filter((l) => l.LinkedTxn?.[0]?.TxnId === id(day.refund.key));
    expect(refunds).toHaveLength(1);
    expect(double.violations).toEqual([]);
  });

  it('links them in a backlog too (pushMany), and the refund named by the payout’s document but pushed after it', async () => {
    const c = company();
    const day = netsPushedLater();
    const { pushed, context } = pushIndex({ mayExist: false });
    const target = c.target();
    for (const doc of [day.docs.invoice, day.p1, day.surcharge, day.p2, day.sale, day.naming]) {
      pushed.set(doc.key, await target.push(doc, context));
    }
    const outcomes = await target.pushMany([day.fee, day.refund], context);
    for (const o of outcomes) expect(o).not.toBeInstanceOf(Error);
    const deposit = double.get(c.realmId, 'Deposit', idOf(pushed.get(day.payout.key)?.remoteIds[0]));
    expect(((deposit?.Line ?? []) as DepositLine[]).some((l) => l.DetailType === 'DepositLineDetail')).toBe(
      false,
    );
    expect(deposit?.TotalAmt).toBe(69.25);
    expect(double.fundsToDeposit(c.realmId).map((f) => f.type)).toEqual(['Payment']);
  });

  it('leaves a Deposit in a closed period as it is: the refund pushed after stays to deposit', async () => {
    const c = company();
    const day = netsPushedLater();
    const { pushed, context } = pushIndex({ mayExist: false });
    const target = c.target();
    for (const doc of [day.docs.invoice, day.p1, day.surcharge, day.p2, day.sale, day.fee, day.payout]) {
      pushed.set(doc.key, await target.push(doc, context));
    }
    const deposit = () => double.get(c.realmId, 'Deposit', idOf(pushed.get(day.payout.key)?.remoteIds[0]));
    const before = structuredClone(deposit());
    double.closeBooks(c.realmId, day.payout.date);
    const refund = await target.push(day.refund, context);
    expect(refund.remoteIds[0]).toMatch(/^RefundReceipt:/);
    expect(deposit()).toEqual(before);
    expect(double.fundsToDeposit(c.realmId).map((f) => [f.type, f.id])).toContainEqual([
      'RefundReceipt',
      idOf(refund.remoteIds[0]),
    ]);
  });
});
