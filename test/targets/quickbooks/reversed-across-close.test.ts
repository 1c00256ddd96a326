import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { describe, expect, it } from 'vitest';
import { TokenCipher } from '../../../src/targets/quickbooks/index.js';
import type { TargetDocument } from '../../../src/targets/target-port.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { pushIndex } from '../../support/push-index.js';
import { quickBooksCompany } from '../../support/quickbooks/company.js';
import { lockedThrough, reversedAcrossCloseDocuments } from '../reversed-across-close-documents.js';

// Against the QuickBooks double: a payment of a closed month returned after the close is a bounced-payment
// invoice in the open period, the link's invoice staying paid; money and a lowering on the link after it go
// to what that charge invoice owes, as the ledger splits them, so the customer's invoices owe the service's
// remainder.

const double = doubleForFile(new QuickBooksDouble());
const cipher = new TokenCipher('test-secret-for-quickbooks-reversed-across-close');
const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';

async function returnedAfterClose(options: { loweredInJanuary?: boolean; withMemo?: boolean } = {}) {
  const c = quickBooksCompany(double, cipher);
  const docs = reversedAcrossCloseDocuments(options);
  const { pushed, context } = pushIndex({ mayExist: true });
  const push = async (doc: TargetDocument) => {
    const result = await c.target().push(doc, context);
    pushed.set(doc.key, result);
    return result;
  };
  const invoice = idOf((await push(await docs.invoice())).remoteIds[0]);
  const memo = options.withMemo ? idOf((await push(await docs.memo())).remoteIds[0]) : '';
  await push(await docs.payment());
  if (options.loweredInJanuary) await push(await docs.januaryLowering());
  double.closeBooks(c.realmId, lockedThrough);
  const charge = idOf((await push(await docs.returned())).remoteIds[0]);
  const balance = (id: string) => Number(double.get(c.realmId, 'Invoice', id)?.Balance);
  return { docs, push, balance, invoice, memo, charge };
}

describe('QuickBooks Online: money on a link after its closed month’s payment was returned', () => {
  it('an external payment after the return pays the bounced-payment invoice, the link’s invoice paid in January', async () => {
    const { docs, push, balance, invoice, charge } = await returnedAfterClose();
    expect([balance(invoice), balance(charge)]).toEqual([0, 120]);
    const external = await docs.external();
    expect(external.settles?.applied.map((a) => a.key)).toEqual([`reversal:payment:py_${docs.run}`]);
    await push(external);
    expect([balance(invoice), balance(charge)]).toEqual([0, 60]);
  });

  it('a payment of the invoice and its memo returned after the close: one bounced-payment invoice of the whole, paid by later money in two goes', async () => {
    const { docs, push, balance, invoice, memo, charge } = await returnedAfterClose({ withMemo: true });
    expect([balance(invoice), balance(memo), balance(charge)]).toEqual([0, 0, 150]);
    await push(await docs.external());
    expect(balance(charge)).toBe(90);
    await push(await docs.externalRest());
    expect([balance(invoice), balance(memo), balance(charge)]).toEqual([0, 0, 0]);
  });

  it('the same, 60.00 paid again and then the link lowered to 20.00: the bounced-payment invoice owes nothing', async () => {
    const { docs, push, balance, charge } = await returnedAfterClose({ withMemo: true });
    await push(await docs.external());
    await push(await docs.loweredAfterExternal());
    expect(balance(charge)).toBe(0);
  });

  it('a lowering after the return credits the bounced-payment invoice: the customer owes the 50.00 asked', async () => {
    const { docs, push, balance, invoice, charge } = await returnedAfterClose();
    await push(await docs.lowered());
    expect([balance(invoice), balance(charge)]).toEqual([0, 50]);
  });

  it('a link lowered below what was paid, then the payment returned after the close: the credit goes to the return’s invoice', async () => {
    const { balance, invoice, charge } = await returnedAfterClose({ loweredInJanuary: true });
    expect([balance(invoice), balance(charge)]).toEqual([0, 100]);
  });
});
