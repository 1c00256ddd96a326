import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { describe, expect, it } from 'vitest';
import { TokenCipher } from '../../../src/targets/quickbooks/index.js';
import type { TargetDocument } from '../../../src/targets/target-port.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { pushIndex } from '../../support/push-index.js';
import { quickBooksCompany } from '../../support/quickbooks/company.js';

// In QuickBooks Online: money paying a link and its memo is one Payment applied to both
// invoices (a line each, LinkedTxn), and money beyond everything owed stays unapplied on the Payment (its
// UnappliedAmt, the customer's credit), instead of the whole applied to the link's invoice, which QuickBooks
// refuses over the invoice's balance.

const double = doubleForFile(new QuickBooksDouble());
const cipher = new TokenCipher('test-secret-for-quickbooks-applications');
const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';
const hash = (c: string) => c.repeat(64);

function link() {
  const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const customer = { serviceId: `cus_${run}`, name: `Memo Payer ${run}`, email: `${run}@memo.test` };
  const invoice = { paymentLinkId: `pl_${run}`, number: `MP-${run}` };
  const base = { invoice, customer, reference: `pl_${run}` };
  const invoiceDoc: TargetDocument = {
    ...base,
    key: `invoice:pl_${run}`,
    kind: 'invoice',
    date: '2026-11-02',
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
    date: '2026-11-03',
    description: `Debit memo dm_${run} on payment link pl_${run}`,
    amountCents: 25_00,
    lines: [
      { role: 'AccountsReceivable', amountCents: 25_00 },
      { role: 'FeeIncome', amountCents: -25_00 },
    ],
    contentHash: hash('b'),
  };
  const payment = (id: string, cents: number, settles: TargetDocument['settles']): TargetDocument => ({
    ...base,
    key: `payment:${id}_${run}`,
    kind: 'payment',
    date: '2026-11-05',
    description: `Payment ${id}_${run} received`,
    amountCents: cents,
    lines: [
      { role: 'ProcessorClearing', amountCents: cents },
      { role: 'AccountsReceivable', amountCents: -cents },
    ],
    contentHash: hash(id.slice(0, 1)),
    reference: `${id}_${run}`,
    settles,
  });
  return { invoice: invoiceDoc, memo, payment, link: invoice.paymentLinkId };
}

describe('QuickBooks Online: money applied as the service applies it', () => {
  it('a payment of the link and its memo is one Payment applied to both invoices; money over what is owed stays unapplied', async () => {
    const c = quickBooksCompany(double, cipher);
    const target = c.target();
    const docs = link();
    const { pushed, context } = pushIndex();
    for (const doc of [docs.invoice, docs.memo]) pushed.set(doc.key, await target.push(doc, context));
    const invoiceId = idOf(pushed.get(docs.invoice.key)?.remoteIds[0]);
    const memoId = idOf(pushed.get(docs.memo.key)?.remoteIds[0]);
    const balance = (id: string) => double.get(c.realmId, 'Invoice', id)?.Balance;
    expect([balance(invoiceId), balance(memoId)]).toEqual([100, 25]);

    const both = await target.push(
      docs.payment('both', 125_00, {
        applied: [
          { key: docs.invoice.key, amountCents: 100_00 },
          { key: docs.memo.key, amountCents: 25_00 },
        ],
        unappliedCents: 0,
      }),
      context,
    );
    const payment = double.get(c.realmId, 'Payment', idOf(both.remoteIds[0]));
    expect(payment).toMatchObject({ TotalAmt: 125, UnappliedAmt: 0 });
    expect(payment?.Line).toEqual([
      { Amount: 100, LinkedTxn: [{ TxnId: invoiceId, TxnType: 'Invoice' }] },
      { Amount: 25, LinkedTxn: [{ TxnId: memoId, TxnType: 'Invoice' }] },
    ]);
    expect([balance(invoiceId), balance(memoId)]).toEqual([0, 0]);
    expect((await target.figuresAsOf('2026-11-05')).openInvoices[docs.link] ?? 0).toBe(0);

    // 10.00 more than anything owed: a Payment applied to nothing, its whole amount unapplied.
    const over = await target.push(
      docs.payment('over', 10_00, { applied: [], unappliedCents: 10_00 }),
      context,
    );
    expect(double.get(c.realmId, 'Payment', idOf(over.remoteIds[0]))).toMatchObject({
      TotalAmt: 10,
      UnappliedAmt: 10,
      Line: [],
    });
    expect([balance(invoiceId), balance(memoId)]).toEqual([0, 0]);
  });
});
