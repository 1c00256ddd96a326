import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { describe, expect, it } from 'vitest';
import { defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import { TokenCipher } from '../../../src/targets/quickbooks/index.js';
import type { PushContext } from '../../../src/targets/target-port.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { pushIndex } from '../../support/push-index.js';
import { quickBooksCompany } from '../../support/quickbooks/company.js';
import { closedPeriodDocuments, lockedThrough } from '../closed-period-documents.js';

// Against the QuickBooks double: QBO's books closing date (Preferences) is read, nothing dated on
// or before it is voided or edited, a payment reversed after the close is Intuit's bounced-check invoice dated
// in the open period, and a document dated into the closed books is dated the day after.

const double = doubleForFile(new QuickBooksDouble());
const cipher = new TokenCipher('test-secret-for-quickbooks-closed-periods');

const company = () => quickBooksCompany(double, cipher);

const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';

describe('QuickBooks Online: closed books', () => {
  it('reads the books closing date from Preferences', async () => {
    const c = company();
    expect(await c.target().lockedThrough()).toBeNull();
    double.closeBooks(c.realmId, lockedThrough);
    expect(await c.target().lockedThrough()).toBe(lockedThrough);
  });

  it('reverses a January payment in February with a bounced-check invoice, voids a February one in place, and dates a late one after the close', async () => {
    const c = company();
    const target = c.target();
    const docs = closedPeriodDocuments();
    const { pushed, context } = pushIndex({ mayExist: true });
    const push = async (doc: (typeof docs)['invoice'], by = target) => {
      const result = await by.push(doc, context);
      pushed.set(doc.key, result);
      return result;
    };
    await push(docs.invoice);
    await push(docs.january);
    const invoiceId = idOf(pushed.get(docs.invoice.key)?.remoteIds[0]);
    const januaryId = idOf(pushed.get(docs.january.key)?.remoteIds[0]);
    expect(double.get(c.realmId, 'Invoice', invoiceId)?.Balance).toBe(70);

    double.closeBooks(c.realmId, lockedThrough);
    const reversed = await push(docs.januaryReversed, c.target());
    // January is untouched: the payment keeps its amount, is not voided, carries no reversal marker.
    const january = double.get(c.realmId, 'Payment', januaryId);
    expect(january).toMatchObject({ TotalAmt: 50, TxnDate: '2026-01-15' });
    expect(double.isVoided(c.realmId, 'Payment', januaryId)).toBe(false);
    expect(String(january?.PrivateNote)).not.toContain(docs.januaryReversed.key);
    // A new invoice dated in February reverses it: the customer owes the 50.00 again.
    expect(reversed.remoteIds[0]).toMatch(/^Invoice:/);
    const bounced = double.get(c.realmId, 'Invoice', idOf(reversed.remoteIds[0]));
    expect(bounced).toMatchObject({ TxnDate: '2026-02-03', TotalAmt: 50, Balance: 50 });
    expect(bounced?.CustomerRef).toEqual(double.get(c.realmId, 'Invoice', invoiceId)?.CustomerRef);
    const customerOf = (i: Record<string, unknown> | undefined) =>
      (i?.CustomerRef as { value?: string } | undefined)?.value;
    const owed = double
      .all(c.realmId, 'Invoice')
      .filter((i) => customerOf(i) === customerOf(bounced))
      .reduce((sum, i) => sum + Number(i.Balance), 0);
    expect(owed).toBe(120);
    // The money left Undeposited Funds again; A/R holds the 120.00 the service says is owed.
    expect(double.balanceOf(c.realmId, defaultAccountCodes.ProcessorClearing)).toBe(0);
    expect(double.balanceOf(c.realmId, defaultAccountCodes.AccountsReceivable)).toBe(120_00);
    // Found again by its key, from a restarted worker: nothing twice.
    const again = await c
      .target()
      .push(docs.januaryReversed, { mayExist: () => true, refusals: () => 0, pushed: () => null });
    expect(again).toMatchObject({ created: false, remoteIds: reversed.remoteIds });
    expect(await c.target().find(docs.januaryReversed.key)).toMatchObject({ remoteIds: reversed.remoteIds });

    // Paid and reversed in February, the open month: voided in place, as before.
    await push(docs.february);
    const voided = await push(docs.februaryReversed);
    expect(voided.remoteIds[0]).toMatch(/^void:Payment:/);
    expect(double.isVoided(c.realmId, 'Payment', idOf(voided.remoteIds[0]))).toBe(true);
    expect(double.get(c.realmId, 'Invoice', invoiceId)?.Balance).toBe(70);

    // Dated January 20, pushed after the close (by a worker that read the books open): dated February 1,
    // its own date in its memo.
    const late = await push(docs.late, target);
    const payment = double.get(c.realmId, 'Payment', idOf(late.remoteIds[0]));
    expect(payment?.TxnDate).toBe('2026-02-01');
    expect(String(payment?.PrivateNote)).toContain('dated 2026-01-20 in booksync');
    expect(double.get(c.realmId, 'Invoice', invoiceId)?.Balance).toBe(60);
    expect(
      await c.target().push(docs.late, { mayExist: () => true, refusals: () => 0, pushed: () => null }),
    ).toMatchObject({
      created: false,
    });
  });

  it('takes a 5010 "Account Period Closed" for closed books: no SyncToken retries, the reversal dated after the close', async () => {
    // A company whose QBO answers a write into closed books with code 5010, as one did a Bill and an Invoice
    // create (routablehq/python-quickbooks#208); 5010 is also the Stale Object Error's code.
    const c = quickBooksCompany(double, cipher, { realm: { closedBooksCode: '5010' } });
    const target = c.target();
    const docs = closedPeriodDocuments();
    const { pushed, context } = pushIndex();
    for (const doc of [docs.invoice, docs.february]) pushed.set(doc.key, await target.push(doc, context));
    const paymentId = idOf(pushed.get(docs.february.key)?.remoteIds[0]);
    // The books are closed through February after this worker read them open (it trusts that for a minute).
    double.closeBooks(c.realmId, '2026-02-28');
    const paymentPosts = () =>
      double.requests.filter(
        (r) => r.realmId === c.realmId && r.method === 'POST' && /\/payment\?/.test(r.url),
      ).length;

    const before = paymentPosts();
    const reversed = await target.push(docs.februaryReversed, context);
    // One write to the February payment, refused; not re-read and retried as a stale SyncToken.
    expect(paymentPosts() - before).toBe(1);
    expect(double.isVoided(c.realmId, 'Payment', paymentId)).toBe(false);
    expect(double.get(c.realmId, 'Payment', paymentId)).toMatchObject({ TotalAmt: 20 });
    // The closing date read again: a bounced-check invoice dated the day after it.
    expect(reversed.remoteIds[0]).toMatch(/^Invoice:/);
    expect(double.get(c.realmId, 'Invoice', idOf(reversed.remoteIds[0]))).toMatchObject({
      TxnDate: '2026-03-01',
      TotalAmt: 20,
    });

    // A create into the closed books, refused with 5010 by a worker that read them open: dated after them.
    const late = c.target();
    await late.lockedThrough();
    double.closeBooks(c.realmId, '2026-03-31');
    const creates = paymentPosts();
    const payment = await late.push(docs.late, context);
    expect(paymentPosts() - creates).toBe(2);
    expect(double.get(c.realmId, 'Payment', idOf(payment.remoteIds[0]))?.TxnDate).toBe('2026-04-01');
  });

  it('takes the ledger’s closed-through day when it is later than QuickBooks’ own', async () => {
    const c = company();
    const docs = closedPeriodDocuments();
    const context: PushContext = {
      mayExist: () => true,
      refusals: () => 0,
      pushed: () => null,
      closedThrough: lockedThrough,
    };
    await c.target().push(docs.invoice, context);
    const invoice = double.all(c.realmId, 'Invoice')[0];
    expect(invoice?.TxnDate).toBe('2026-02-01');
    expect(double.bookCloseDate(c.realmId)).toBeNull();
  });
});
