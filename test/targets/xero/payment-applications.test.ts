import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { describe, expect, it } from 'vitest';
import { defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import type { PushContext, RemoteRecord, TargetDocument } from '../../../src/targets/target-port.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { pushIndex } from '../../support/push-index.js';
import { xeroOrganisation } from '../../support/xero/organisation.js';

// In Xero: money paying a link and its memo is one Payment per invoice it settles (Xero applies
// a Payment to one invoice), each for its part, and only what exceeds everything owed is an overpayment (the
// customer's credit), instead of the whole booked as an overpayment with both invoices left open.

const double = doubleForFile(
  new XeroDouble({ limits: { concurrent: 5, perMinute: 60, perDay: 5_000, windowMs: 1_000 } }),
  { calm: true },
);
const cipher = new TokenCipher('test-secret-for-xero-payment-applications');
const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';
const hash = (c: string) => c.repeat(64);
type Doc = Record<string, unknown>;

const organisation = () => xeroOrganisation(double, cipher, { lockTtlMs: 0 });

/** A link of 100.00, its 25.00 debit memo, and money on it (with its split, as applications.ts gives it). */
function link(day = '2026-11') {
  const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const customer = { serviceId: `cus_${run}`, name: `Memo Payer ${run}`, email: `${run}@memo.test` };
  const invoice = { paymentLinkId: `pl_${run}`, number: `MP-${run}` };
  const base = { invoice, customer, reference: `pl_${run}` };
  const invoiceDoc: TargetDocument = {
    ...base,
    key: `invoice:pl_${run}`,
    kind: 'invoice',
    date: `${day}-02`,
    description: `Invoice for payment link pl_${run}`,
    amountCents: 100_00,
    lines: [
      { role: 'AccountsReceivable', amountCents: 100_00 },
      { role: 'Revenue', amountCents: -100_00 },
    ],
    contentHash: hash('a'),
  };
  const memo: TargetDocument = {
    ...base,
    key: `debit-memo:dm_${run}`,
    kind: 'debit-memo',
    date: `${day}-03`,
    description: `Debit memo dm_${run} on payment link pl_${run}`,
    amountCents: 25_00,
    lines: [
      { role: 'AccountsReceivable', amountCents: 25_00 },
      { role: 'FeeIncome', amountCents: -25_00 },
    ],
    contentHash: hash('b'),
  };
  /** Money of `cents`: 100.00 to the invoice, 25.00 to the memo, the rest unapplied. */
  const payment = (id: string, cents: number): TargetDocument => ({
    ...base,
    key: `payment:${id}_${run}`,
    kind: 'payment',
    date: `${day}-05`,
    description: `Payment ${id}_${run} received`,
    amountCents: cents,
    lines: [
      { role: 'ProcessorClearing', amountCents: cents },
      { role: 'AccountsReceivable', amountCents: -cents },
    ],
    contentHash: hash(id.slice(0, 1)),
    reference: `${id}_${run}`,
    settles: {
      applied: [
        { key: invoiceDoc.key, amountCents: 100_00 },
        { key: memo.key, amountCents: 25_00 },
      ],
      unappliedCents: cents - 125_00,
    },
  });
  const reversal = (of: TargetDocument, date: string): TargetDocument => ({
    ...of,
    settles: undefined,
    key: `reversal:${of.key}`,
    kind: 'reversal',
    date,
    description: `Reversal of ${of.key}: ACH return`,
    lines: of.lines.map((l) => ({ ...l, amountCents: -l.amountCents })),
    contentHash: hash('r'),
    reverses: of.key,
    reason: 'ACH return',
    originalDate: of.date,
  });
  return { invoice: invoiceDoc, memo, payment, reversal, run };
}

function books(tenantId: string) {
  const invoice = (remote: RemoteRecord | undefined) =>
    double.get(tenantId, 'Invoices', idOf(remote?.remoteIds[0]));
  const marked = (collection: 'Payments' | 'BankTransactions', key: string) =>
    double
      .all(tenantId, collection)
      .filter((d: Doc) => String(d.Reference ?? '').startsWith(`booksync key=${key} hash=`));
  const live = (d: Doc) => !['DELETED', 'VOIDED'].includes(String(d.Status));
  return { invoice, marked, live };
}

describe('Xero: money applied as the service applies it', { timeout: 60_000 }, () => {
  it('a payment of the link and its memo pays both invoices, one Payment each, and no overpayment', async () => {
    const org = organisation();
    const target = org.target();
    const docs = link();
    const { pushed, context } = pushIndex();
    for (const doc of [docs.invoice, docs.memo]) pushed.set(doc.key, await target.push(doc, context));
    const b = books(org.tenantId);
    expect([
      b.invoice(pushed.get(docs.invoice.key))?.AmountDue,
      b.invoice(pushed.get(docs.memo.key))?.AmountDue,
    ]).toEqual([100, 25]);

    const payment = docs.payment('both', 125_00);
    const result = await target.push(payment, context);
    expect(result.remoteIds).toEqual([
      expect.stringMatching(/^Payment:/),
      expect.stringMatching(/^Payment:/),
    ]);
    for (const key of [docs.invoice.key, docs.memo.key])
      expect(b.invoice(pushed.get(key))).toMatchObject({ Status: 'PAID', AmountDue: 0 });
    expect(b.marked('Payments', payment.key).map((p) => p.Amount)).toEqual([100, 25]);
    expect(b.marked('BankTransactions', payment.key)).toEqual([]);
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.AccountsReceivable)).toBe(0);
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.ProcessorClearing)).toBe(125_00);
    expect(
      (await target.figuresAsOf('2026-11-30')).openInvoices[docs.invoice.invoice!.paymentLinkId] ?? 0,
    ).toBe(0);
  });

  it('10.00 over everything owed: both invoices paid and an overpayment of 10.00, the customer’s credit', async () => {
    const org = organisation();
    const target = org.target();
    const docs = link();
    const { pushed, context } = pushIndex();
    for (const doc of [docs.invoice, docs.memo]) pushed.set(doc.key, await target.push(doc, context));
    const b = books(org.tenantId);
    const payment = docs.payment('over', 135_00);
    const result = await target.push(payment, context);
    expect(result.remoteIds).toEqual([
      expect.stringMatching(/^Payment:/),
      expect.stringMatching(/^Payment:/),
      expect.stringMatching(/^BankTransaction:/),
    ]);
    for (const key of [docs.invoice.key, docs.memo.key])
      expect(b.invoice(pushed.get(key))).toMatchObject({ Status: 'PAID', AmountDue: 0 });
    expect(b.marked('BankTransactions', payment.key)).toEqual([
      expect.objectContaining({ Type: 'RECEIVE-OVERPAYMENT', Total: 10 }),
    ]);
    // Xero's receivable: the customer's 10.00 credit; the clearing account got all 135.00.
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.AccountsReceivable)).toBe(-10_00);
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.ProcessorClearing)).toBe(135_00);
  });

  it('a part its invoice at Xero no longer owes is the customer’s credit, not a refusal of the whole', async () => {
    const org = organisation();
    const target = org.target();
    const docs = link();
    const { pushed, context } = pushIndex();
    for (const doc of [docs.invoice, docs.memo]) pushed.set(doc.key, await target.push(doc, context));
    const b = books(org.tenantId);
    // The invoice already paid at Xero (its payment reversed after close in the ledger: Xero's stays).
    await target.push(
      {
        ...docs.payment('first', 100_00),
        settles: { applied: [{ key: docs.invoice.key, amountCents: 100_00 }], unappliedCents: 0 },
      },
      context,
    );
    const payment = docs.payment('second', 125_00);
    const result = await target.push(payment, context);
    expect(result.remoteIds).toEqual([
      expect.stringMatching(/^Payment:/),
      expect.stringMatching(/^BankTransaction:/),
    ]);
    expect(b.invoice(pushed.get(docs.memo.key))).toMatchObject({ Status: 'PAID', AmountDue: 0 });
    expect(b.marked('BankTransactions', payment.key)).toEqual([
      expect.objectContaining({ Type: 'RECEIVE-OVERPAYMENT', Total: 100 }),
    ]);
    // Found again: nothing twice.
    const again = await org
      .target()
      .push(payment, { mayExist: () => true, refusals: () => 0, pushed: (key) => pushed.get(key) ?? null });
    expect(again).toMatchObject({ created: false });
    expect(new Set(again.remoteIds)).toEqual(new Set(result.remoteIds));
  });

  it('a crash between parts: pushed again with mayExist, the parts Xero has are found and only the missing made', async () => {
    const org = organisation();
    const docs = link();
    const { pushed, context } = pushIndex();
    for (const doc of [docs.invoice, docs.memo]) pushed.set(doc.key, await org.target().push(doc, context));
    const b = books(org.tenantId);
    const payment = docs.payment('crash', 135_00);
    // Xero refuses the invoice's part (the first of the batch); the memo's part is created.
    double.refuseNext('A transient refusal');
    await expect(org.target().push(payment, context)).rejects.toThrow(/A transient refusal/);
    expect(b.marked('Payments', payment.key).map((p) => p.Amount)).toEqual([25]);

    const again: PushContext = {
      mayExist: () => true,
      refusals: () => 0,
      pushed: (key) => pushed.get(key) ?? null,
    };
    const result = await org.target().push(payment, again);
    expect(result.created).toBe(true);
    expect(
      b
        .marked('Payments', payment.key)
        .map((p) => p.Amount)
        .sort(),
    ).toEqual([100, 25].sort());
    expect(b.marked('BankTransactions', payment.key).map((t) => t.Total)).toEqual([10]);
    for (const key of [docs.invoice.key, docs.memo.key])
      expect(b.invoice(pushed.get(key))).toMatchObject({ Status: 'PAID', AmountDue: 0 });

    // Once more, a restarted worker with no index: everything found, nothing twice.
    const third = await org
      .target()
      .push(payment, { mayExist: () => true, refusals: () => 0, pushed: () => null });
    expect(third).toMatchObject({ created: false });
    expect(new Set(third.remoteIds)).toEqual(new Set(result.remoteIds));
    expect(new Set((await org.target().find(payment.key))?.remoteIds)).toEqual(new Set(result.remoteIds));
    expect(b.marked('Payments', payment.key)).toHaveLength(2);
    expect(b.marked('BankTransactions', payment.key)).toHaveLength(1);
  });

  it('a backlog in batches: the payment waits for its invoices’ wave, then pays both', async () => {
    const org = organisation();
    const docs = link();
    const { pushed, context } = pushIndex();
    const payment = docs.payment('batch', 135_00);
    const outcomes = await org.target().pushMany([docs.invoice, docs.memo, payment], context);
    const [invoice, memo, money] = outcomes as RemoteRecord[];
    expect(outcomes.filter((o) => o instanceof Error)).toEqual([]);
    pushed.set(docs.invoice.key, invoice as RemoteRecord);
    pushed.set(docs.memo.key, memo as RemoteRecord);
    const b = books(org.tenantId);
    for (const record of [invoice, memo])
      expect(b.invoice(record)).toMatchObject({ Status: 'PAID', AmountDue: 0 });
    expect(money?.remoteIds).toHaveLength(3);
    // Again with mayExist (the index lost the outcomes): found, nothing twice.
    const again = await org
      .target()
      .pushMany([docs.invoice, docs.memo, payment], { ...context, mayExist: () => true, refusals: () => 0 });
    expect(again.map((o) => (o instanceof Error ? o.message : o.created))).toEqual([false, false, false]);
    expect(b.marked('Payments', payment.key)).toHaveLength(2);
    expect(b.marked('BankTransactions', payment.key)).toHaveLength(1);
  });

  it('an ACH return in the same month deletes every Payment part and refunds the credit: both invoices owed again, the credit gone', async () => {
    const org = organisation();
    const target = org.target();
    const docs = link();
    const { pushed, context } = pushIndex();
    const payment = docs.payment('same', 135_00);
    for (const doc of [docs.invoice, docs.memo, payment])
      pushed.set(doc.key, await target.push(doc, context));
    const b = books(org.tenantId);
    const reversal = docs.reversal(payment, '2026-11-20');
    const reversed = await target.push(reversal, context);
    // Each invoice's Payment DELETED; the 10.00 overpayment (never DELETED in Xero) refunded out of the
    // clearing account by a Payment carrying the reversal's marker.
    expect(reversed.remoteIds).toEqual([
      expect.stringMatching(/^deleted:Payment:/),
      expect.stringMatching(/^deleted:Payment:/),
      expect.stringMatching(/^Payment:/),
    ]);
    expect(b.invoice(pushed.get(docs.invoice.key))).toMatchObject({ Status: 'AUTHORISED', AmountDue: 100 });
    expect(b.invoice(pushed.get(docs.memo.key))).toMatchObject({ Status: 'AUTHORISED', AmountDue: 25 });
    expect(b.marked('Payments', payment.key).filter(b.live)).toEqual([]);
    const [credit] = b.marked('BankTransactions', payment.key);
    expect(credit).toMatchObject({ Type: 'RECEIVE-OVERPAYMENT', Status: 'AUTHORISED' });
    expect(double.get(org.tenantId, 'Overpayments', String(credit?.OverpaymentID))).toMatchObject({
      Status: 'PAID',
      RemainingCredit: 0,
    });
    expect(b.marked('Payments', reversal.key)).toEqual([
      expect.objectContaining({ Amount: 10, Overpayment: { OverpaymentID: credit?.OverpaymentID } }),
    ]);
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.AccountsReceivable)).toBe(125_00);
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.ProcessorClearing)).toBe(0);
    // Found again: nothing deleted twice.
    const again = await org.target().push(docs.reversal(payment, '2026-11-20'), {
      mayExist: () => true,
      refusals: () => 0,
      pushed: () => null,
    });
    expect(again.created).toBe(false);
    expect(new Set(again.remoteIds)).toEqual(new Set(reversed.remoteIds));
  });

  it('an ACH return after close reverses each part in the open period: each owed again, the money out once', async () => {
    const org = organisation();
    const docs = link('2026-01');
    const { pushed, context } = pushIndex();
    const payment = docs.payment('closed', 135_00);
    for (const doc of [docs.invoice, docs.memo, payment])
      pushed.set(doc.key, await org.target().push(doc, context));
    const b = books(org.tenantId);
    double.lockDates(org.tenantId, { period: '2026-01-31' });
    const reversal = docs.reversal(payment, '2026-02-03');
    const reversed = await org.target().push(reversal, context);
    // January untouched: its payments and the credit stay.
    expect(
      b
        .marked('Payments', payment.key)
        .filter(b.live)
        .map((p) => p.Amount),
    ).toEqual([100, 25]);
    expect(b.marked('BankTransactions', payment.key).filter(b.live)).toHaveLength(1);
    // February: an invoice per part, owed again, and one SPEND of the whole.
    expect(reversed.remoteIds).toEqual([
      expect.stringMatching(/^Invoice:/),
      expect.stringMatching(/^Invoice:/),
      expect.stringMatching(/^Invoice:/),
      expect.stringMatching(/^BankTransaction:/),
    ]);
    const owed = reversed.remoteIds.slice(0, 3).map((r) => double.get(org.tenantId, 'Invoices', idOf(r)));
    // The credit's money went back with the rest: the 10.00 credit pays the invoice made for it, allocated
    // in February, so the link owes what the service says (125.00) and the contact holds no credit.
    expect(owed.map((i) => [i?.Status, i?.AmountDue])).toEqual([
      ['AUTHORISED', 100],
      ['AUTHORISED', 25],
      ['PAID', 0],
    ]);
    const [credit] = b.marked('BankTransactions', payment.key);
    const overpayment = double.get(org.tenantId, 'Overpayments', String(credit?.OverpaymentID));
    expect(overpayment).toMatchObject({ Status: 'PAID', RemainingCredit: 0 });
    // Allocated in February, the return's day: nothing in the locked January.
    expect(overpayment?.Allocations).toEqual([
      expect.objectContaining({
        Amount: 10,
        Date: `/Date(${Date.parse('2026-02-03')}+0000)/`,
        Invoice: expect.objectContaining({ InvoiceID: owed[2]?.InvoiceID }),
      }),
    ]);
    expect(owed.reduce((sum, i) => sum + Number(i?.AmountDue), 0)).toBe(125);
    expect(double.get(org.tenantId, 'BankTransactions', idOf(reversed.remoteIds[3]))).toMatchObject({
      Type: 'SPEND',
      Total: 135,
    });
    // As the ledger: the link owes 125.00 again, the money is gone.
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.AccountsReceivable)).toBe(125_00);
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.ProcessorClearing)).toBe(0);
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.Refunds)).toBe(0);
    // Pushed again by a restarted worker: found by the reversal's key, nothing twice.
    const again = await org
      .target()
      .push(reversal, { mayExist: () => true, refusals: () => 0, pushed: () => null });
    expect(again.created).toBe(false);
    expect(new Set(again.remoteIds)).toEqual(new Set(reversed.remoteIds));
    expect(new Set((await org.target().find(reversal.key))?.remoteIds)).toEqual(new Set(reversed.remoteIds));
    // Nothing allocated twice.
    expect(double.get(org.tenantId, 'Overpayments', String(credit?.OverpaymentID))?.Allocations).toHaveLength(
      1,
    );
  });
});
