import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { describe, expect, it } from 'vitest';
import { accountRoles } from '../../../src/targets/account-mapping.js';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { pushIndex } from '../../support/push-index.js';
import { xeroOrganisation } from '../../support/xero/organisation.js';
import { februaryFigures, figuresDocuments, januaryFigures, withZeros } from '../figures-documents.js';

// Against the Xero double: two months pushed through the adapter, then Xero's own figures
// (Reports/TrialBalance, Reports/AgedReceivablesByContact and AgedPayablesByContact, as xero_accounting.yaml
// shapes them) as of January 31 and February 28 equal the hand-computed ones; a bookkeeper's edit in Xero
// shows in them.

const double = doubleForFile(
  new XeroDouble({ limits: { concurrent: 5, perMinute: 60, perDay: 5_000, windowMs: 1_000 } }),
);
const cipher = new TokenCipher('test-secret-for-xero-figures');

function organisation() {
  const org = xeroOrganisation(double, cipher);
  return { tenantId: org.tenantId, target: org.target() };
}

describe('Xero: its own figures as of a day', { timeout: 120_000 }, () => {
  it('reports the trial balance per role and the open amount per link and bill, as of each month end', async () => {
    const { tenantId, target } = organisation();
    const f = figuresDocuments();
    const { pushed, context } = pushIndex({ mayExist: true });
    for (const doc of [...f.january, ...f.february]) pushed.set(doc.key, await target.push(doc, context));

    const january = januaryFigures(f);
    const february = februaryFigures(f);
    expect(await target.figuresAsOf('2026-01-31')).toEqual({
      ...january,
      balances: withZeros(january.balances, accountRoles),
    });
    expect(await target.figuresAsOf('2026-02-28')).toEqual({
      ...february,
      balances: withZeros(february.balances, accountRoles),
    });
    expect(await target.figuresAsOf('2025-12-31')).toEqual({
      asOf: '2025-12-31',
      balances: withZeros({}, accountRoles),
      openInvoices: {},
      openBills: {},
    });

    // The debit memo's charge invoice carries its link in its Reference, so Xero's aging attributes it.
    const charge = double.all(tenantId, 'Invoices').find((i) => String(i.Reference).includes('debit-memo:'));
    expect(String(charge?.Reference)).toContain(`booksync link=${f.links.B.paymentLinkId}`);

    // A bookkeeper raises invoice C to 75.00 in Xero: February's figures follow, January's do not move.
    const invoiceC = String(pushed.get(f.invoiceC.key)?.remoteIds[0]).split(':')[1] ?? '';
    double.editDocument(tenantId, 'Invoices', invoiceC, (invoice) => {
      const [line] = invoice.LineItems as { UnitAmount: number }[];
      if (!line) throw new Error('invoice C has no line');
      line.UnitAmount = 75;
    });
    const edited = await target.figuresAsOf('2026-02-28');
    expect(edited.openInvoices[f.links.C.paymentLinkId]).toBe(75_00);
    expect(edited.balances.AccountsReceivable).toBe(240_00);
    expect(edited.balances.Revenue).toBe(-425_00);
    expect(await target.figuresAsOf('2026-01-31')).toEqual({
      ...january,
      balances: withZeros(january.balances, accountRoles),
    });
  });
});
