import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { describe, expect, it } from 'vitest';
import { defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import type { RemoteRecord, TargetDocument } from '../../../src/targets/target-port.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { pushIndex } from '../../support/push-index.js';
import { xeroOrganisation } from '../../support/xero/organisation.js';
import { documentsForContract } from '../target-contract.js';

// Item 2 in Xero: a lowered invoice's credit note is allocated to the invoice (Xero's
// CreditNotes/{id}/Allocations), so the invoice's AmountDue, and Xero's own aged receivables, are the service's
// remainder at every step; what the invoice no longer owes stays the customer's credit.

const double = doubleForFile(
  new XeroDouble({ limits: { concurrent: 5, perMinute: 60, perDay: 5_000, windowMs: 1_000 } }),
);
const cipher = new TokenCipher('test-secret-for-xero-credit-allocations');
const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';

function organisation() {
  const org = xeroOrganisation(double, cipher);
  return { tenantId: org.tenantId, target: org.target() };
}

const lowered = (docs: ReturnType<typeof documentsForContract>, cents: number, n = 1): TargetDocument => ({
  ...docs.invoice,
  key: `invoice-adjustment:${docs.invoice.invoice!.paymentLinkId}:${n}`,
  kind: 'invoice-adjustment',
  date: '2026-11-05',
  description: `Invoice lowered by ${cents} cents`,
  amountCents: cents,
  lines: [
    { role: 'DiscountsAndWriteOffs', amountCents: cents },
    { role: 'AccountsReceivable', amountCents: -cents },
  ],
  contentHash: String(n).repeat(64),
});

describe('Xero: a lowered invoice is credited and the credit applied', () => {
  it('allocates the credit note to the invoice: AmountDue and the aged receivables are the remainder', async () => {
    const org = organisation();
    const docs = documentsForContract(); // invoice 120.00, payment 50.00
    const { pushed, context } = pushIndex({ mayExist: true });
    for (const doc of [docs.invoice, docs.payment]) pushed.set(doc.key, await org.target.push(doc, context));
    const invoiceId = idOf(pushed.get(docs.invoice.key)?.remoteIds[0]);
    const due = () => Number(double.get(org.tenantId, 'Invoices', invoiceId)?.AmountDue);
    expect(due()).toBe(70);
    // Lowered by 30.00: the service's remainder is 40.00.
    const credit = await org.target.push(lowered(docs, 30_00), context);
    expect(credit.remoteIds[0]).toMatch(/^CreditNote:/);
    expect(due()).toBe(40);
    const note = double.get(org.tenantId, 'CreditNotes', idOf(credit.remoteIds[0]));
    expect(Number(note?.RemainingCredit)).toBe(0);
    // The credit is on the account mapped to Discounts and Write-offs; Revenue keeps the invoiced 120.00.
    expect(((note?.LineItems ?? []) as { AccountCode?: string }[]).map((l) => l.AccountCode)).toEqual([
      defaultAccountCodes.DiscountsAndWriteOffs,
    ]);
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.DiscountsAndWriteOffs)).toBe(30_00);
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.Revenue)).toBe(-120_00);
    const figures = await org.target.figuresAsOf('2026-11-30');
    expect(figures.openInvoices[docs.invoice.invoice!.paymentLinkId]).toBe(40_00);
    // Pushed again (a new process, the credit note found by its key): nothing allocated twice.
    expect(
      (
        await org.target.push(lowered(docs, 30_00), {
          mayExist: () => true,
          refusals: () => 0,
          pushed: () => null,
          closedThrough: null,
        })
      ).created,
    ).toBe(false);
    expect(due()).toBe(40);
    // Lowered below what was paid (to 45.00, 50.00 paid): the invoice owes nothing, 5.00 stays the customer's credit.
    const more = await org.target.push(lowered(docs, 45_00, 2), context);
    expect(due()).toBe(0);
    expect(Number(double.get(org.tenantId, 'CreditNotes', idOf(more.remoteIds[0]))?.RemainingCredit)).toBe(5);
  });

  it('a written-off invoice (Dr Bad Debt): the credit note on the Bad Debt expense account, allocated the same; a discount of the same lowering a note of its own', async () => {
    const org = organisation();
    const docs = documentsForContract(); // invoice 120.00, payment 50.00
    const { pushed, context } = pushIndex({ mayExist: true });
    for (const doc of [docs.invoice, docs.payment]) pushed.set(doc.key, await org.target.push(doc, context));
    const invoiceId = idOf(pushed.get(docs.invoice.key)?.remoteIds[0]);
    // 70.00 owed: 60.00 written off, then the same lowering's 10.00 discounted rest (the ledger's next adjustment).
    const writtenOff: TargetDocument = {
      ...lowered(docs, 60_00),
      lines: [
        { role: 'BadDebt', amountCents: 60_00 },
        { role: 'AccountsReceivable', amountCents: -60_00 },
      ],
    };
    const credit = await org.target.push(writtenOff, context);
    expect(credit.remoteIds[0]).toMatch(/^CreditNote:/);
    const note = double.get(org.tenantId, 'CreditNotes', idOf(credit.remoteIds[0]));
    expect(((note?.LineItems ?? []) as { AccountCode?: string }[]).map((l) => l.AccountCode)).toEqual([
      defaultAccountCodes.BadDebt,
    ]);
    expect(Number(double.get(org.tenantId, 'Invoices', invoiceId)?.AmountDue)).toBe(10);
    const rest = await org.target.push(lowered(docs, 10_00, 2), context);
    expect(rest.remoteIds[0]).toMatch(/^CreditNote:/);
    expect(Number(double.get(org.tenantId, 'Invoices', invoiceId)?.AmountDue)).toBe(0);
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.BadDebt)).toBe(60_00);
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.DiscountsAndWriteOffs)).toBe(10_00);
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.Revenue)).toBe(-120_00);
  });

  it('allocation-over-amount-due: Xero refuses a credit allocated beyond the invoice’s AmountDue', async () => {
    const org = organisation();
    const docs = documentsForContract(); // invoice 120.00, payment 50.00: 70.00 due
    const { pushed, context } = pushIndex({ mayExist: true });
    for (const doc of [docs.invoice, docs.payment]) pushed.set(doc.key, await org.target.push(doc, context));
    const invoiceId = idOf(pushed.get(docs.invoice.key)?.remoteIds[0]);
    // A credit note of 100.00 for the customer, created directly and not allocated.
    const contact = double.get(org.tenantId, 'Invoices', invoiceId)?.Contact as { ContactID: string };
    const created = await org.target.client.call('createCreditNotes', (api, t) =>
      api.createCreditNotes(
        t,
        {
          creditNotes: [
            {
              type: 'ACCRECCREDIT' as never,
              contact: { contactID: contact.ContactID },
              date: '2026-11-05',
              status: 'AUTHORISED' as never,
              lineItems: [
                {
                  description: 'credit',
                  quantity: 1,
                  unitAmount: 100,
                  accountCode: defaultAccountCodes.Revenue,
                },
              ],
            },
          ],
        },
        false,
        undefined,
        `credit-${Date.now()}`,
      ),
    );
    const noteId = String(created.creditNotes?.[0]?.creditNoteID);
    const refused = await org.target.client
      .call('createCreditNoteAllocation', (api, t) =>
        api.createCreditNoteAllocation(
          t,
          noteId,
          {
            allocations: [{ invoice: { invoiceID: invoiceId }, amount: 70.01, date: '2026-11-05' } as never],
          },
          false,
          `allocation-${Date.now()}`,
        ),
      )
      .then(
        () => null,
        (error: Error) => error.message,
      );
    expect(refused).toContain('The amount being allocated exceeds the amount outstanding on the invoice');
    expect(Number(double.get(org.tenantId, 'Invoices', invoiceId)?.AmountDue)).toBe(70);
  });
});

