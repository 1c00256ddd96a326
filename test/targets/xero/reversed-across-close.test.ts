import { describe, expect, it } from 'vitest';
import { RealmLimiter } from '../../../src/targets/oauth/limiter.js';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import type { TargetDocument } from '../../../src/targets/target-port.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { pushIndex } from '../../support/push-index.js';
import { XeroDouble } from '../../support/xero/double.js';
import { xeroOrganisation } from '../../support/xero/organisation.js';
import { lockedThrough, reversedAcrossCloseDocuments } from '../reversed-across-close-documents.js';

// Against the Xero double: a payment of a locked month returned after the lock is Xero's dishonoured payment
// in the open period (an ACCREC invoice owed again, the money spent out of the bank), the link's invoice
// staying paid; money and a lowering on the link after it go to what that invoice owed again owes, as the
// ledger splits them, so the customer's invoices owe the service's remainder.

const double = doubleForFile(
  new XeroDouble({ limits: { concurrent: 5, perMinute: 60, perDay: 5_000, windowMs: 1_000 } }),
);
const cipher = new TokenCipher('test-secret-for-xero-reversed-across-close');
const organisation = () =>
  xeroOrganisation(double, cipher, {
    limiter: new RealmLimiter({ perMinute: 60, concurrent: 5, windowMs: 1_000, marginMs: 50 }),
  });
const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';

async function returnedAfterLock(options: { loweredInJanuary?: boolean } = {}) {
  const org = organisation();
  const docs = reversedAcrossCloseDocuments(options);
  const { pushed, context } = pushIndex({ mayExist: true });
  const push = async (doc: TargetDocument) => {
    const result = await org.target().push(doc, context);
    pushed.set(doc.key, result);
    return result;
  };
  const invoice = idOf((await push(await docs.invoice())).remoteIds[0]);
  await push(await docs.payment());
  if (options.loweredInJanuary) await push(await docs.januaryLowering());
  double.lockDates(org.tenantId, { period: lockedThrough });
  const returned = await push(await docs.returned());
  expect(returned.remoteIds[0]).toMatch(/^Invoice:/);
  const owedAgain = idOf(returned.remoteIds[0]);
  const due = (id: string) => Number(double.get(org.tenantId, 'Invoices', id)?.AmountDue);
  return { docs, push, due, invoice, owedAgain };
}

describe('Xero: money on a link after its locked month’s payment was returned', { timeout: 60_000 }, () => {
  it('an external payment after the return pays the invoice owed again, the link’s invoice paid in January', async () => {
    const { docs, push, due, invoice, owedAgain } = await returnedAfterLock();
    expect([due(invoice), due(owedAgain)]).toEqual([0, 120]);
    await push(await docs.external());
    expect([due(invoice), due(owedAgain)]).toEqual([0, 60]);
  });

  it('a lowering after the return credits the invoice owed again: the customer owes the 50.00 asked', async () => {
    const { docs, push, due, invoice, owedAgain } = await returnedAfterLock();
    await push(await docs.lowered());
    expect([due(invoice), due(owedAgain)]).toEqual([0, 50]);
  });

  it('a link lowered below what was paid, then the payment returned after the close: the credit goes to the return’s invoice', async () => {
    const { due, invoice, owedAgain } = await returnedAfterLock({ loweredInJanuary: true });
    expect([due(invoice), due(owedAgain)]).toEqual([0, 100]);
  });
});
