import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { describe, expect, it } from 'vitest';
import { type AccountRole, defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import { TokenCipher } from '../../../src/targets/quickbooks/index.js';
import type { PushContext, TargetDocument } from '../../../src/targets/target-port.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { pushIndex } from '../../support/push-index.js';
import { quickBooksCompany } from '../../support/quickbooks/company.js';
import { ledgerBalance, refusedVoidDocuments } from '../refused-void-documents.js';

// A reversal in the same open month that QBO will not void in place, because money moved on the original: a
// sales receipt a payout's Deposit holds (6540, rule deposited-void), an invoice a payment is applied to
// (rule invoice-void-applied), a payment a payout's Deposit holds. Each is pushed as the document booksync
// makes after a close, dated the reversal's date; the original stays as it is, and QBO's balances are the
// ledger's.

const double = doubleForFile(new QuickBooksDouble());
const cipher = new TokenCipher('test-secret-for-quickbooks-refused-voids');
const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';
const noIndex: PushContext = { mayExist: () => true, refusals: () => 0, pushed: () => null };

/** QBO's balance of each role's account equals the ledger's after `docs`. */
function expectLedgerBalances(realmId: string, docs: TargetDocument[], roles: AccountRole[]) {
  const qbo = Object.fromEntries(roles.map((r) => [r, double.balanceOf(realmId, defaultAccountCodes[r])]));
  const ledger = Object.fromEntries(roles.map((r) => [r, ledgerBalance(docs, r)]));
  expect(qbo).toEqual(ledger);
}

describe('QuickBooks Online: same-month reversals QBO refuses to void', () => {
  it('a sale paid out, then returned: a reversing journal dated the return, the sales receipt kept', async () => {
    const c = quickBooksCompany(double, cipher);
    const d = refusedVoidDocuments();
    const { pushed, context } = pushIndex({ mayExist: true });
    const target = c.target();
    for (const doc of [d.sale, d.salePayout]) pushed.set(doc.key, await target.push(doc, context));
    const receiptId = idOf(pushed.get(d.sale.key)?.remoteIds[0]);

    const returned = await target.push(d.saleReturned, context);
    expect(returned).toMatchObject({ created: true });
    expect(returned.remoteIds[0]).toMatch(/^JournalEntry:/);
    const journal = double.get(c.realmId, 'JournalEntry', idOf(returned.remoteIds[0]));
    expect(journal?.TxnDate).toBe(d.saleReturned.date);
    // The sales receipt and its deposit stand: not voided, its amount whole.
    expect(double.isVoided(c.realmId, 'SalesReceipt', receiptId)).toBe(false);
    expect(double.get(c.realmId, 'SalesReceipt', receiptId)?.TotalAmt).toBe(25);
    // Income back down; the clearing account owes the returned money the payout already took.
    expectLedgerBalances(
      c.realmId,
      [d.sale, d.salePayout, d.saleReturned],
      ['Revenue', 'ProcessorClearing', 'PayoutsInTransit'],
    );
    expect(double.balanceOf(c.realmId, defaultAccountCodes.Revenue)).toBe(0);

    // Found again by its key from a restarted worker with no index: nothing made twice.
    const again = await c.target().push(d.saleReturned, noIndex);
    expect(again).toMatchObject({ created: false, remoteIds: returned.remoteIds });
    expect(double.all(c.realmId, 'JournalEntry')).toHaveLength(1);
    // The refused void left no reversal on the sales receipt: the reversal is found as the journal.
    expect(await c.target().find(d.saleReturned.key)).toMatchObject({ remoteIds: returned.remoteIds });
  });

  it('a debit memo paid, then voided: a reversing journal on the customer, the paid charge invoice kept', async () => {
    const c = quickBooksCompany(double, cipher);
    const d = refusedVoidDocuments();
    const { pushed, context } = pushIndex({ mayExist: true });
    const target = c.target();
    for (const doc of [d.invoice, d.debitMemo, d.memoPaid])
      pushed.set(doc.key, await target.push(doc, context));
    const memoId = idOf(pushed.get(d.debitMemo.key)?.remoteIds[0]);
    expect(double.get(c.realmId, 'Invoice', memoId)).toMatchObject({ TotalAmt: 15, Balance: 0 });
    const from = double.requests.length;

    const voided = await target.push(d.memoVoided, context);
    expect(voided.remoteIds[0]).toMatch(/^JournalEntry:/);
    const journal = double.get(c.realmId, 'JournalEntry', idOf(voided.remoteIds[0]));
    expect(journal?.TxnDate).toBe(d.memoVoided.date);
    // Read, not written: no void attempted, no marker added to the paid charge invoice.
    expect(
      double.requests.slice(from).filter((r) => r.method === 'POST' && /\/invoice\?/.test(r.url)),
    ).toEqual([]);
    const memo = double.get(c.realmId, 'Invoice', memoId);
    expect(memo).toMatchObject({ TotalAmt: 15, Balance: 0 });
    expect(String(memo?.PrivateNote)).not.toContain(d.memoVoided.key);
    // The fee income is gone again; the customer's 15.00 paid is their credit on A/R; the link's own invoice
    // still owes its 120.00.
    const docs = [d.invoice, d.debitMemo, d.memoPaid, d.memoVoided];
    expectLedgerBalances(c.realmId, docs, ['FeeIncome', 'AccountsReceivable', 'ProcessorClearing']);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.FeeIncome)).toBe(0);
    type JournalLine = { JournalEntryLineDetail: { Entity?: { EntityRef?: { value?: string } } } };
    const named = ((journal?.Line ?? []) as JournalLine[])
      .map((l) => l.JournalEntryLineDetail.Entity?.EntityRef?.value)
      .filter(Boolean);
    expect(named).toContain((memo?.CustomerRef as { value?: string } | undefined)?.value);
    expect(double.get(c.realmId, 'Invoice', idOf(pushed.get(d.invoice.key)?.remoteIds[0]))?.Balance).toBe(
      120,
    );

    const again = await c.target().push(d.memoVoided, noIndex);
    expect(again).toMatchObject({ created: false, remoteIds: voided.remoteIds });
  });

  it('a payment paid out, then reversed: a charge invoice dated the return, the payment kept', async () => {
    const c = quickBooksCompany(double, cipher);
    const d = refusedVoidDocuments();
    const { pushed, context } = pushIndex({ mayExist: true });
    const target = c.target();
    for (const doc of [d.invoice, d.payment, d.paymentPayout])
      pushed.set(doc.key, await target.push(doc, context));
    const paymentId = idOf(pushed.get(d.payment.key)?.remoteIds[0]);
    const invoiceId = idOf(pushed.get(d.invoice.key)?.remoteIds[0]);

    const reversed = await target.push(d.paymentReversed, context);
    expect(reversed.remoteIds[0]).toMatch(/^Invoice:/);
    expect(double.get(c.realmId, 'Invoice', idOf(reversed.remoteIds[0]))).toMatchObject({
      TxnDate: d.paymentReversed.date,
      TotalAmt: 50,
      Balance: 50,
    });
    expect(double.isVoided(c.realmId, 'Payment', paymentId)).toBe(false);
    // The link's invoice keeps what the payment paid; the customer owes the 50.00 again on the charge invoice.
    expect(double.get(c.realmId, 'Invoice', invoiceId)?.Balance).toBe(70);
    expectLedgerBalances(
      c.realmId,
      [d.invoice, d.payment, d.paymentPayout, d.paymentReversed],
      ['AccountsReceivable', 'ProcessorClearing', 'PayoutsInTransit', 'Revenue'],
    );
  });
});