/**
 * A 1.01 link paid in full by card, lowered to 1.00 (0.01 of the customer's credit, the invoice paid),
 * then raised back to 1.01: each document as the ledger gives it (applications.ts), the raise taking the
 * lowering's credit (TargetDocument.reapplies).
 */
function raisedBack() {
  const docs = documentsForContract();
  const link = docs.invoice.invoice!.paymentLinkId;
  const invoice: TargetDocument = {
    ...docs.invoice,
    amountCents: 101,
    lines: [
      { role: 'AccountsReceivable', amountCents: 101 },
      { role: 'Revenue', amountCents: -101 },
    ],
  };
  const payment: TargetDocument = {
    ...docs.payment,
    amountCents: 101,
    lines: [
      { role: 'ProcessorClearing', amountCents: 101 },
      { role: 'AccountsReceivable', amountCents: -101 },
    ],
    settles: { applied: [{ key: invoice.key, amountCents: 101 }], unappliedCents: 0 },
  };
  const lowering: TargetDocument = {
    ...lowered(docs, 1),
    date: '2026-11-04',
    settles: { applied: [], unappliedCents: 1 },
  };
  const raisedKey = `invoice-adjustment:${link}:2`;
  const raised: TargetDocument = {
    ...docs.invoice,
    key: raisedKey,
    kind: 'invoice-adjustment',
    date: '2026-11-05',
    description: 'Invoice raised by 1 cent',
    amountCents: 1,
    lines: [
      { role: 'AccountsReceivable', amountCents: 1 },
      { role: 'Revenue', amountCents: -1 },
    ],
    contentHash: '2'.repeat(64),
    reapplies: [{ credit: lowering.key, applied: [{ key: raisedKey, amountCents: 1 }] }],
  };
  return { invoice, payment, lowered: lowering, raised, link };
}

