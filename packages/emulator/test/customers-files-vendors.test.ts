// biome-ignore-all lint/suspicious/noExplicitAny: tests assert on untyped JSON bodies
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type Harness, newDeposit, newLink, startHarness } from '../src/harness.js';
import { seedDemo } from '../src/seed.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({}, { feePassthroughPercent: 25 });
});
afterAll(() => h.close());

async function upload(fields: Record<string, string>, bytes = 100): Promise<{ status: number; body: any }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  form.set('file', new Blob([Buffer.alloc(bytes)]), 'doc.pdf');
  const response = await fetch(`${h.baseUrl}/file`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.keys.full}` },
    body: form,
  });
  return { status: response.status, body: await response.json() };
}

describe('4.6-4.11 customers, files, vendors', () => {
  it('4.6: page size 500 is clamped to 100, totalResults counts all', async () => {
    const org = await h.newOrganization();
    await Promise.all(
      Array.from({ length: 120 }, (_, i) => org.call('POST', '/customer', { name: `Customer ${i}` })),
    );
    const page = await org.call('GET', '/customers?pageSize=500');
    expect(page.body.customers).toHaveLength(100);
    expect(page.body.totalResults).toBe(120);
    const second = await org.call('GET', '/customers?pageSize=500&page=2');
    expect(second.body.customers).toHaveLength(20);
    expect((await org.call('GET', '/customers?page=0')).status).toBe(400);
    expect((await org.call('GET', '/customers?pageSize=1.5')).status).toBe(400);
  });

  it('4.6: name and email filters are case-insensitive substrings; both must match', async () => {
    const org = await h.newOrganization();
    await org.call('POST', '/customer', { name: 'Acme Corp', emails: ['AP@acme.example'] });
    await org.call('POST', '/customer', { name: 'Acme Labs', emails: ['labs@other.example'] });
    await org.call('POST', '/customer', { name: 'Globex', emails: ['x@acme.example'] });
    expect((await org.call('GET', '/customers?name=ACME')).body.totalResults).toBe(2);
    expect((await org.call('GET', '/customers?email=ap@ACME')).body.totalResults).toBe(1);
    const both = await org.call('GET', '/customers?name=acme&email=acme.example');
    expect(both.body.customers.map((c: { name: string }) => c.name)).toEqual(['Acme Corp']);
  });

  it('4.7 / 2.9: null clears overrides; feePassthroughPercent reads the organization default', async () => {
    const created = await h.api('POST', '/customer', {
      name: 'Override Co',
      achEnabled: false,
      feePassthroughPercent: 80,
    });
    expect(created.body).toMatchObject({ achEnabled: false, feePassthroughPercent: 80 });
    const renamed = await h.api('PUT', `/customer/${created.body.id}`, { name: 'Renamed Co' });
    expect(renamed.body).toMatchObject({ name: 'Renamed Co', achEnabled: false, feePassthroughPercent: 80 });
    const cleared = await h.api('PUT', `/customer/${created.body.id}`, {
      achEnabled: null,
      feePassthroughPercent: null,
    });
    expect(cleared.body).toMatchObject({ achEnabled: null, feePassthroughPercent: 25 });
    expect((await h.api('PUT', '/customer/cus_missing', { name: 'x' })).status).toBe(404);
  });

  it('4.8 / decision “Charge authorizations”: a charge authorization request starts inactive with no payment method', async () => {
    const customer = await h.api('POST', '/customer', { name: 'Card Co', emails: ['a@card.example'] });
    const auth = await h.api('POST', `/customer/${customer.body.id}/requestChargeAuthorization`, {
      transactionLimitCents: 1000,
      expirationDate: '2030-01-01',
      memo: 'monthly',
    });
    expect(auth.status).toBe(200);
    expect(auth.body).toMatchObject({
      customerId: customer.body.id,
      active: false,
      paymentMethod: null,
      transactionLimitCents: 1000,
    });
    expect((await h.api('GET', `/chargeAuthorization/${auth.body.id}`)).body.id).toBe(auth.body.id);
  });

  it('4.9 / decision “Files”: type or data=type=..., one required, disagreement 400', async () => {
    expect((await upload({ type: 'INVOICE_PDF' })).body.type).toBe('INVOICE_PDF');
    const fromData = await upload({ data: 'type=CREDIT_CARD_AUTHORIZATION_PDF' });
    expect(fromData.status).toBe(201);
    expect(fromData.body.type).toBe('CREDIT_CARD_AUTHORIZATION_PDF');
    expect((await upload({})).status).toBe(400);
    expect((await upload({ type: 'INVOICE_PDF', data: 'type=ACH_DEBIT_AUTHORIZATION_PDF' })).status).toBe(
      400,
    );
  });

  it('4.9 / decision “Files”: over 10 MiB -> 413', async () => {
    const response = await upload({ type: 'INVOICE_PDF' }, 10 * 1024 * 1024 + 1);
    expect(response.status).toBe(413);
    expect(response.body.error).toEqual(expect.any(String));
  });

  it('part 7 SHARED_ACCOUNT: an ACH debit authorization of a bank account another customer already uses -> 409', async () => {
    const a = (await h.api('POST', '/customer', { name: 'A' })).body.id;
    const b = (await h.api('POST', '/customer', { name: 'B' })).body.id;
    const bank = {
      type: 'ACH_DEBIT_AUTHORIZATION_PDF',
      routingNumber: '011000015',
      accountNumber: '5550001',
    };
    expect((await upload({ ...bank, customerId: a })).status).toBe(201);
    expect((await upload({ ...bank, customerId: a })).status).toBe(201);
    const shared = await upload({ ...bank, customerId: b });
    expect(shared.status).toBe(409);
    expect(shared.body.code).toBe('SHARED_ACCOUNT');
  });

  it('4.10: both paths set or replace the ACH delivery method with a new id', async () => {
    const vendor = (await h.api('POST', '/vendor', { name: 'Gravel Inc' })).body;
    const body = { routingNumber: '011000015', accountNumber: '12345678', accountType: 'CHECKING' };
    expect((await h.api('PUT', `/vendor/${vendor.id}/deliveryMethod/ach`, body)).body).toEqual({
      vendorId: vendor.id,
    });
    const first = (await h.api('GET', `/vendor/${vendor.id}`)).body.vendorDeliveryMethods;
    await h.api('PUT', `/vendor/${vendor.id}/payoutMethod/ach`, { ...body, accountNumber: '87654321' });
    const second = (await h.api('GET', `/vendor/${vendor.id}`)).body.vendorDeliveryMethods;
    expect(second).toHaveLength(1);
    expect(second[0].id).not.toBe(first[0].id);
    expect(second[0].achDetails).toEqual({
      routingNumber: '011000015',
      accountNumberLastFour: '4321',
      accountType: 'CHECKING',
    });
    expect(
      (await h.api('PUT', `/vendor/${vendor.id}/deliveryMethod/ach`, { ...body, accountType: 'BROKERAGE' }))
        .body.error,
    ).toContain('accountType');
  });

  it('4.11 / decision “Vendors”: delete answers {message}; afterwards 404; refused with a bill payment in flight', async () => {
    const vendor = (await h.api('POST', '/vendor', { name: 'Gone Co' })).body;
    const deleted = await h.api('DELETE', `/vendor/${vendor.id}`);
    expect(deleted.body.message).toEqual(expect.any(String));
    expect((await h.api('GET', `/vendor/${vendor.id}`)).status).toBe(404);
    const busy = (await h.api('POST', '/vendor', { name: 'Busy Co' })).body;
    await h.api('PUT', `/vendor/${busy.id}/deliveryMethod/ach`, {
      routingNumber: '011000015',
      accountNumber: '12345678',
      accountType: 'CHECKING',
    });
    const method = (await h.api('GET', `/vendor/${busy.id}`)).body.vendorDeliveryMethods[0].id;
    const bill = (await h.api('POST', '/bill', { vendorId: busy.id, amountCents: 500 })).body;
    await h.api('POST', `/bill/${bill.id}/billPayment`, { deliveryMethodId: method });
    expect((await h.api('GET', `/bill/${bill.id}`)).body.status).toBe('SCHEDULED');
    expect((await h.api('DELETE', `/vendor/${busy.id}`)).status).toBe(400);
  });
});

describe('storage and sandbox controls', () => {
  it('storage: a restart on the same file keeps every row, the clock offset and the keys', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'emulator-'));
    try {
      const dbPath = join(dir, 'emulator.sqlite');
      const first = await startHarness({ dbPath });
      const link = await newLink(first.api, 1000);
      const deposit = await newDeposit(first.api, 600);
      await first.api('POST', `/serviceBanking/checkDeposits/${deposit.id}/apply`, {
        paymentLinkId: link.id,
      });
      await first.admin('POST', '/sandbox/clock/advance', { days: 3 });
      const clockBefore = (await first.api('GET', '/sandbox/clock')).body.offsetMs;
      const key = first.keys.full;
      await first.close();
      const second = await startHarness({ dbPath });
      const again = caller(second.baseUrl, key);
      const got = await again('GET', `/paymentLink/${link.id}`);
      expect(got.body).toMatchObject({ completedAmountCents: 600, status: 'ACTIVE' });
      expect((await again('GET', '/sandbox/clock')).body.offsetMs).toBe(clockBefore);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('seedDemo: keys with and without permissions, customers, links, vendors; no events', async () => {
    const seeded = seedDemo(h.emulator.store);
    const full = caller(h.baseUrl, seeded.apiKey);
    expect((await full('GET', '/customers')).body.totalResults).toBe(3);
    expect((await full('GET', '/paymentLinks')).body.totalResults).toBe(3);
    expect(
      (await caller(h.baseUrl, seeded.limitedApiKey)('GET', '/serviceBanking/checkDeposits')).body.code,
    ).toBe('MISSING_PERMISSION');
    expect((await caller(h.baseUrl, seeded.noRestApiKey)('GET', '/customers')).status).toBe(403);
    expect((await full('GET', '/sandbox/events')).body.totalResults).toBe(0);
  });

  it('decision “Sandbox controls” faults: 500 plain text and 429 on API routes, never on sandbox routes; drop still applies the write', async () => {
    const org = await h.newOrganization();
    await org.call('POST', '/sandbox/faults', { rate: 1, kinds: ['500'] });
    const plain = await org.call('GET', '/customers');
    expect(plain.status).toBe(500);
    expect(plain.text).toContain('Internal Server Error');
    expect((await org.call('GET', '/sandbox/faults')).status).toBe(200);
    await org.call('POST', '/sandbox/faults', { rate: 1, kinds: ['429'] });
    expect((await org.call('GET', '/customers')).status).toBe(429);
    await org.call('POST', '/sandbox/faults', { rate: 1, kinds: ['drop'] });
    await expect(org.call('POST', '/customer', { name: 'Lost answer' })).rejects.toThrow();
    await org.call('POST', '/sandbox/faults', { rate: 0, kinds: [] });
    expect((await org.call('GET', '/customers?name=lost')).body.totalResults).toBe(1);
  });
});
