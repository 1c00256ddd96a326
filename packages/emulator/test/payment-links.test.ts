import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, newLink, startHarness } from '../src/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const record = (linkId: string, body: unknown) =>
  h.api('POST', `/paymentLink/${linkId}/externalPayment`, body);

describe('4.2 external payments and decisions “Void an external payment” to “Debit memos”', () => {
  it('4.2 rule 3: a partial amount leaves the link ACTIVE with the amount counted', async () => {
    const link = await newLink(h.api, 1000);
    const response = await record(link.id, { amountCents: 400, paidAt: '2026-03-01' });
    expect(response.status).toBe(201);
    expect(response.body.externalPayment).toMatchObject({
      amountCents: 400,
      paidAt: '2026-03-01',
      externalReferenceId: null,
      serviceBankingTransferId: null,
    });
    expect(response.body.paymentLink).toMatchObject({ status: 'ACTIVE', completedAmountCents: 400 });
  });

  it('4.2 rule 2 / decision “Link statuses”: paying the rest re-derives PAID; voiding re-derives ACTIVE (decision “Void an external payment”)', async () => {
    const link = await newLink(h.api, 1000);
    const paid = await record(link.id, { amountCents: 1000, paidAt: '2026-03-01' });
    expect(paid.body.paymentLink.status).toBe('PAID');
    const voidPath = `/paymentLink/${link.id}/externalPayment/${paid.body.externalPayment.id}/void`;
    const voided = await h.api('POST', voidPath);
    expect(voided.body.paymentLink).toMatchObject({
      status: 'ACTIVE',
      completedAmountCents: 0,
      externalPayments: [],
    });
    const again = await h.api('POST', voidPath);
    expect(again.status).toBe(200);
    expect(again.body.externalPayment.voided).toBe(true);
  });

  it('4.2 rule 7 / decision “Reference rule”: identical repeat -> 200 same record; conflicting reuse -> 409 REFERENCE_CONFLICT', async () => {
    const link = await newLink(h.api, 1000);
    const body = { amountCents: 300, paidAt: '2026-03-01', externalReferenceId: 'inv-1' };
    const first = await record(link.id, body);
    const again = await record(link.id, body);
    expect(again.status).toBe(200);
    expect(again.body.externalPayment.id).toBe(first.body.externalPayment.id);
    expect(again.body.paymentLink.completedAmountCents).toBe(300);
    const conflict = await record(link.id, { ...body, paidAt: '2026-03-02' });
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe('REFERENCE_CONFLICT');
  });

  it('decision “Record an external payment”: over what is left -> 400; archived -> 400; reusable accepts any amount', async () => {
    const link = await newLink(h.api, 1000);
    expect((await record(link.id, { amountCents: 1001, paidAt: '2026-03-01' })).status).toBe(400);
    await h.api('POST', `/paymentLink/${link.id}/archive`);
    expect((await record(link.id, { amountCents: 1, paidAt: '2026-03-01' })).status).toBe(400);
    const reusable = await newLink(h.api, 1000, { reusable: true });
    const response = await record(reusable.id, { amountCents: 5000, paidAt: '2026-03-01' });
    expect(response.status).toBe(201);
    expect(response.body.paymentLink.status).toBe('ACTIVE');
  });

  it('decision “Record an external payment”: invalid input names the field', async () => {
    const link = await newLink(h.api, 1000);
    const response = await record(link.id, { amountCents: 10, paidAt: 'yesterday' });
    expect(response.status).toBe(400);
    expect(response.body.error).toContain('paidAt');
  });

  it('4.2 rules 1-7 under concurrency: parallel external payments never over-pay a link', async () => {
    const link = await newLink(h.api, 1000);
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => record(link.id, { amountCents: 300, paidAt: '2026-03-01' })),
    );
    expect(responses.filter((r) => r.status === 201)).toHaveLength(3);
    const got = await h.api('GET', `/paymentLink/${link.id}`);
    expect(got.body.completedAmountCents).toBe(900);
  });

  it('decision “Debit memos”: a debit memo raises requestedAmountCents and reopens a PAID link; void lowers it', async () => {
    const link = await newLink(h.api, 1000);
    await record(link.id, { amountCents: 1000, paidAt: '2026-03-01' });
    const memo = await h.api('POST', `/paymentLink/${link.id}/debitMemo`, {
      amountCents: 2500,
      description: 'Returned check fee',
      externalReferenceId: 'fee-1',
    });
    expect(memo.status).toBe(201);
    expect(memo.body.paymentLink).toMatchObject({
      status: 'ACTIVE',
      requestedAmountCents: 3500,
      debitMemoAmountCents: 2500,
    });
    const conflict = await h.api('POST', `/paymentLink/${link.id}/debitMemo`, {
      amountCents: 2600,
      description: 'Returned check fee',
      externalReferenceId: 'fee-1',
    });
    expect(conflict.body.code).toBe('REFERENCE_CONFLICT');
    const voided = await h.api('POST', `/paymentLink/${link.id}/debitMemo/${memo.body.debitMemo.id}/void`);
    expect(voided.body.debitMemo.voided).toBe(true);
    expect(voided.body.paymentLink).toMatchObject({
      status: 'PAID',
      requestedAmountCents: 1000,
      debitMemos: [],
    });
  });
});

