import { FaultError, QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TargetRefusedError } from '../../src/targets/errors.js';
import { TokenCipher } from '../../src/targets/oauth/token-cipher.js';
import type { PushContext } from '../../src/targets/target-port.js';
import { quickBooksCompany } from '../support/quickbooks/company.js';
import { xeroOrganisation } from '../support/xero/organisation.js';
import { documentsForContract } from './target-contract.js';

// Xero and QuickBooks answer a repeated idempotency key (Idempotency-Key, requestid) with the
// first answer, a refusal included. A document refused for the state of the company (nothing in its body at
// fault), then fixed there by a person and retried (`targets retry`), sends the same body: with a key made of
// the body alone it would be refused again forever. The index counts the entry's refusals
// (PushContext.refusals) and the key counts them too, so the retry is a request of its own.

const cipher = new TokenCipher('test-secret-for-retry-after-refusal');
const context = (refusals: number): PushContext => ({
  mayExist: () => false,
  refusals: () => refusals,
  pushed: () => null,
});

describe('Xero: a retry after a refusal is not the refusal replayed', () => {
  const double = new XeroDouble({
    limits: { concurrent: 5, perMinute: 600, perDay: 5_000, windowMs: 1_000 },
  });
  beforeAll(async () => {
    await double.start();
  });
  afterAll(async () => {
    await double.stop();
  });

  it('refused, fixed at Xero, retried with the same body: replayed while the count is the same, created once it counts the refusal', async () => {
    const { tenantId, target: connect } = xeroOrganisation(double, cipher, {
      limits: { perMinute: 600, concurrent: 5, windowMs: 1_000, marginMs: 10 },
    });
    const target = connect();
    const { invoice } = documentsForContract();
    // The contact exists first (its own create is not the document's).
    await target.push({ ...invoice, key: `${invoice.key}-first` }, context(0));
    // Xero's own refusal of the state it is in (e.g. an account archived by the bookkeeper).
    double.refuseNext('Account 4000 is archived');
    await expect(target.push(invoice, context(0))).rejects.toBeInstanceOf(TargetRefusedError);
    // Fixed at Xero. The same request again is Xero's first answer again: what booksync must not send.
    await expect(target.push(invoice, context(0))).rejects.toThrow(/archived/);
    expect(double.all(tenantId, 'Invoices')).toHaveLength(1);

    const pushed = await target.push(invoice, context(1));
    expect(pushed.created).toBe(true);
    expect(double.all(tenantId, 'Invoices')).toHaveLength(2);
    expect(double.violations).toEqual([]);
  });
});

describe('QuickBooks Online: a retry after a refusal is not the refusal replayed', () => {
  const double = new QuickBooksDouble();
  beforeAll(async () => {
    await double.start();
  });
  afterAll(async () => {
    await double.stop();
  });

  it('refused for the state of the company, fixed in QBO, retried with the same body: replayed while the count is the same, created once it counts the refusal', async () => {
    const { realmId, target } = quickBooksCompany(double, cipher);
    const adapter = target();
    const docs = documentsForContract();
    const fault = () =>
      new FaultError(
        400,
        'ValidationFault',
        'Object Not Found',
        "Object Not Found : Something you're trying to use has been made inactive.",
        '610',
      );
    // The customer exists first (its own create is not the document's).
    await adapter.push({ ...docs.invoice, key: `${docs.invoice.key}-first` }, context(0));
    double.refuseNextCreate(fault());
    await expect(adapter.push(docs.invoice, context(0))).rejects.toBeInstanceOf(TargetRefusedError);
    // Made active again in QBO. The same request again is QBO's first answer again.
    await expect(adapter.push(docs.invoice, context(0))).rejects.toThrow(/made inactive/);
    const created = await adapter.push(docs.invoice, context(1));
    expect(created.created).toBe(true);
    expect(double.all(realmId, 'Invoice')).toHaveLength(2);
    expect(double.violations).toEqual([]);
  });
});
