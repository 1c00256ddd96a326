import type { Payment } from '@booksync/service-contract/schemas/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Call, type Harness, newLink, startHarness } from '../src/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const pay = async (api: Call, linkId: string, method: string, amountCents?: number) => {
  const response = await api('POST', `/sandbox/paymentLinks/${linkId}/pay`, { method, amountCents });
  if (response.status !== 201) throw new Error(response.text);
  return response.body;
};

async function eventsOf(api: Call, objectId: string): Promise<string[]> {
  const log = await api('GET', '/sandbox/events?pageSize=100');
  return log.body.events
    .filter((e: { event: { associated_object_id: string } }) => e.event.associated_object_id === objectId)
    .map((e: { event: { category: string } }) => e.event.category);
}

describe('4.4 refunds and the part 3 state table', () => {
  it('6.5 payment.made: card SUCCEEDED at once, ACH PENDING', async () => {
    const card = await pay(h.api, (await newLink(h.api, 1000)).id, 'Card');
    const ach = await pay(h.api, (await newLink(h.api, 1000)).id, 'ACH');
    expect(card.status).toBe('SUCCEEDED');
    expect(ach.status).toBe('PENDING');
    expect(await eventsOf(h.api, card.id)).toEqual(['payment.made']);
    expect(await eventsOf(h.api, ach.id)).toEqual(['payment.made']);
  });

  it('4.4 rule 2 / part 3: an unsettled card refund voids the charge, no fee, payment.voided', async () => {
    const link = await newLink(h.api, 1000);
    const card = await pay(h.api, link.id, 'Card');
    const partial = await h.api('POST', `/payment/${card.id}/refund`, { amountCents: 10 });
    expect(partial.status).toBe(400);
    const refunded = await h.api('POST', `/payment/${card.id}/refund`, { reason: 'duplicate' });
    expect(refunded.status).toBe(200);
    expect(refunded.body).toMatchObject({ status: 'REFUNDED', fees: [], platformFeeInCents: 0 });
    expect(refunded.body.refunds).toEqual([expect.objectContaining({ voided: true, amountCents: 1000 })]);
    expect(await eventsOf(h.api, card.id)).toEqual(['payment.made', 'payment.voided']);
    expect((await h.api('GET', `/paymentLink/${link.id}`)).body.status).toBe('ACTIVE');
  });

  it('4.4 rule 3 / decision “Settlement and voids”: an ACH refund before it goes to the network voids; after sending -> 400 until settled', async () => {
    const early = await pay(h.api, (await newLink(h.api, 500)).id, 'ACH');
    expect((await h.api('POST', `/payment/${early.id}/refund`, {})).body.refunds[0].voided).toBe(true);
    const sent = await pay(h.api, (await newLink(h.api, 500)).id, 'ACH');
    await h.api('POST', `/sandbox/payments/${sent.id}/sendToNetwork`);
    const refused = await h.api('POST', `/payment/${sent.id}/refund`, {});
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain('refund after it settles');
    await h.api('POST', `/sandbox/payments/${sent.id}/settle`);
    const credit = await h.api('POST', `/payment/${sent.id}/refund`, { amountCents: 200 });
    expect(credit.body).toMatchObject({ status: 'SUCCEEDED' });
    expect(credit.body.refunds).toEqual([expect.objectContaining({ voided: false, amountCents: 200 })]);
    expect(await eventsOf(h.api, sent.id)).toEqual(['payment.made', 'payment.refunded']);
  });

  it('part 3: a full refund of a settled payment reopens its link (payment.refunded)', async () => {
    const link = await newLink(h.api, 1000);
    const card = await pay(h.api, link.id, 'Card');
    await h.api('POST', `/sandbox/payments/${card.id}/settle`);
    expect((await h.api('GET', `/paymentLink/${link.id}`)).body.status).toBe('PAID');
    const partial = await h.api('POST', `/payment/${card.id}/refund`, { amountCents: 400 });
    expect(partial.body.status).toBe('SUCCEEDED');
    const rest = await h.api('POST', `/payment/${card.id}/refund`, {});
    expect(rest.body.status).toBe('REFUNDED');
    expect(rest.body.refunds.map((r: { amountCents: number }) => r.amountCents)).toEqual([400, 600]);
    const reopened = await h.api('GET', `/paymentLink/${link.id}`);
    expect(reopened.body).toMatchObject({ status: 'ACTIVE', completedAmountCents: 0 });
  });

  it('decision “Refund amount”: never exceed the refundable balance; FAILED -> 400; permission PAYMENTS_REFUND', async () => {
    const card = await pay(h.api, (await newLink(h.api, 1000)).id, 'Card');
    await h.api('POST', `/sandbox/payments/${card.id}/settle`);
    await h.api('POST', `/payment/${card.id}/refund`, { amountCents: 700 });
    const over = await h.api('POST', `/payment/${card.id}/refund`, { amountCents: 301 });
    expect(over.status).toBe(400);
    const denied = await h.as(h.keys.noPermissions)('POST', `/payment/${card.id}/refund`, {});
    expect(denied.body).toEqual({ error: 'missing permission PAYMENTS_REFUND', code: 'MISSING_PERMISSION' });
    const ach = await pay(h.api, (await newLink(h.api, 1000)).id, 'ACH');
    await h.api('POST', `/sandbox/payments/${ach.id}/achReturn`);
    expect((await h.api('POST', `/payment/${ach.id}/refund`, {})).status).toBe(400);
  });

  it('6.5 payment.failed: an ACH return within 60 days fails the payment and reopens the link', async () => {
    const link = await newLink(h.api, 1000);
    const ach = await pay(h.api, link.id, 'ACH');
    await h.api('POST', `/sandbox/payments/${ach.id}/settle`);
    expect((await h.api('GET', `/paymentLink/${link.id}`)).body.status).toBe('PAID');
    await h.admin('POST', '/sandbox/clock/advance', { days: 59 });
    const returned = await h.api('POST', `/sandbox/payments/${ach.id}/achReturn`);
    expect(returned.body.status).toBe('FAILED');
    expect((await h.api('GET', `/paymentLink/${link.id}`)).body.status).toBe('ACTIVE');
    expect(await eventsOf(h.api, ach.id)).toEqual(['payment.made', 'payment.failed']);
  });

  it('8 ACH return window: after 60 days of payment.made the return is refused', async () => {
    const ach = await pay(h.api, (await newLink(h.api, 1000)).id, 'ACH');
    await h.admin('POST', '/sandbox/clock/advance', { days: 61 });
    const late = await h.api('POST', `/sandbox/payments/${ach.id}/achReturn`);
    expect(late.status).toBe(400);
    expect(late.body.error).toContain('60-day');
  });

  it('part 3 / decision “Returned ACH refund credit”: a returned ACH refund credit: REFUNDED -> SUCCEEDED, balance restored, payment.failed', async () => {
    const link = await newLink(h.api, 1000);
    const ach = await pay(h.api, link.id, 'ACH');
    await h.api('POST', `/sandbox/payments/${ach.id}/settle`);
    const refunded = await h.api('POST', `/payment/${ach.id}/refund`, {});
    expect(refunded.body.status).toBe('REFUNDED');
    const back = await h.api('POST', `/sandbox/refunds/${refunded.body.refunds[0].id}/return`);
    expect(back.body).toMatchObject({ status: 'SUCCEEDED', refunds: [] });
    expect((await h.api('GET', `/paymentLink/${link.id}`)).body.status).toBe('PAID');
    expect(await eventsOf(h.api, ach.id)).toEqual(['payment.made', 'payment.refunded', 'payment.failed']);
    expect((await h.api('POST', `/payment/${ach.id}/refund`, { amountCents: 1000 })).status).toBe(200);
  });

  it('6.5 disbursement.pending / succeeded: batches settled payments once, with paymentIds', async () => {
    const other = await h.newOrganization();
    const a = await pay(other.call, (await newLink(other.call, 1000)).id, 'Card');
    const b = await pay(other.call, (await newLink(other.call, 2000)).id, 'ServiceBalance');
    await other.call('POST', `/sandbox/payments/${a.id}/settle`);
    const batch = await other.call('POST', '/sandbox/disbursements');
    const feeA = Math.round(1000 * 0.029) + 30;
    expect(batch.body).toMatchObject({ status: 'PENDING', amountInCents: 1000 - feeA + 2000 });
    expect(batch.body.paymentIds.sort()).toEqual([a.id, b.id].sort());
    expect((await other.call('POST', '/sandbox/disbursements')).status).toBe(400);
    const paid = await other.call('POST', `/sandbox/disbursements/${batch.body.id}/succeed`);
    expect(paid.body.status).toBe('SUCCEEDED');
    const payment = await other.call('GET', `/payment/${a.id}`);
    expect(payment.body.disbursement).toMatchObject({ id: batch.body.id, paymentIds: [] });
    expect(await eventsOf(other.call, batch.body.id)).toEqual([
      'disbursement.pending',
      'disbursement.succeeded',
    ]);
  });

  it('6.5 a payout to a second bank account names it; a malformed account is refused and nothing batched', async () => {
    const other = await h.newOrganization();
    const a = await pay(other.call, (await newLink(other.call, 1500)).id, 'ServiceBalance');
    const refused = await other.call('POST', '/sandbox/disbursements', { accountNumberLastFour: '12a4' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain('accountNumberLastFour');
    const batch = await other.call('POST', '/sandbox/disbursements', {
      bankName: 'Second Bank',
      accountNumberLastFour: '4321',
    });
    expect(batch.body).toMatchObject({
      bankName: 'Second Bank',
      accountNumberLastFour: '4321',
      paymentIds: [a.id],
    });
    expect((await other.call('GET', `/disbursement/${batch.body.id}`)).body).toMatchObject({
      accountNumberLastFour: '4321',
    });
    // Without a body: the organisation's own account.
    const b = await pay(other.call, (await newLink(other.call, 700)).id, 'ServiceBalance');
    const own = await other.call('POST', '/sandbox/disbursements');
    expect(own.body.paymentIds).toEqual([b.id]);
    expect(own.body.accountNumberLastFour).not.toBe('4321');
  });

  it('money conservation: charged - fees - live refunds - returned = disbursed + held balance', async () => {
    const org = await h.newOrganization({ feePassthroughPercent: 50 });
    const api = org.call;
    const made: string[] = [];
    const amounts = [1234, 5000, 999, 20_000, 750, 4321];
    const methods = ['Card', 'ACH', 'Card', 'ACH', 'ServiceBalance', 'Card'];
    for (const [i, amount] of amounts.entries())
      made.push((await pay(api, (await newLink(api, amount)).id, methods[i]!)).id);
    const [c1, a1, c2, a2, _s1, c3] = made as [string, string, string, string, string, string];
    await api('POST', `/payment/${c2}/refund`, {}); // void before settlement
    for (const id of [c1, a1, a2, c3]) await api('POST', `/sandbox/payments/${id}/settle`);
    await api('POST', `/payment/${c1}/refund`, { amountCents: 234 });
    await api('POST', '/sandbox/disbursements');
    await api('POST', `/payment/${c3}/refund`, { amountCents: 321 });
    await api('POST', `/sandbox/payments/${a2}/achReturn`);
    const refundA1 = await api('POST', `/payment/${a1}/refund`, { amountCents: 1000 });
    await api('POST', `/sandbox/refunds/${refundA1.body.refunds[0].id}/return`);
    const payments = (await api('GET', '/payments?pageSize=100')).body.payments as Payment[];
    let lhs = 0;
    for (const p of payments) {
      if (p.refunds.some((r: { voided: boolean }) => r.voided)) continue; // cancelled: no money moved
      if (p.estimatedDisbursementDate === null && p.status !== 'FAILED') continue;
      const settled = p.status !== 'PENDING';
      if (!settled) continue;
      const fees = p.fees.reduce((s: number, f: { amountInCents: number }) => s + f.amountInCents, 0);
      const refunds = p.refunds
        .filter((r: { voided: boolean }) => !r.voided)
        .reduce((s: number, r: { amountCents: number }) => s + r.amountCents, 0);
      const returned = p.status === 'FAILED' ? p.amountInCents : 0;
      lhs += p.chargedAmountInCents - fees - refunds - returned;
    }
    const disbursed = (
      (await api('GET', '/disbursements')).body.disbursements as { amountInCents: number }[]
    ).reduce((s, d) => s + d.amountInCents, 0);
    const held = (await api('GET', '/sandbox/balance')).body.heldBalanceCents as number;
    expect(lhs).toBe(disbursed + held);
    expect(disbursed).toBeGreaterThan(0);
  });
});
