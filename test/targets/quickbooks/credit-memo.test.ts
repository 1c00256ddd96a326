import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { describe, expect, it, vi } from 'vitest';
import { type AccountRole, defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import { TargetUnavailableError } from '../../../src/targets/errors.js';
import { QboClient } from '../../../src/targets/quickbooks/http-client.js';
import { TokenCipher } from '../../../src/targets/quickbooks/index.js';
import { docNumberTag, marker } from '../../../src/targets/quickbooks/keys.js';
import type { RemoteRecord, TargetDocument } from '../../../src/targets/target-port.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { pushIndex } from '../../support/push-index.js';
import { quickBooksCompany } from '../../support/quickbooks/company.js';

// Item 2 in QuickBooks Online: a lowered invoice (a write-off, a discount) is a CreditMemo applied
// to the link's invoice by a zero-amount Payment linking both, so the invoice's Balance is the service's
// remainder at every step; pushed again, nothing is made twice.

const double = doubleForFile(new QuickBooksDouble());
const cipher = new TokenCipher('test-secret-for-quickbooks-credit-memos');
const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';
const hash = (c: string) => c.repeat(64);

/**
 * The documents of one link (`prefix` names its invoice number and customer): each `cents` Dr one role / Cr
 * another, its content hash `c` repeated.
 */
function linkDocuments(prefix: string, customerName: string) {
  const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const customer = { serviceId: `cus_${run}`, name: `${customerName} ${run}`, email: `${run}@credit.test` };
  const invoice = { paymentLinkId: `pl_${run}`, number: `${prefix}-${run}` };
  const doc = (
    head: Pick<TargetDocument, 'key' | 'kind' | 'date' | 'description'>,
    [debit, credit]: [AccountRole, AccountRole],
    cents: number,
    c: string,
    extra: Partial<TargetDocument> = {},
  ): TargetDocument => ({
    ...head,
    amountCents: cents,
    lines: [
      { role: debit, amountCents: cents },
      { role: credit, amountCents: -cents },
    ],
    contentHash: hash(c),
    invoice,
    customer,
    reference: `pl_${run}`,
    ...extra,
  });
  const description = `Invoice for payment link pl_${run}`;
  return {
    link: invoice.paymentLinkId,
    invoice: (cents: number, c: string) =>
      doc(
        { key: `invoice:pl_${run}`, kind: 'invoice', date: '2026-11-02', description },
        ['AccountsReceivable', 'Revenue'],
        cents,
        c,
      ),
    payment: (date: string, cents: number, c: string, extra: Partial<TargetDocument> = {}) =>
      doc(
        { key: `payment:py_${run}`, kind: 'payment', date, description: `Payment py_${run} received` },
        ['ProcessorClearing', 'AccountsReceivable'],
        cents,
        c,
        { reference: `py_${run}`, ...extra },
      ),
    /** The link's n-th amount change: lowered (Discounts and Write-offs) or raised (Revenue) to `own` cents. */
    adjustment: (
      n: number,
      date: string,
      change: 'lowered' | 'raised',
      own: number,
      cents: number,
      c: string,
      extra: Partial<TargetDocument> = {},
    ) =>
      doc(
        {
          key: `invoice-adjustment:pl_${run}:${n}`,
          kind: 'invoice-adjustment',
          date,
          description: `${description}: amount ${change} to ${own} cents`,
        },
        change === 'lowered'
          ? ['DiscountsAndWriteOffs', 'AccountsReceivable']
          : ['AccountsReceivable', 'Revenue'],
        cents,
        c,
        extra,
      ),
  };
}

/** A 10,000.00 link, lowered to 8,000.00, then paid 8,000.00. */
function loweredLink(date = '2026-11-05') {
  const link = linkDocuments('WO', 'Write-off');
  const invoiceDoc = link.invoice(10_000_00, 'a');
  const lowered = link.adjustment(1, date, 'lowered', 800000, 2_000_00, 'b');
  const payment = link.payment('2026-11-08', 8_000_00, 'c');
  const reversed: TargetDocument = {
    ...lowered,
    key: `reversal:${lowered.key}`,
    kind: 'reversal',
    date: '2026-12-03',
    description: `Reversal of ${lowered.key}`,
    lines: lowered.lines.map((l) => ({ ...l, amountCents: -l.amountCents })),
    contentHash: hash('d'),
    reverses: lowered.key,
    reason: 'lowered by mistake',
    originalDate: lowered.date,
  };
  return { invoice: invoiceDoc, lowered, payment, reversed };
}

function recorder() {
  const { pushed, context } = pushIndex({ mayExist: true });
  return { pushed, context };
}

describe('QuickBooks Online: a lowered invoice is credited and the credit applied', () => {
  it('10,000.00 lowered to 8,000.00 and paid 8,000.00: a CreditMemo applied by a zero Payment, the invoice open 8,000.00 then 0', async () => {
    const c = quickBooksCompany(double, cipher);
    const target = c.target();
    const docs = loweredLink();
    const { pushed, context } = recorder();
    pushed.set(docs.invoice.key, await target.push(docs.invoice, context));
    const invoiceId = idOf(pushed.get(docs.invoice.key)?.remoteIds[0]);
    const invoice = () => double.get(c.realmId, 'Invoice', invoiceId);
    expect(invoice()?.Balance).toBe(10_000);

    const credit = await target.push(docs.lowered, context);
    pushed.set(docs.lowered.key, credit);
    expect(credit.created).toBe(true);
    expect(credit.remoteIds[0]).toMatch(/^CreditMemo:/);
    expect(credit.remoteIds[1]).toMatch(/^Payment:/);
    const memo = double.get(c.realmId, 'CreditMemo', idOf(credit.remoteIds[0]));
    expect(memo).toMatchObject({ TxnDate: '2026-11-05', TotalAmt: 2_000, Balance: 0, RemainingCredit: 0 });
    expect(String(memo?.PrivateNote)).toContain(`booksync key=${docs.lowered.key} hash=${hash('b')}`);
    expect(memo?.CustomerRef).toEqual(invoice()?.CustomerRef);
    // The application: a Payment of 0 linking the invoice and the credit memo for 2,000.00 each.
    const application = double.get(c.realmId, 'Payment', idOf(credit.remoteIds[1]));
    expect(application).toMatchObject({ TotalAmt: 0, TxnDate: '2026-11-05' });
    expect(application?.Line).toEqual([
      { Amount: 2_000, LinkedTxn: [{ TxnId: invoiceId, TxnType: 'Invoice' }] },
      { Amount: 2_000, LinkedTxn: [{ TxnId: idOf(credit.remoteIds[0]), TxnType: 'CreditMemo' }] },
    ]);
    // The invoice's open amount is the service's remainder; no journal entry was made.
    expect(invoice()?.Balance).toBe(8_000);
    expect(double.all(c.realmId, 'JournalEntry')).toEqual([]);
    // The write-off is on Discounts and Write-offs, through booksync's item of that role; Revenue keeps what
    // was invoiced; no money moved.
    const item = double.all(c.realmId, 'Item').find((i) => i.Name === 'booksync DiscountsAndWriteOffs');
    expect(
      ((memo?.Line ?? []) as { SalesItemLineDetail?: { ItemRef?: { value: string } } }[])[0]
        ?.SalesItemLineDetail?.ItemRef?.value,
    ).toBe(item?.Id);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.DiscountsAndWriteOffs)).toBe(2_000_00);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.AccountsReceivable)).toBe(8_000_00);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.Revenue)).toBe(-10_000_00);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.ProcessorClearing)).toBe(0);
    // QuickBooks' own aged receivables (the close certificate's figures) say the remainder for the link.
    const link = docs.invoice.invoice?.paymentLinkId ?? '';
    expect((await target.figuresAsOf('2026-11-05')).openInvoices[link]).toBe(8_000_00);

    pushed.set(docs.payment.key, await target.push(docs.payment, context));
    expect(invoice()?.Balance).toBe(0);
    expect((await target.figuresAsOf('2026-11-08')).openInvoices[link] ?? 0).toBe(0);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.AccountsReceivable)).toBe(0);

    // Pushed again, from a restarted worker that has no index: found by its marker, nothing made twice.
    const creates = double.creates(c.realmId);
    const again = await c
      .target()
      .push(docs.lowered, { mayExist: () => true, refusals: () => 0, pushed: () => null });
    expect(again).toMatchObject({ created: false, remoteIds: [credit.remoteIds[0]] });
    expect(double.creates(c.realmId)).toBe(creates);
    expect(double.all(c.realmId, 'CreditMemo')).toHaveLength(1);
    expect(double.all(c.realmId, 'Payment')).toHaveLength(2);
    expect(invoice()?.Balance).toBe(0);
  });

  it('a written-off invoice (Dr Bad Debt): the same CreditMemo through booksync BadDebt, an item posting to the Bad Debt expense account; a discount of the same lowering a memo of its own', async () => {
    const c = quickBooksCompany(double, cipher);
    const target = c.target();
    const docs = loweredLink();
    const writtenOff: TargetDocument = {
      ...docs.lowered,
      description: `${docs.invoice.description}: 200000 cents written off as bad debt, amount lowered to 800000 cents`,
      lines: [
        { role: 'BadDebt', amountCents: 2_000_00 },
        { role: 'AccountsReceivable', amountCents: -2_000_00 },
      ],
    };
    const { pushed, context } = recorder();
    pushed.set(docs.invoice.key, await target.push(docs.invoice, context));
    const invoiceId = idOf(pushed.get(docs.invoice.key)?.remoteIds[0]);
    const credit = await target.push(writtenOff, context);
    expect(credit.remoteIds[0]).toMatch(/^CreditMemo:/);
    expect(credit.remoteIds[1]).toMatch(/^Payment:/);
    const memo = double.get(c.realmId, 'CreditMemo', idOf(credit.remoteIds[0]));
    const item = double.all(c.realmId, 'Item').find((i) => i.Name === 'booksync BadDebt');
    expect(
      ((memo?.Line ?? []) as { SalesItemLineDetail?: { ItemRef?: { value: string } } }[])[0]
        ?.SalesItemLineDetail?.ItemRef?.value,
    ).toBe(item?.Id);
    expect(double.get(c.realmId, 'Invoice', invoiceId)?.Balance).toBe(8_000);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.BadDebt)).toBe(2_000_00);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.DiscountsAndWriteOffs)).toBe(0);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.AccountsReceivable)).toBe(8_000_00);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.Revenue)).toBe(-10_000_00);
    // The same lowering's discounted rest, the ledger's next adjustment: a CreditMemo of its own through
    // booksync DiscountsAndWriteOffs, applied too; the invoice owes what the service says.
    const discounted: TargetDocument = {
      ...docs.lowered,
      key: docs.lowered.key.replace(/:1$/, ':2'),
      amountCents: 500_00,
      lines: [
        { role: 'DiscountsAndWriteOffs', amountCents: 500_00 },
        { role: 'AccountsReceivable', amountCents: -500_00 },
      ],
      contentHash: hash('e'),
    };
    const rest = await target.push(discounted, context);
    expect(rest.remoteIds[0]).toMatch(/^CreditMemo:/);
    expect(double.get(c.realmId, 'Invoice', invoiceId)?.Balance).toBe(7_500);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.BadDebt)).toBe(2_000_00);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.DiscountsAndWriteOffs)).toBe(500_00);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.AccountsReceivable)).toBe(7_500_00);
  });

  it('in a batch: the invoice, its lowering and its payment in one slice; the memo applied once', async () => {
    const c = quickBooksCompany(double, cipher);
    const docs = loweredLink();
    const outcomes = await c.target().pushMany([docs.invoice, docs.lowered, docs.payment], {
      mayExist: () => true,
      refusals: () => 0,
      pushed: () => null,
    });
    for (const outcome of outcomes) expect(outcome).not.toBeInstanceOf(Error);
    const [made, memo] = outcomes as RemoteRecord[];
    const invoice = double.get(c.realmId, 'Invoice', idOf(made?.remoteIds[0]));
    expect(invoice?.Balance).toBe(0);
    expect(double.get(c.realmId, 'CreditMemo', idOf(memo?.remoteIds[0]))?.Balance).toBe(0);
    const again = await c.target().pushMany([docs.invoice, docs.lowered, docs.payment], {
      mayExist: () => true,
      refusals: () => 0,
      pushed: () => null,
    });
    expect(again.map((o) => (o as { created?: boolean }).created)).toEqual([false, false, false]);
    expect(double.all(c.realmId, 'CreditMemo')).toHaveLength(1);
    expect(double.all(c.realmId, 'Payment')).toHaveLength(2);
  });

  it("an outage while one lowering's memo is applied: the slice's other lowerings are not settled either, and their retry applies them", async () => {
    const c = quickBooksCompany(double, cipher);
    const a = loweredLink();
    const b = loweredLink();
    const context = { mayExist: () => true, refusals: () => 0, pushed: () => null };
    // The first application (a zero Payment linking a memo and its invoice) meets an outage.
    let cut = 0;
    const { write } = QboClient.prototype;
    const spy = vi.spyOn(QboClient.prototype, 'write').mockImplementation(function (
      this: QboClient,
      entity,
      body,
      query,
    ) {
      if (entity === 'Payment' && Number(body.TotalAmt) === 0 && cut === 0) {
        cut += 1;
        throw new TargetUnavailableError('quickbooks', 'connection reset by the test');
      }
      return write.call(this, entity, body, query);
    });
    let first: (RemoteRecord | Error)[];
    try {
      first = (await c.target().pushMany([a.invoice, a.lowered, b.invoice, b.lowered], context)) as (
        | RemoteRecord
        | Error
      )[];
    } finally {
      spy.mockRestore();
    }
    expect(cut).toBe(1);
    const memos = double.all(c.realmId, 'CreditMemo');
    expect(memos.map((m) => m.Balance)).toEqual([2_000, 2_000]);
    // Both memos made, neither applied: neither lowering is settled, so the push takes both again.
    expect([first[1], first[3]].map((o) => o instanceof Error)).toEqual([true, true]);
    const again = await c.target().pushMany([a.lowered, b.lowered], context);
    for (const outcome of again) expect(outcome).not.toBeInstanceOf(Error);
    expect(double.all(c.realmId, 'CreditMemo').map((m) => m.Balance)).toEqual([0, 0]);
    for (const made of [first[0], first[2]])
      expect(double.get(c.realmId, 'Invoice', idOf((made as RemoteRecord).remoteIds[0]))?.Balance).toBe(
        8_000,
      );
  });

  it('a lowering after the invoice was paid in part applies only what the invoice still owes; the rest stays credit', async () => {
    const c = quickBooksCompany(double, cipher);
    const target = c.target();
    const docs = loweredLink('2026-11-09');
    const { pushed, context } = recorder();
    for (const doc of [docs.invoice, docs.payment]) pushed.set(doc.key, await target.push(doc, context));
    const invoiceId = idOf(pushed.get(docs.invoice.key)?.remoteIds[0]);
    expect(double.get(c.realmId, 'Invoice', invoiceId)?.Balance).toBe(2_000);
    // Lowered by 3,000.00 below what was paid: 2,000.00 applied, 1,000.00 of credit left for the customer.
    const bigger: TargetDocument = {
      ...docs.lowered,
      amountCents: 3_000_00,
      lines: [
        { role: 'DiscountsAndWriteOffs', amountCents: 3_000_00 },
        { role: 'AccountsReceivable', amountCents: -3_000_00 },
      ],
    };
    const credit = await target.push(bigger, context);
    expect(double.get(c.realmId, 'Invoice', invoiceId)?.Balance).toBe(0);
    expect(double.get(c.realmId, 'CreditMemo', idOf(credit.remoteIds[0]))).toMatchObject({
      TotalAmt: 3_000,
      Balance: 1_000,
    });
    // Pushed again: the invoice owes nothing, nothing is applied or made.
    const creates = double.creates(c.realmId);
    expect(
      await c.target().push(bigger, { mayExist: () => true, refusals: () => 0, pushed: () => null }),
    ).toMatchObject({
      created: false,
    });
    expect(double.creates(c.realmId)).toBe(creates);
  });

  it('a lowering pushed by an earlier release as a journal entry is found there, not credited again', async () => {
    const c = quickBooksCompany(double, cipher);
    const target = c.target();
    const docs = loweredLink();
    const { pushed, context } = recorder();
    pushed.set(docs.invoice.key, await target.push(docs.invoice, context));
    // The earlier release's journal entry of the lowering (Dr Revenue / Cr A/R), numbered and marked by its key.
    const account = (code: string) =>
      double.all(c.realmId, 'Account').find((a) => a.AcctNum === code)?.Id ?? '';
    const customer = double.get(c.realmId, 'Invoice', idOf(pushed.get(docs.invoice.key)?.remoteIds[0]))
      ?.CustomerRef as { value: string };
    const line = (posting: string, code: string, party?: boolean) => ({
      Amount: 2_000,
      DetailType: 'JournalEntryLineDetail',
      JournalEntryLineDetail: {
        PostingType: posting,
        AccountRef: { value: account(code) },
        ...(party ? { Entity: { Type: 'Customer', EntityRef: customer } } : {}),
      },
    });
    const journal = double.seed(c.realmId, 'JournalEntry', {
      TxnDate: docs.lowered.date,
      DocNumber: docNumberTag(docs.lowered.key),
      PrivateNote: marker(docs.lowered.key, docs.lowered.contentHash),
      Line: [
        line('Debit', defaultAccountCodes.Revenue),
        line('Credit', defaultAccountCodes.AccountsReceivable, true),
      ],
    });
    const found = await c
      .target()
      .push(docs.lowered, { mayExist: () => true, refusals: () => 0, pushed: () => null });
    expect(found).toMatchObject({ created: false, remoteIds: [`JournalEntry:${journal.Id}`] });
    expect(double.all(c.realmId, 'CreditMemo')).toEqual([]);
    expect(double.all(c.realmId, 'Payment')).toEqual([]);
  });

  it('reversed after its month is closed: a charge invoice dated in the open period, the credit memo untouched', async () => {
    const c = quickBooksCompany(double, cipher);
    const target = c.target();
    const docs = loweredLink();
    const { pushed, context } = recorder();
    for (const doc of [docs.invoice, docs.lowered]) pushed.set(doc.key, await target.push(doc, context));
    double.closeBooks(c.realmId, '2026-11-30');
    const reversal = await c.target().push(docs.reversed, context);
    expect(reversal.remoteIds[0]).toMatch(/^Invoice:/);
    const charge = double.get(c.realmId, 'Invoice', idOf(reversal.remoteIds[0]));
    expect(charge).toMatchObject({ TxnDate: '2026-12-03', TotalAmt: 2_000, Balance: 2_000 });
    const memo = double.get(c.realmId, 'CreditMemo', idOf(pushed.get(docs.lowered.key)?.remoteIds[0]));
    expect(memo).toMatchObject({ TotalAmt: 2_000, Balance: 0 });
    expect(double.balanceOf(c.realmId, defaultAccountCodes.AccountsReceivable)).toBe(10_000_00);
    // The charge takes the write-off back off the account it was on.
    expect(double.balanceOf(c.realmId, defaultAccountCodes.DiscountsAndWriteOffs)).toBe(0);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.Revenue)).toBe(-10_000_00);
    // Found again by its key from a restarted worker.
    const creates = double.creates(c.realmId);
    expect(
      await c.target().push(docs.reversed, { mayExist: () => true, refusals: () => 0, pushed: () => null }),
    ).toMatchObject({
      created: false,
      remoteIds: reversal.remoteIds,
    });
    expect(double.creates(c.realmId)).toBe(creates);
  });
});

