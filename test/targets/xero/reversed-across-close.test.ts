import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { describe, expect, it } from 'vitest';
import { RealmLimiter } from '../../../src/targets/oauth/limiter.js';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import type { TargetDocument } from '../../../src/targets/target-port.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { pushIndex } from '../../support/push-index.js';
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

async function returnedAfterLock(options: { loweredInJanuary?: boolean; withMemo?: boolean } = {}) {
  const org = organisation();
  const docs = reversedAcrossCloseDocuments(options);
  const { pushed, context } = pushIndex({ mayExist: true });
  const push = async (doc: TargetDocument) => {
    const result = await org.target().push(doc, context);
    pushed.set(doc.key, result);
    return result;
  };
  const invoice = idOf((await push(await docs.invoice())).remoteIds[0]);
  const memo = options.withMemo ? idOf((await push(await docs.memo())).remoteIds[0]) : null;
  await push(await docs.payment());
  if (options.loweredInJanuary) await push(await docs.januaryLowering());
  double.lockDates(org.tenantId, { period: lockedThrough });
  const returned = await push(await docs.returned());
  expect(returned.remoteIds[0]).toMatch(/^Invoice:/);
  const owedAgain = idOf(returned.remoteIds[0]);
  const due = (id: string) => Number(double.get(org.tenantId, 'Invoices', id)?.AmountDue);
  const owedAgainAll = returned.remoteIds.filter((r) => r.startsWith('Invoice:')).map(idOf);
  /** One document through the batch push (pushMany), as the push workflow sends a slice. */
  const pushInBatch = async (doc: TargetDocument) => {
    const [outcome] = await org.target().pushMany([doc], context);
    if (!outcome || outcome instanceof Error) throw outcome ?? new Error('no outcome');
    pushed.set(doc.key, outcome);
    return outcome;
  };
  return { org, docs, push, pushInBatch, due, invoice, memo, owedAgain, owedAgainAll };
}

describe('Xero: money on a link after its locked month’s payment was returned', { timeout: 60_000 }, () => {
  it('an external payment after the return pays the invoice owed again, the link’s invoice paid in January', async () => {
    const { docs, push, due, invoice, owedAgain } = await returnedAfterLock();
    expect([due(invoice), due(owedAgain)]).toEqual([0, 120]);
    await push(await docs.external());
    expect([due(invoice), due(owedAgain)]).toEqual([0, 60]);
  });

  it('a payment of the invoice and its memo returned after the close: both owed again, and later money pays both', async () => {
    const { docs, push, due, invoice, memo, owedAgainAll } = await returnedAfterLock({ withMemo: true });
    // One invoice owed again per document the payment paid, the link's and its memo's January ones paid.
    expect(owedAgainAll.map(due).sort((a, b) => a - b)).toEqual([30, 120]);
    expect([due(invoice), due(memo as string)]).toEqual([0, 0]);
    // The ledger applies the 150.00 to the reversal: at Xero, a Payment on each invoice owed again.
    const whole = await push(await docs.externalWhole());
    expect(whole.remoteIds.map((r) => r.split(':')[0])).toEqual(['Payment', 'Payment']);
    expect(owedAgainAll.map(due)).toEqual([0, 0]);
  });

  it('the same paid again in two goes: 60.00 on the link’s invoice owed again, then 90.00 across both (in a batch); a retry makes nothing twice', async () => {
    const { docs, push, pushInBatch, due, owedAgainAll } = await returnedAfterLock({ withMemo: true });
    expect(owedAgainAll.map(due)).toEqual([120, 30]);
    await push(await docs.external());
    expect(owedAgainAll.map(due)).toEqual([60, 30]);
    const rest = await docs.externalRest();
    const first = await pushInBatch(rest);
    expect(owedAgainAll.map(due)).toEqual([0, 0]);
    expect(first.remoteIds).toHaveLength(2);
    // Pushed again, as after a crash before the index took it: both parts found, nothing paid twice.
    const again = await pushInBatch(rest);
    expect(again.remoteIds).toEqual(first.remoteIds);
    expect(owedAgainAll.map(due)).toEqual([0, 0]);
  });

  it('the same, 60.00 paid again and then the link lowered to 20.00: the credit goes to both invoices owed again, the rest the customer’s', async () => {
    const { org, docs, push, due, owedAgainAll } = await returnedAfterLock({ withMemo: true });
    await push(await docs.external());
    expect(owedAgainAll.map(due)).toEqual([60, 30]);
    const lowering = await docs.loweredAfterExternal();
    await push(lowering);
    // The service: 20.00 + 30.00 asked, 60.00 paid since the return: nothing owed, 10.00 the customer's.
    expect(owedAgainAll.map(due)).toEqual([0, 0]);
    const note = double
      .all(org.tenantId, 'CreditNotes')
      .find((n) => String(n.Reference ?? '').includes(lowering.key));
    expect(Number(note?.RemainingCredit)).toBe(10);
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
