import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dueDateOf } from '../../src/targets/documents.js';
import { TokenCipher } from '../../src/targets/oauth/token-cipher.js';
import type { PushContext, TargetDocument } from '../../src/targets/target-port.js';
import { quickBooksCompany } from '../support/quickbooks/company.js';
import { xeroOrganisation } from '../support/xero/organisation.js';
import { documentsForContract } from './target-contract.js';

// Item 7 (due dates): an invoice is due on its payment link's dueDate, a bill on its own, never
// before the document's date; the document's date when the service gives none. (Tryton: the invoice's
// payment_term_date, covered by the Tryton adapter's tests through the same dueDateOf.)

const qbo = new QuickBooksDouble();
const xero = new XeroDouble({ limits: { concurrent: 5, perMinute: 60, perDay: 5_000, windowMs: 1_000 } });
const cipher = new TokenCipher('test-secret-for-due-dates');
const context: PushContext = {
  mayExist: () => true,
  refusals: () => 0,
  pushed: () => null,
  closedThrough: null,
};
const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';
const msDay = (msDate: unknown) =>
  new Date(Number(/\/Date\((\d+)/.exec(String(msDate))?.[1])).toISOString().slice(0, 10);

beforeAll(async () => {
  await Promise.all([qbo.start(), xero.start()]);
});
afterAll(async () => {
  await Promise.all([qbo.stop(), xero.stop()]);
});

function invoiceDue(dueDate: string | null): TargetDocument {
  const { invoice } = documentsForContract();
  return { ...invoice, invoice: { ...invoice.invoice!, dueDate } };
}

describe('due dates from the service', () => {
  it('the link’s or bill’s due date, never before the document; the document’s date without one', () => {
    expect(dueDateOf(invoiceDue('2026-12-15'))).toBe('2026-12-15');
    expect(dueDateOf(invoiceDue('2026-10-01'))).toBe('2026-11-02');
    expect(dueDateOf(invoiceDue(null))).toBe('2026-11-02');
    const payment = { ...documentsForContract().payment };
    expect(dueDateOf({ ...payment, invoice: { ...payment.invoice!, dueDate: '2026-12-15' } })).toBe(
      payment.date,
    );
  });

  it('QuickBooks: the Invoice’s DueDate', async () => {
    const { realmId, target: connect } = quickBooksCompany(qbo, cipher);
    const target = connect();
    const pushed = await target.push(invoiceDue('2026-12-15'), context);
    expect(qbo.get(realmId, 'Invoice', idOf(pushed.remoteIds[0]))?.DueDate).toBe('2026-12-15');
  });

  it('Xero: the invoice’s DueDate', async () => {
    const { tenantId, target: connect } = xeroOrganisation(xero, cipher);
    const target = connect();
    const pushed = await target.push(invoiceDue('2026-12-15'), context);
    const stored = xero.get(tenantId, 'Invoices', idOf(pushed.remoteIds[0])) as
      | Record<string, unknown>
      | undefined;
    expect(msDay(stored?.DueDate)).toBe('2026-12-15');
  });
});
