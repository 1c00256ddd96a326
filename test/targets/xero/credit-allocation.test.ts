import { describe, expect, it } from 'vitest';
import { defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import type { TargetDocument } from '../../../src/targets/target-port.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { pushIndex } from '../../support/push-index.js';
import { XeroDouble } from '../../support/xero/double.js';
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

  it('a written-off invoice (Dr Bad Debt): the credit note on the Bad Debt expense account, allocated the same', async () => {
    const org = organisation();
    const docs = documentsForContract(); // invoice 120.00, payment 50.00
    const { pushed, context } = pushIndex({ mayExist: true });
    for (const doc of [docs.invoice, docs.payment]) pushed.set(doc.key, await org.target.push(doc, context));
    const invoiceId = idOf(pushed.get(docs.invoice.key)?.remoteIds[0]);
    const writtenOff: TargetDocument = {
      ...lowered(docs, 70_00),
      lines: [
        { role: 'BadDebt', amountCents: 70_00 },
        { role: 'AccountsReceivable', amountCents: -70_00 },
      ],
    };
    const credit = await org.target.push(writtenOff, context);
    expect(credit.remoteIds[0]).toMatch(/^CreditNote:/);
    const note = double.get(org.tenantId, 'CreditNotes', idOf(credit.remoteIds[0]));
    expect(((note?.LineItems ?? []) as { AccountCode?: string }[]).map((l) => l.AccountCode)).toEqual([
      defaultAccountCodes.BadDebt,
    ]);
    expect(Number(double.get(org.tenantId, 'Invoices', invoiceId)?.AmountDue)).toBe(0);
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.BadDebt)).toBe(70_00);
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.DiscountsAndWriteOffs)).toBe(0);
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
