import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { describe, expect, it } from 'vitest';
import { accountRoles } from '../../../src/targets/account-mapping.js';
import { TokenCipher } from '../../../src/targets/quickbooks/index.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { pushIndex } from '../../support/push-index.js';
import { quickBooksCompany } from '../../support/quickbooks/company.js';
import { februaryFigures, figuresDocuments, januaryFigures, withZeros } from '../figures-documents.js';

// Against the QuickBooks double: two months pushed through the adapter, then QBO's own figures
// (TrialBalance, AgedReceivableDetail, AgedPayableDetail, as Report.xsd shapes them) as of January 31 and
// February 28 equal the hand-computed ones; a bookkeeper's edit in QuickBooks shows in them.

const double = doubleForFile(new QuickBooksDouble());
const cipher = new TokenCipher('test-secret-for-quickbooks-figures');

function company() {
  const { realmId, target } = quickBooksCompany(double, cipher);
  return { realmId, target: target() };
}

describe('QuickBooks Online: its own figures as of a day', () => {
  it('reports the trial balance per role and the open amount per link and bill, as of each month end', async () => {
    const { realmId, target } = company();
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
    // Before anything was dated: nothing open, every balance 0.
    expect(await target.figuresAsOf('2025-12-31')).toEqual({
      asOf: '2025-12-31',
      balances: withZeros({}, accountRoles),
      openInvoices: {},
      openBills: {},
    });

    // The debit memo's charge invoice carries its link, so QBO's aging attributes it to link B.
    const charge = double.all(realmId, 'Invoice').find((i) => String(i.PrivateNote).includes(`debit-memo:`));
    expect(String(charge?.PrivateNote)).toContain(`booksync link=${f.links.B.paymentLinkId}`);

    // A bookkeeper raises invoice C to 75.00 in QuickBooks: February's figures follow, January's do not move.
    const invoiceC = String(pushed.get(f.invoiceC.key)?.remoteIds[0]).split(':')[1] ?? '';
    double.editTransaction(realmId, 'Invoice', invoiceC, (invoice) => {
      const [line] = invoice.Line as { Amount: number; SalesItemLineDetail: { UnitPrice: number } }[];
      if (!line?.SalesItemLineDetail) throw new Error('invoice C has no sales line');
      line.Amount = 75;
      line.SalesItemLineDetail.UnitPrice = 75;
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

  it('refuses a day that is not one', async () => {
    const { target } = company();
    await expect(target.figuresAsOf('2026-02-30')).rejects.toThrow(/not a day/);
  });
});