describe('Xero: a raise takes the credit a lowering left the customer', () => {
  it('1.01 paid, lowered to 1.00, raised back to 1.01: the credit note’s 0.01 allocated to the raise’s invoice', async () => {
    const org = organisation();
    const docs = raisedBack();
    const { pushed, context } = pushIndex({ mayExist: true });
    for (const doc of [docs.invoice, docs.payment, docs.lowered])
      pushed.set(doc.key, await org.target.push(doc, context));
    const noteId = idOf(pushed.get(docs.lowered.key)?.remoteIds[0]);
    const remaining = () => Number(double.get(org.tenantId, 'CreditNotes', noteId)?.RemainingCredit);
    // The invoice was paid: the lowering's 0.01 stays the customer's credit.
    expect(remaining()).toBe(0.01);

    const raise = await org.target.push(docs.raised, context);
    pushed.set(docs.raised.key, raise);
    expect(raise.remoteIds[0]).toMatch(/^Invoice:/);
    const due = (key: string) =>
      Number(double.get(org.tenantId, 'Invoices', idOf(pushed.get(key)?.remoteIds[0]))?.AmountDue);
    expect(due(docs.raised.key)).toBe(0);
    expect(due(docs.invoice.key)).toBe(0);
    expect(remaining()).toBe(0);
    expect((await org.target.figuresAsOf('2026-11-30')).openInvoices[docs.link] ?? 0).toBe(0);

    // Pushed again (a new process, the invoice found by its key): nothing allocated twice.
    const again = await org.target.push(docs.raised, {
      mayExist: () => true,
      refusals: () => 0,
      pushed: () => null,
      closedThrough: null,
    });
    expect(again.created).toBe(false);
    expect(due(docs.raised.key)).toBe(0);
    expect(remaining()).toBe(0);
  });

  it('in a batch: the four documents in one slice; the credit allocated to the raise once', async () => {
    const org = organisation();
    const docs = raisedBack();
    const slice = [docs.invoice, docs.payment, docs.lowered, docs.raised];
    const context = { mayExist: () => true, refusals: () => 0, pushed: () => null, closedThrough: null };
    const outcomes = await org.target.pushMany(slice, context);
    for (const outcome of outcomes) expect(outcome).not.toBeInstanceOf(Error);
    const [invoice, , note, raise] = outcomes as RemoteRecord[];
    for (const made of [invoice, raise])
      expect(Number(double.get(org.tenantId, 'Invoices', idOf(made?.remoteIds[0]))?.AmountDue)).toBe(0);
    expect(Number(double.get(org.tenantId, 'CreditNotes', idOf(note?.remoteIds[0]))?.RemainingCredit)).toBe(
      0,
    );
    const again = await org.target.pushMany(slice, context);
    expect(again.map((o) => (o as { created?: boolean }).created)).toEqual([false, false, false, false]);
    expect(Number(double.get(org.tenantId, 'CreditNotes', idOf(note?.remoteIds[0]))?.RemainingCredit)).toBe(
      0,
    );
  });
});
