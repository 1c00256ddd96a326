import { PAYMENT_APPLIED, RECONCILED_PAYMENT, XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { describe, expect, it } from 'vitest';
import { type AccountRole, defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import { TargetRefusedError } from '../../../src/targets/errors.js';
import { RealmLimiter } from '../../../src/targets/oauth/limiter.js';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import type { PushContext, TargetDocument } from '../../../src/targets/target-port.js';
import { isRefusedInPlace } from '../../../src/targets/xero/faults.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { pushIndex } from '../../support/push-index.js';
import { xeroOrganisation } from '../../support/xero/organisation.js';
import { ledgerBalance, refusedVoidDocuments } from '../refused-void-documents.js';

// A reversal in the same open month that Xero will not make in place, because money moved on the original:
// an invoice (a debit memo's) with a payment applied is not voided (rule paid-invoice-void), a payment bank
// reconciliation matched is not deleted (rule reconciled-payment-delete). Each is pushed as the documents
// booksync makes after a close, dated the reversal's date; the original stays as it is, and Xero's balances
// are the ledger's. A sale paid out is still deleted in place: a payout's transfer does not hold it.

const double = doubleForFile(
  new XeroDouble({ limits: { concurrent: 5, perMinute: 60, perDay: 5_000, windowMs: 1_000 } }),
);
const cipher = new TokenCipher('test-secret-for-xero-refused-reversals');
const organisation = () =>
  xeroOrganisation(double, cipher, {
    limiter: new RealmLimiter({ perMinute: 60, concurrent: 5, windowMs: 1_000, marginMs: 50 }),
  });
const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';
const day = (msDate: unknown) =>
  new Date(Number(/\/Date\((\d+)/.exec(String(msDate))?.[1])).toISOString().slice(0, 10);
const noIndex: PushContext = { mayExist: () => true, refusals: () => 0, pushed: () => null };

/** Xero's balance of each role's account equals the ledger's after `docs`. */
function expectLedgerBalances(tenantId: string, docs: TargetDocument[], roles: AccountRole[]) {
  const xero = Object.fromEntries(roles.map((r) => [r, double.balanceOf(tenantId, defaultAccountCodes[r])]));
  const ledger = Object.fromEntries(roles.map((r) => [r, ledgerBalance(docs, r)]));
  expect(xero).toEqual(ledger);
}

describe('Xero: same-month reversals Xero refuses to make in place', { timeout: 60_000 }, () => {
  it('a debit memo paid, then voided: a credit note dated the void, the paid invoice kept', async () => {
    const org = organisation();
    const target = org.target();
    const d = refusedVoidDocuments();
    const { pushed, context } = pushIndex({ mayExist: true });
    for (const doc of [d.invoice, d.debitMemo, d.memoPaid])
      pushed.set(doc.key, await target.push(doc, context));
    const memoId = idOf(pushed.get(d.debitMemo.key)?.remoteIds[0]);
    expect(double.get(org.tenantId, 'Invoices', memoId)).toMatchObject({ Status: 'PAID', AmountPaid: 15 });

    const voided = await target.push(d.memoVoided, context);
    expect(voided).toMatchObject({ created: true });
    expect(voided.remoteIds).toEqual([expect.stringMatching(/^CreditNote:/)]);
    const note = double.get(org.tenantId, 'CreditNotes', idOf(voided.remoteIds[0]));
    expect(note).toMatchObject({ Type: 'ACCRECCREDIT', Status: 'AUTHORISED', Total: 15 });
    expect(day(note?.Date)).toBe(d.memoVoided.date);
    // The paid invoice and its payment stand; the link's own invoice still owes its 120.00.
    expect(double.get(org.tenantId, 'Invoices', memoId)).toMatchObject({ Status: 'PAID', AmountPaid: 15 });
    const invoiceId = idOf(pushed.get(d.invoice.key)?.remoteIds[0]);
    expect(double.get(org.tenantId, 'Invoices', invoiceId)?.AmountDue).toBe(120);
    // Fee income down again; the 15.00 paid is the customer's credit, on the credit note.
    expectLedgerBalances(
      org.tenantId,
      [d.invoice, d.debitMemo, d.memoPaid, d.memoVoided],
      ['FeeIncome', 'AccountsReceivable', 'ProcessorClearing'],
    );
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.FeeIncome)).toBe(0);

    const again = await org.target().push(d.memoVoided, noIndex);
    expect(again).toMatchObject({ created: false, remoteIds: voided.remoteIds });
    // The credit note names the link after its marker, so Xero's figures count the customer's 15.00 credit
    // against the invoice's 120.00 from the void's day, as the ledger's open amount of the link.
    const link = String(d.invoice.invoice?.paymentLinkId);
    expect(String(note?.Reference)).toContain(`booksync link=${link}`);
    expect((await target.figuresAsOf('2026-11-09')).openInvoices).toEqual({ [link]: 120_00 });
    expect((await target.figuresAsOf('2026-11-10')).openInvoices).toEqual({ [link]: 105_00 });
  });

  it('a payment reconciled, then reversed: an invoice owed again and a spend dated the return, the payment kept', async () => {
    const org = organisation();
    const target = org.target();
    const d = refusedVoidDocuments();
    const { pushed, context } = pushIndex({ mayExist: true });
    for (const doc of [d.invoice, d.payment, d.paymentPayout])
      pushed.set(doc.key, await target.push(doc, context));
    const paymentId = idOf(pushed.get(d.payment.key)?.remoteIds[0]);
    const invoiceId = idOf(pushed.get(d.invoice.key)?.remoteIds[0]);
    double.reconcile(org.tenantId, paymentId);

    const reversed = await target.push(d.paymentReversed, context);
    expect(reversed.remoteIds).toEqual([
      expect.stringMatching(/^Invoice:/),
      expect.stringMatching(/^BankTransaction:/),
    ]);
    const owedAgain = double.get(org.tenantId, 'Invoices', idOf(reversed.remoteIds[0]));
    expect(owedAgain).toMatchObject({ Type: 'ACCREC', Status: 'AUTHORISED', AmountDue: 50 });
    expect(day(owedAgain?.Date)).toBe(d.paymentReversed.date);
    const spent = double.get(org.tenantId, 'BankTransactions', idOf(reversed.remoteIds[1]));
    expect(spent).toMatchObject({ Type: 'SPEND', Total: 50 });
    expect(day(spent?.Date)).toBe(d.paymentReversed.date);
    // The reconciled payment stands; the customer owes the invoice's 70.00 and the 50.00 again.
    expect(double.get(org.tenantId, 'Payments', paymentId)).toMatchObject({
      Status: 'AUTHORISED',
      IsReconciled: true,
    });
    expect(Number(double.get(org.tenantId, 'Invoices', invoiceId)?.AmountDue) + 50).toBe(120);
    expectLedgerBalances(
      org.tenantId,
      [d.invoice, d.payment, d.paymentPayout, d.paymentReversed],
      ['AccountsReceivable', 'ProcessorClearing', 'PayoutsInTransit', 'Revenue'],
    );
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.Refunds)).toBe(0);

    const again = await org.target().push(d.paymentReversed, noIndex);
    expect(again).toMatchObject({ created: false, remoteIds: reversed.remoteIds });
  });

  it('a sale paid out, then returned: its bank transaction deleted in place, as Xero allows', async () => {
    const org = organisation();
    const target = org.target();
    const d = refusedVoidDocuments();
    const { pushed, context } = pushIndex({ mayExist: true });
    for (const doc of [d.sale, d.salePayout]) pushed.set(doc.key, await target.push(doc, context));
    const returned = await target.push(d.saleReturned, context);
    expect(returned.remoteIds[0]).toMatch(/^deleted:/);
    expectLedgerBalances(
      org.tenantId,
      [d.sale, d.salePayout, d.saleReturned],
      ['Revenue', 'ProcessorClearing', 'PayoutsInTransit'],
    );
  });

  it('reads a refused cancel by Xero’s words', () => {
    expect(isRefusedInPlace(new TargetRefusedError('xero', `ValidationException: ${PAYMENT_APPLIED}`))).toBe(
      true,
    );
    expect(isRefusedInPlace(new TargetRefusedError('xero', RECONCILED_PAYMENT))).toBe(true);
    expect(isRefusedInPlace(new TargetRefusedError('xero', 'Status DELETED is not allowed here'))).toBe(
      false,
    );
  });
});