/**
 * A 1.01 link paid in full by card, lowered to 1.00 (0.01 of the customer's credit, the invoice paid),
 * then raised back to 1.01: each document as the ledger gives it (applications.ts), the raise taking the
 * lowering's credit (TargetDocument.reapplies).
 */
function raisedBack() {
  const link = linkDocuments('RB', 'Raised');
  const invoice = link.invoice(101, 'a');
  const payment = link.payment('2026-11-03', 101, 'b', {
    settles: { applied: [{ key: invoice.key, amountCents: 101 }], unappliedCents: 0 },
  });
  const lowered = link.adjustment(1, '2026-11-04', 'lowered', 100, 1, 'c', {
    settles: { applied: [], unappliedCents: 1 },
  });
  const raised = link.adjustment(2, '2026-11-05', 'raised', 101, 1, 'd');
  raised.reapplies = [{ credit: lowered.key, applied: [{ key: raised.key, amountCents: 1 }] }];
  return { invoice, payment, lowered, raised, link: link.link };
}

describe('QuickBooks Online: a raise takes the credit a lowering left the customer', () => {
  it('1.01 paid, lowered to 1.00, raised back to 1.01: the charge Invoice takes the memo’s 0.01, the link owes nothing', async () => {
    const c = quickBooksCompany(double, cipher);
    const target = c.target();
    const docs = raisedBack();
    const { pushed, context } = recorder();
    for (const doc of [docs.invoice, docs.payment, docs.lowered])
      pushed.set(doc.key, await target.push(doc, context));
    const memoId = idOf(pushed.get(docs.lowered.key)?.remoteIds[0]);
    const memo = () => double.get(c.realmId, 'CreditMemo', memoId);
    // The invoice was paid: the lowering's 0.01 stays the customer's credit.
    expect(memo()?.Balance).toBe(0.01);

    const raise = await target.push(docs.raised, context);
    pushed.set(docs.raised.key, raise);
    expect(raise.remoteIds).toHaveLength(1);
    expect(raise.remoteIds[0]).toMatch(/^Invoice:/);
    const chargeId = idOf(raise.remoteIds[0]);
    const charge = () => double.get(c.realmId, 'Invoice', chargeId);
    // Applied by a zero Payment linking the charge Invoice and the CreditMemo for 0.01 each.
    const application = double
      .all(c.realmId, 'Payment')
      .find((p) => String(p.PrivateNote).includes(`charged by ${docs.raised.key}`));
    expect(application).toMatchObject({ TotalAmt: 0 });
    expect(application?.Line).toEqual([
      { Amount: 0.01, LinkedTxn: [{ TxnId: chargeId, TxnType: 'Invoice' }] },
      { Amount: 0.01, LinkedTxn: [{ TxnId: memoId, TxnType: 'CreditMemo' }] },
    ]);
    expect(charge()?.Balance).toBe(0);
    expect(memo()?.Balance).toBe(0);
    const invoices = double
      .all(c.realmId, 'Invoice')
      .filter((i) => [idOf(pushed.get(docs.invoice.key)?.remoteIds[0]), chargeId].includes(String(i.Id)));
    expect(invoices.reduce((sum, i) => sum + Number(i.Balance), 0)).toBe(0);
    expect((await target.figuresAsOf('2026-11-05')).openInvoices[docs.link] ?? 0).toBe(0);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.AccountsReceivable)).toBe(0);

    // Pushed again, from a restarted worker that has no index: found by its marker, nothing applied twice.
    const payments = double.all(c.realmId, 'Payment').length;
    const again = await c
      .target()
      .push(docs.raised, { mayExist: () => true, refusals: () => 0, pushed: () => null });
    expect(again).toMatchObject({ created: false, remoteIds: [raise.remoteIds[0]] });
    expect(double.all(c.realmId, 'Payment')).toHaveLength(payments);
    expect(charge()?.Balance).toBe(0);
  });

  it('in a batch: the four documents in one slice; the lowering’s credit taken by the raise once', async () => {
    const c = quickBooksCompany(double, cipher);
    const docs = raisedBack();
    const slice = [docs.invoice, docs.payment, docs.lowered, docs.raised];
    const context = { mayExist: () => true, refusals: () => 0, pushed: () => null };
    const outcomes = await c.target().pushMany(slice, context);
    for (const outcome of outcomes) expect(outcome).not.toBeInstanceOf(Error);
    const [invoice, , memo, raise] = outcomes as RemoteRecord[];
    for (const made of [invoice, raise])
      expect(double.get(c.realmId, 'Invoice', idOf(made?.remoteIds[0]))?.Balance).toBe(0);
    expect(double.get(c.realmId, 'CreditMemo', idOf(memo?.remoteIds[0]))?.Balance).toBe(0);
    const payments = double.all(c.realmId, 'Payment').length;
    const again = await c.target().pushMany(slice, context);
    expect(again.map((o) => (o as { created?: boolean }).created)).toEqual([false, false, false, false]);
    expect(double.all(c.realmId, 'Payment')).toHaveLength(payments);
  });
});
