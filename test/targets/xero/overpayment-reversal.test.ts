import { OVERPAYMENT_DELETE, XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { describe, expect, it } from 'vitest';
import { defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import { TargetRefusedError } from '../../../src/targets/errors.js';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import type { TargetDocument } from '../../../src/targets/target-port.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { pushIndex } from '../../support/push-index.js';
import { xeroOrganisation } from '../../support/xero/organisation.js';
import { documentsForContract } from '../target-contract.js';

// `overpayment-delete` (packages/vendor-doubles/src/xero/README.md): a Xero overpayment is AUTHORISED, PAID or VOIDED, never
// DELETED (xero_accounting.yaml `Overpayment.Status`; XeroAPI/Xero-Net#63). booksync reverses a customer's
// credit as Xero documents it: the credit's allocations removed (DELETE /Overpayments/{id}/Allocations/{id})
// and what is left refunded, a Payment against the overpayment (https://developer.xero.com/documentation/api/
// accounting/payments), dated in the open period, carrying the reversal's marker.

const double = doubleForFile(
  new XeroDouble({ limits: { concurrent: 5, perMinute: 60, perDay: 5_000, windowMs: 1_000 } }),
);
const cipher = new TokenCipher('test-secret-for-xero-overpayments');
const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';

/** The contract's invoice (120.00) paid 50.00, then 90.00 more than the 70.00 it still owes: the customer's credit. */
function credited() {
  const docs = documentsForContract();
  const over: TargetDocument = {
    ...docs.payment,
    key: `payment:over_${docs.run}`,
    amountCents: 90_00,
    lines: [
      { role: 'ProcessorClearing', amountCents: 90_00 },
      { role: 'AccountsReceivable', amountCents: -90_00 },
    ],
    contentHash: '4'.repeat(64),
  };
  const returned = (date: string): TargetDocument => ({
    ...over,
    key: `reversal:${over.key}`,
    kind: 'reversal',
    date,
    description: `Reversal of ${over.key}: payment.failed`,
    lines: over.lines.map((l) => ({ ...l, amountCents: -l.amountCents })),
    contentHash: '5'.repeat(64),
    reverses: over.key,
    reason: 'payment.failed',
  });
  return { docs, over, returned };
}

async function pushedCredit() {
  const org = xeroOrganisation(double, cipher);
  const { docs, over, returned } = credited();
  const { pushed, context } = pushIndex({ mayExist: true });
  for (const doc of [docs.invoice, docs.payment, over])
    pushed.set(doc.key, await org.target().push(doc, context));
  const transaction = double.get(org.tenantId, 'BankTransactions', idOf(pushed.get(over.key)?.remoteIds[0]));
  expect(transaction).toMatchObject({ Type: 'RECEIVE-OVERPAYMENT', Total: 90 });
  const overpaymentId = String(transaction?.OverpaymentID);
  return { org, docs, over, returned, pushed, context, transaction, overpaymentId };
}

/** Requests that would set the bank transaction DELETED (booksync's only POST to one bank transaction). */
const deletesOf = (tenantId: string, id: string) =>
  double.requests.filter((r) => r.tenantId === tenantId && r.method === 'POST' && r.url.includes(id));

describe('Xero: a customer’s credit reversed', () => {
  it('Xero refuses an overpayment’s bank transaction set DELETED', async () => {
    const { org, transaction } = await pushedCredit();
    const refused = await org
      .target()
      .client.call('updateBankTransaction', (api, t) =>
        api.updateBankTransaction(
          t,
          String(transaction?.BankTransactionID),
          {
            bankTransactions: [
              {
                type: 'RECEIVE-OVERPAYMENT',
                bankAccount: { code: defaultAccountCodes.ProcessorClearing },
                lineItems: [{ description: 'credit', quantity: 1, unitAmount: 90 }],
                status: 'DELETED',
              },
            ],
          } as never,
          undefined,
          `overpayment-delete-${org.tenantId}`,
        ),
      )
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TargetRefusedError);
    expect((refused as TargetRefusedError).targetMessage).toContain(OVERPAYMENT_DELETE);
  });

  it('Xero allocates an overpayment to an invoice of its contact within its credit and the AmountDue, never into a locked period', async () => {
    const { org, docs, pushed, overpaymentId } = await pushedCredit();
    const invoiceId = idOf(pushed.get(docs.invoice.key)?.remoteIds[0]);
    const allocate = (cents: number, date: string) =>
      org
        .target()
        .client.call('createOverpaymentAllocations', (api, t) =>
          api.createOverpaymentAllocations(
            t,
            overpaymentId,
            { allocations: [{ invoice: { invoiceID: invoiceId }, amount: cents / 100, date }] as never[] },
            false,
            `overpayment-allocation-${org.tenantId}-${cents}-${date}`,
          ),
        )
        .catch((e: unknown) => e);
    // The invoice owes 70.00: 80.00 is more than it owes.
    const over = await allocate(80_00, '2026-12-02');
    expect(over).toBeInstanceOf(TargetRefusedError);
    expect((over as TargetRefusedError).targetMessage).toContain('exceeds the amount outstanding');
    double.lockDates(org.tenantId, { period: '2026-11-30' });
    expect(await allocate(20_00, '2026-11-20')).toBeInstanceOf(TargetRefusedError);
    expect(await allocate(20_00, '2026-12-02')).not.toBeInstanceOf(Error);
    expect(double.get(org.tenantId, 'Invoices', invoiceId)).toMatchObject({ AmountDue: 50 });
    expect(double.get(org.tenantId, 'Overpayments', overpaymentId)).toMatchObject({
      Status: 'AUTHORISED',
      RemainingCredit: 70,
    });
  });

  it('returned in its month: refunded out of the clearing account, never sent DELETED; found again, not refunded twice', async () => {
    const { org, returned, context, transaction, overpaymentId } = await pushedCredit();
    const reversal = returned('2026-11-06');
    const result = await org.target().push(reversal, context);
    expect(result).toMatchObject({ created: true, remoteIds: [expect.stringMatching(/^Payment:/)] });
    expect(deletesOf(org.tenantId, String(transaction?.BankTransactionID))).toEqual([]);
    expect(double.get(org.tenantId, 'Overpayments', overpaymentId)).toMatchObject({
      Status: 'PAID',
      RemainingCredit: 0,
    });
    expect(double.get(org.tenantId, 'Payments', idOf(result.remoteIds[0]))).toMatchObject({
      Amount: 90,
      PaymentType: 'AROVERPAYMENTPAYMENT',
      Account: { Code: defaultAccountCodes.ProcessorClearing },
    });
    // As the ledger: the invoice owes 70.00, the clearing account holds the 50.00 that stayed.
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.AccountsReceivable)).toBe(70_00);
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.ProcessorClearing)).toBe(50_00);
    const again = await org.target().push(reversal, { ...context, pushed: () => null });
    expect(again).toMatchObject({ created: false, remoteIds: result.remoteIds });
    expect(await org.target().find(reversal.key)).toMatchObject({ remoteIds: result.remoteIds });
    expect(double.all(org.tenantId, 'Payments').filter((p) => p.Overpayment)).toHaveLength(1);
  });

  it('a credit a bookkeeper allocated to an invoice: the allocation removed (the invoice owed again), the whole credit refunded', async () => {
    const { org, docs, pushed, returned, context, overpaymentId } = await pushedCredit();
    const invoiceId = idOf(pushed.get(docs.invoice.key)?.remoteIds[0]);
    double.allocateOverpayment(org.tenantId, overpaymentId, invoiceId, 30_00);
    expect(double.get(org.tenantId, 'Invoices', invoiceId)).toMatchObject({ AmountDue: 40 });
    const result = await org.target().push(returned('2026-11-07'), context);
    expect(double.get(org.tenantId, 'Invoices', invoiceId)).toMatchObject({ AmountDue: 70 });
    expect(double.get(org.tenantId, 'Overpayments', overpaymentId)).toMatchObject({
      Status: 'PAID',
      RemainingCredit: 0,
      Allocations: [],
    });
    expect(double.get(org.tenantId, 'Payments', idOf(result.remoteIds[0]))).toMatchObject({ Amount: 90 });
  });

  it('returned after its month is locked: the locked credit untouched, its refund dated in the open period', async () => {
    const { org, returned, context, transaction, overpaymentId } = await pushedCredit();
    double.lockDates(org.tenantId, { period: '2026-11-30' });
    const result = await org.target().push(returned('2026-12-02'), context);
    expect(deletesOf(org.tenantId, String(transaction?.BankTransactionID))).toEqual([]);
    const refund = double.get(org.tenantId, 'Payments', idOf(result.remoteIds[0]));
    expect(String(refund?.Date)).toBe(`/Date(${Date.parse('2026-12-02')}+0000)/`);
    expect(double.get(org.tenantId, 'Overpayments', overpaymentId)).toMatchObject({ Status: 'PAID' });
    expect(
      double.get(org.tenantId, 'BankTransactions', String(transaction?.BankTransactionID)),
    ).toMatchObject({
      Status: 'AUTHORISED',
    });
  });

  it('Xero’s figures as of each day count the credit under its link, less what was allocated or refunded by then', async () => {
    const { org, docs, pushed, returned, context, transaction, overpaymentId } = await pushedCredit();
    const link = String(docs.invoice.invoice?.paymentLinkId);
    const openOf = async (day: string) => (await org.target().figuresAsOf(day)).openInvoices;
    // The credit's Reference names its link after the marker, as a charge invoice's does.
    expect(String(transaction?.Reference)).toContain(`booksync link=${link}`);
    // 120.00 invoiced on the 2nd; 50.00 paid and the 90.00 credit on the 3rd: the link is owed 20.00 from then.
    expect(await openOf('2026-11-02')).toEqual({ [link]: 120_00 });
    expect(await openOf('2026-11-03')).toEqual({ [link]: -20_00 });
    // A bookkeeper allocates 30.00 of it to the invoice: the invoice owes 40.00, the credit holds 60.00.
    const invoiceId = idOf(pushed.get(docs.invoice.key)?.remoteIds[0]);
    double.allocateOverpayment(org.tenantId, overpaymentId, invoiceId, 30_00);
    expect(await openOf('2026-11-03')).toEqual({ [link]: -20_00 });
    // Returned on the 7th: the allocation removed, the 90.00 refunded that day; the day before is as it was.
    await org.target().push(returned('2026-11-07'), context);
    expect(await openOf('2026-11-06')).toEqual({ [link]: -20_00 });
    expect(await openOf('2026-11-07')).toEqual({ [link]: 70_00 });
  });

  it('part of it allocated in the month since locked: that allocation kept, the rest refunded, the allocated part owed again', async () => {
    const { org, docs, pushed, returned, context, transaction, overpaymentId } = await pushedCredit();
    const invoiceId = idOf(pushed.get(docs.invoice.key)?.remoteIds[0]);
    // A bookkeeper allocated 30.00 of the credit in November (dated the credit's day), then November was locked.
    double.allocateOverpayment(org.tenantId, overpaymentId, invoiceId, 30_00);
    double.lockDates(org.tenantId, { period: '2026-11-30' });
    const reversal = returned('2026-12-02');
    const result = await org.target().push(reversal, context);
    expect(result.remoteIds).toEqual([
      expect.stringMatching(/^Payment:/),
      expect.stringMatching(/^Invoice:/),
      expect.stringMatching(/^BankTransaction:/),
    ]);
    // November untouched: the allocation stays, the invoice it paid owes 40.00 as before.
    expect(double.get(org.tenantId, 'Overpayments', overpaymentId)).toMatchObject({
      Status: 'PAID',
      RemainingCredit: 0,
      Allocations: [expect.objectContaining({ Amount: 30 })],
    });
    expect(double.get(org.tenantId, 'Invoices', invoiceId)).toMatchObject({ AmountDue: 40 });
    // December: the 60.00 left refunded; the 30.00 allocated owed again and out of the clearing account.
    const onDecember2 = `/Date(${Date.parse('2026-12-02')}+0000)/`;
    expect(double.get(org.tenantId, 'Payments', idOf(result.remoteIds[0]))).toMatchObject({
      Amount: 60,
      Date: onDecember2,
    });
    expect(double.get(org.tenantId, 'Invoices', idOf(result.remoteIds[1]))).toMatchObject({
      Type: 'ACCREC',
      AmountDue: 30,
      Date: onDecember2,
    });
    expect(double.get(org.tenantId, 'BankTransactions', idOf(result.remoteIds[2]))).toMatchObject({
      Type: 'SPEND',
      Total: 30,
      Date: onDecember2,
    });
    expect(deletesOf(org.tenantId, String(transaction?.BankTransactionID))).toEqual([]);
    // As the ledger: the link owes 70.00 again, the clearing account holds the 50.00 that stayed.
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.AccountsReceivable)).toBe(70_00);
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.ProcessorClearing)).toBe(50_00);
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.Refunds)).toBe(0);
    // Pushed again by a restarted worker: found, nothing made twice.
    const again = await org.target().push(reversal, { ...context, pushed: () => null });
    expect(again).toMatchObject({ created: false, remoteIds: result.remoteIds });
    expect(double.all(org.tenantId, 'Payments').filter((p) => p.Overpayment)).toHaveLength(1);
  });
});