describe('4.3 update a payment link', () => {
  it('4.3: null clears an override, omitted leaves it unchanged', async () => {
    const link = await newLink(h.api, 1000, { feePassthroughPercent: 50, achEnabled: false });
    const renamed = await h.api('PUT', `/paymentLink/${link.id}`, { name: 'Renamed' });
    expect(renamed.body).toMatchObject({ name: 'Renamed', feePassthroughPercent: 50, achEnabled: false });
    const cleared = await h.api('PUT', `/paymentLink/${link.id}`, {
      feePassthroughPercent: null,
      achEnabled: null,
    });
    expect(cleared.body).toMatchObject({ feePassthroughPercent: null, achEnabled: null, name: 'Renamed' });
  });

  it('4.2 rule 6 / decision “Updating a link”: lowering requestedAmountCents to what was paid makes the link PAID; memos stay on top', async () => {
    const link = await newLink(h.api, 1000);
    await record(link.id, { amountCents: 800, paidAt: '2026-03-01' });
    const updated = await h.api('PUT', `/paymentLink/${link.id}`, { requestedAmountCents: 800 });
    expect(updated.body).toMatchObject({ status: 'PAID', requestedAmountCents: 800 });
  });

  it('decision “Updating a link”: percent over 100 -> 400; archived link -> 400', async () => {
    const link = await newLink(h.api, 1000);
    expect((await h.api('PUT', `/paymentLink/${link.id}`, { feePassthroughPercent: 101 })).status).toBe(400);
    await h.api('POST', `/paymentLink/${link.id}/archive`);
    expect((await h.api('PUT', `/paymentLink/${link.id}`, { name: 'x' })).status).toBe(400);
  });

  it('decision “Precedence”: a card payment takes the link passthrough over the customer and organization', async () => {
    const customer = await h.api('POST', '/customer', { name: 'Passthrough Co', feePassthroughPercent: 0 });
    const link = await newLink(h.api, 10_000, { customerId: customer.body.id, feePassthroughPercent: 100 });
    const paid = await h.api('POST', `/sandbox/paymentLinks/${link.id}/pay`, { method: 'Card' });
    const fee = Math.round(10_000 * 0.029) + 30;
    expect(paid.body).toMatchObject({
      chargedAmountInCents: 10_000 + fee,
      platformFeeInCents: 0,
      fees: [{ type: 'CREDIT_CARD_FEE', amountInCents: fee }],
    });
    const viaCustomer = await newLink(h.api, 10_000, { customerId: customer.body.id });
    const paid2 = await h.api('POST', `/sandbox/paymentLinks/${viaCustomer.id}/pay`, { method: 'Card' });
    expect(paid2.body).toMatchObject({ chargedAmountInCents: 10_000, platformFeeInCents: fee });
  });

  it('decision “Precedence”: a customer achEnabled true is still disabled by the link', async () => {
    const customer = await h.api('POST', '/customer', { name: 'ACH Co', achEnabled: true });
    const link = await newLink(h.api, 1000, { customerId: customer.body.id, achEnabled: false });
    expect((await h.api('POST', `/sandbox/paymentLinks/${link.id}/pay`, { method: 'ACH' })).status).toBe(400);
  });
});

describe('4.5 send and decision “Link endpoints beyond part 4”', () => {
  it('4.5 rule 2: a later send to the same recipient is recorded as a reminder', async () => {
    const link = await newLink(h.api, 1000);
    const body = {
      recipients: [{ email: 'a@example.com', name: 'A', phoneNumber: '+15550001' }],
      sendSms: true,
    };
    const first = await h.api('POST', `/paymentLink/${link.id}/send`, body);
    expect(first.status).toBe(200);
    expect(first.body.message).toContain('1 new');
    const second = await h.api('POST', `/paymentLink/${link.id}/send`, {
      recipients: [{ email: 'A@example.com' }, { email: 'b@example.com' }],
    });
    expect(second.body.message).toContain('1 reminder');
    const log = await h.api('GET', `/sandbox/paymentLinks/${link.id}/sends`);
    expect(log.body.sends.map((s: { kind: string }) => s.kind)).toEqual(['FIRST', 'REMINDER', 'FIRST']);
    expect((await h.api('POST', `/paymentLink/${link.id}/send`, { recipients: [] })).status).toBe(400);
  });

  it('decision “Link endpoints beyond part 4”: list links filtered by status with totalResults', async () => {
    const other = await h.newOrganization();
    for (let i = 0; i < 3; i++) await newLink(other.call, 100);
    const paid = await newLink(other.call, 100);
    await other.call('POST', `/paymentLink/${paid.id}/externalPayment`, {
      amountCents: 100,
      paidAt: '2026-01-01',
    });
    const list = await other.call('GET', '/paymentLinks?status=ACTIVE&pageSize=2&page=2');
    expect(list.body.totalResults).toBe(3);
    expect(list.body.paymentLinks).toHaveLength(1);
    const archived = await other.call('POST', `/paymentLink/${paid.id}/archive`);
    expect(archived.body.status).toBe('ARCHIVED');
    expect((await other.call('POST', `/paymentLink/${paid.id}/archive`)).body.status).toBe('ARCHIVED');
  });
});
