import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { describe, expect, it } from 'vitest';
import { defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import { RealmLimiter } from '../../../src/targets/oauth/limiter.js';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import type { TargetDocument } from '../../../src/targets/target-port.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { pushIndex } from '../../support/push-index.js';
import { xeroOrganisation } from '../../support/xero/organisation.js';
import { closedPeriodDocuments, lockedThrough } from '../closed-period-documents.js';

// Against the Xero double: the Organisation's lock dates are read, nothing dated on or before them
// is deleted or voided, a payment reversed after the lock is reversed by new documents dated in the open
// period (the invoice owed again), and a document dated into the locked period is dated the day after.

const double = doubleForFile(
  new XeroDouble({ limits: { concurrent: 5, perMinute: 60, perDay: 5_000, windowMs: 1_000 } }),
);
const cipher = new TokenCipher('test-secret-for-xero-closed-periods');

// One worker: every target() shares the limiter.
const organisation = () =>
  xeroOrganisation(double, cipher, {
    limiter: new RealmLimiter({ perMinute: 60, concurrent: 5, windowMs: 1_000, marginMs: 50 }),
  });

const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';
const day = (msDate: unknown) =>
  new Date(Number(/\/Date\((\d+)/.exec(String(msDate))?.[1])).toISOString().slice(0, 10);

describe('Xero: lock dates', { timeout: 60_000 }, () => {
  it('reads the later of the period and end of year lock dates', async () => {
    const org = organisation();
    expect(await org.target().lockedThrough()).toBeNull();
    double.lockDates(org.tenantId, { period: '2025-12-31', endOfYear: lockedThrough });
    expect(await org.target().lockedThrough()).toBe(lockedThrough);
    double.lockDates(org.tenantId, { period: '2026-02-28' });
    expect(await org.target().lockedThrough()).toBe('2026-02-28');
  });

  it('reverses a January payment in February with new documents, deletes a February one in place, and dates a late one after the lock', async () => {
    const org = organisation();
    const target = org.target();
    const docs = closedPeriodDocuments();
    const { pushed, context } = pushIndex({ mayExist: true });
    const push = async (doc: TargetDocument, by = target) => {
      const result = await by.push(doc, context);
      pushed.set(doc.key, result);
      return result;
    };
    await push(docs.invoice);
    await push(docs.january);
    const invoiceId = idOf(pushed.get(docs.invoice.key)?.remoteIds[0]);
    const januaryId = idOf(pushed.get(docs.january.key)?.remoteIds[0]);
    const amountDue = () => Number(double.get(org.tenantId, 'Invoices', invoiceId)?.AmountDue);
    expect(amountDue()).toBe(70);

    double.lockDates(org.tenantId, { period: lockedThrough });
    const reversed = await push(docs.januaryReversed, org.target());
    // January is untouched: the payment is still there, not deleted, with its amount.
    expect(double.get(org.tenantId, 'Payments', januaryId)).toMatchObject({
      Status: 'AUTHORISED',
      Amount: 50,
    });
    expect(amountDue()).toBe(70);
    // New documents dated in February reverse it: an invoice the customer owes again, the money out again.
    expect(reversed.remoteIds).toEqual([
      expect.stringMatching(/^Invoice:/),
      expect.stringMatching(/^BankTransaction:/),
    ]);
    const owedAgain = double.get(org.tenantId, 'Invoices', idOf(reversed.remoteIds[0]));
    expect(owedAgain).toMatchObject({ Type: 'ACCREC', Status: 'AUTHORISED', AmountDue: 50 });
    expect(day(owedAgain?.Date)).toBe('2026-02-03');
    const contactOf = (doc: Record<string, unknown> | undefined) =>
      (doc?.Contact as { ContactID?: string } | undefined)?.ContactID;
    expect(contactOf(owedAgain)).toBe(contactOf(double.get(org.tenantId, 'Invoices', invoiceId)));
    const spent = double.get(org.tenantId, 'BankTransactions', idOf(reversed.remoteIds[1]));
    expect(spent).toMatchObject({ Type: 'SPEND', Total: 50 });
    expect(day(spent?.Date)).toBe('2026-02-03');
    // What the customer owes: the invoice's 70.00 and the 50.00 owed again, as at the service.
    expect(amountDue() + Number(owedAgain?.AmountDue)).toBe(120);
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.ProcessorClearing)).toBe(0);
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.AccountsReceivable)).toBe(120_00);
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.Refunds)).toBe(0);
    // Found again by its key from a restarted worker: nothing twice.
    const again = await org
      .target()
      .push(docs.januaryReversed, { mayExist: () => true, refusals: () => 0, pushed: () => null });
    expect(again).toMatchObject({ created: false, remoteIds: reversed.remoteIds });
    expect(await org.target().find(docs.januaryReversed.key)).toMatchObject({
      remoteIds: reversed.remoteIds,
    });

    // Paid and reversed in February, the open month: the payment deleted in place, as before.
    await push(docs.february);
    expect(amountDue()).toBe(50);
    const deleted = await push(docs.februaryReversed);
    expect(deleted.remoteIds[0]).toMatch(/^deleted:Payment:/);
    expect(amountDue()).toBe(70);

    // Dated January 20, pushed after the lock by a worker that read no lock: dated February 1, its own date
    // after its marker.
    const late = await push(docs.late, target);
    const payment = double.get(org.tenantId, 'Payments', idOf(late.remoteIds[0]));
    expect(day(payment?.Date)).toBe('2026-02-01');
    expect(String(payment?.Reference)).toContain('dated 2026-01-20 in booksync');
    expect(amountDue()).toBe(60);
    expect(
      await org.target().push(docs.late, { mayExist: () => true, refusals: () => 0, pushed: () => null }),
    ).toMatchObject({
      created: false,
    });
  });

  it('dates after the ledger’s closed-through day when it is later than Xero’s lock', async () => {
    const org = organisation();
    const docs = closedPeriodDocuments();
    const result = await org.target().push(docs.invoice, {
      mayExist: () => true,
      refusals: () => 0,
      pushed: () => null,
      closedThrough: lockedThrough,
    });
    expect(day(double.get(org.tenantId, 'Invoices', idOf(result.remoteIds[0]))?.Date)).toBe('2026-02-01');
  });
});
