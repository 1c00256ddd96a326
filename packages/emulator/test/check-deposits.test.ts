import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, newDeposit, newLink, startHarness } from '../src/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const apply = (depositId: string, body: unknown) =>
  h.api('POST', `/serviceBanking/checkDeposits/${depositId}/apply`, body);

describe('4.1 apply a check deposit', () => {
  it('4.1 rule 1: the record carries the transferId and shows on the link and the deposit; nothing else moves', async () => {
    const deposit = await newDeposit(h.api, 5000);
    const link = await newLink(h.api, 3000);
    const response = await apply(deposit.id, { paymentLinkId: link.id, amountCents: 1000 });
    expect(response.status).toBe(200);
    expect(response.body.externalPayment).toMatchObject({
      amountCents: 1000,
      voided: false,
      serviceBankingTransferId: deposit.transferId,
    });
    expect(response.body.paymentLink.externalPayments.map((e: { id: string }) => e.id)).toEqual([
      response.body.externalPayment.id,
    ]);
    expect(response.body.paymentLink.completedAmountCents).toBe(1000);
    expect(response.body.paymentLink.status).toBe('ACTIVE');
    const fetched = await h.api('GET', `/serviceBanking/checkDeposits/${deposit.id}`);
    expect(fetched.body.unappliedAmountCents).toBe(4000);
    expect(fetched.body.applications.map((e: { id: string }) => e.id)).toEqual([
      response.body.externalPayment.id,
    ]);
  });

  it('4.1 amountCents default: the smaller of unapplied and what the link has left', async () => {
    const deposit = await newDeposit(h.api, 5000);
    const link = await newLink(h.api, 3000);
    const first = await apply(deposit.id, { paymentLinkId: link.id });
    expect(first.body.externalPayment.amountCents).toBe(3000);
    expect(first.body.paymentLink.status).toBe('PAID');
    const small = await newDeposit(h.api, 700);
    const link2 = await newLink(h.api, 3000);
    expect((await apply(small.id, { paymentLinkId: link2.id })).body.externalPayment.amountCents).toBe(700);
  });

  it('4.1 rule 2: undone with the void endpoint; the link reopens and the deposit has the amount back', async () => {
    const deposit = await newDeposit(h.api, 1000);
    const link = await newLink(h.api, 1000);
    const applied = await apply(deposit.id, { paymentLinkId: link.id });
    const voided = await h.api(
      'POST',
      `/paymentLink/${link.id}/externalPayment/${applied.body.externalPayment.id}/void`,
    );
    expect(voided.status).toBe(200);
    expect(voided.body.externalPayment.voided).toBe(true);
    expect(voided.body.paymentLink.status).toBe('ACTIVE');
    expect(voided.body.paymentLink.externalPayments).toEqual([]);
    expect(
      (await h.api('GET', `/serviceBanking/checkDeposits/${deposit.id}`)).body.unappliedAmountCents,
    ).toBe(1000);
  });

  it('4.1 rule 3: a deposit can be applied while still PROCESSING', async () => {
    const deposit = await newDeposit(h.api, 1000);
    expect(deposit.status).toBe('PROCESSING');
    const link = await newLink(h.api, 1000);
    expect((await apply(deposit.id, { paymentLinkId: link.id })).status).toBe(200);
  });

  it('4.1 rule 4 / part 3: a returned check voids its applications and the links reopen', async () => {
    const deposit = await newDeposit(h.api, 3000);
    const a = await newLink(h.api, 1000);
    const b = await newLink(h.api, 2000);
    await apply(deposit.id, { paymentLinkId: a.id });
    await apply(deposit.id, { paymentLinkId: b.id });
    expect((await h.api('GET', `/paymentLink/${a.id}`)).body.status).toBe('PAID');
    const returned = await h.api('POST', `/sandbox/checkDeposits/${deposit.id}/return`);
    expect(returned.body.status).toBe('RETURNED');
    expect(returned.body.applications).toEqual([]);
    for (const link of [a, b]) {
      const got = await h.api('GET', `/paymentLink/${link.id}`);
      expect(got.body.status).toBe('ACTIVE');
      expect(got.body.completedAmountCents).toBe(0);
      expect(got.body.externalPayments).toEqual([]);
    }
  });

  it('4.1 rule 4 / part 3: a rejected check voids its applications too', async () => {
    const deposit = await newDeposit(h.api, 1000);
    const link = await newLink(h.api, 1000);
    await apply(deposit.id, { paymentLinkId: link.id });
    expect((await h.api('POST', `/sandbox/checkDeposits/${deposit.id}/reject`)).body.status).toBe('REJECTED');
    expect((await h.api('GET', `/paymentLink/${link.id}`)).body.status).toBe('ACTIVE');
  });

  it('4.1 rule 5: same reference, same link, same payment -> the existing application with 200, applied once', async () => {
    const deposit = await newDeposit(h.api, 5000);
    const link = await newLink(h.api, 3000);
    const body = { paymentLinkId: link.id, amountCents: 1000, externalReferenceId: 'ref-5' };
    const first = await apply(deposit.id, body);
    const again = await apply(deposit.id, body);
    const withoutAmount = await apply(deposit.id, { paymentLinkId: link.id, externalReferenceId: 'ref-5' });
    expect(again.status).toBe(200);
    expect(again.body.externalPayment.id).toBe(first.body.externalPayment.id);
    expect(withoutAmount.body.externalPayment.id).toBe(first.body.externalPayment.id);
    expect(again.body.paymentLink.completedAmountCents).toBe(1000);
    expect(
      (await h.api('GET', `/serviceBanking/checkDeposits/${deposit.id}`)).body.unappliedAmountCents,
    ).toBe(4000);
  });

  it('4.1 rule 6: same reference, other amount / other deposit / outside money -> 409 REFERENCE_CONFLICT', async () => {
    const deposit = await newDeposit(h.api, 5000);
    const other = await newDeposit(h.api, 5000);
    const link = await newLink(h.api, 3000);
    await apply(deposit.id, { paymentLinkId: link.id, amountCents: 1000, externalReferenceId: 'ref-6' });
    const otherAmount = await apply(deposit.id, {
      paymentLinkId: link.id,
      amountCents: 999,
      externalReferenceId: 'ref-6',
    });
    const otherDeposit = await apply(other.id, {
      paymentLinkId: link.id,
      amountCents: 1000,
      externalReferenceId: 'ref-6',
    });
    const outside = await h.api('POST', `/paymentLink/${link.id}/externalPayment`, {
      amountCents: 1000,
      paidAt: '2026-01-02',
      externalReferenceId: 'ref-6',
    });
    for (const response of [otherAmount, otherDeposit, outside]) {
      expect(response.status).toBe(409);
      expect(response.body.code).toBe('REFERENCE_CONFLICT');
    }
  });

  it('4.1 rule 7: voiding the application frees the id', async () => {
    const deposit = await newDeposit(h.api, 5000);
    const link = await newLink(h.api, 3000);
    const first = await apply(deposit.id, {
      paymentLinkId: link.id,
      amountCents: 1000,
      externalReferenceId: 'ref-7',
    });
    await h.api('POST', `/paymentLink/${link.id}/externalPayment/${first.body.externalPayment.id}/void`);
    const reused = await apply(deposit.id, {
      paymentLinkId: link.id,
      amountCents: 2000,
      externalReferenceId: 'ref-7',
    });
    expect(reused.status).toBe(200);
    expect(reused.body.externalPayment.id).not.toBe(first.body.externalPayment.id);
    expect(reused.body.externalPayment.amountCents).toBe(2000);
  });

  it('4.1 rule 8: invalid input -> 400 naming the field', async () => {
    const deposit = await newDeposit(h.api, 5000);
    const link = await newLink(h.api, 3000);
    const noLink = await apply(deposit.id, {});
    expect(noLink.status).toBe(400);
    expect(noLink.body.error).toContain('paymentLinkId');
    const zero = await apply(deposit.id, { paymentLinkId: link.id, amountCents: 0 });
    expect(zero.status).toBe(400);
    expect(zero.body.error).toContain('amountCents');
    const long = await apply(deposit.id, { paymentLinkId: link.id, externalReferenceId: 'x'.repeat(256) });
    expect(long.status).toBe(400);
    expect(long.body.error).toContain('externalReferenceId');
  });

  it('4.1 rule 8: returned or rejected deposit -> 400', async () => {
    for (const verdict of ['return', 'reject']) {
      const deposit = await newDeposit(h.api, 5000);
      await h.api('POST', `/sandbox/checkDeposits/${deposit.id}/${verdict}`);
      const link = await newLink(h.api, 3000);
      const response = await apply(deposit.id, { paymentLinkId: link.id });
      expect(response.status).toBe(400);
      expect(response.body.code).toBeUndefined();
    }
  });

  it('4.1 rule 8: over the deposit remainder -> 400; over the link remainder -> 400', async () => {
    const deposit = await newDeposit(h.api, 1000);
    const link = await newLink(h.api, 5000);
    expect((await apply(deposit.id, { paymentLinkId: link.id, amountCents: 1001 })).status).toBe(400);
    const big = await newDeposit(h.api, 9000);
    const small = await newLink(h.api, 500);
    const over = await apply(big.id, { paymentLinkId: small.id, amountCents: 501 });
    expect(over.status).toBe(400);
    expect(over.body.error).toContain('left to pay');
  });

  it('4.1 rule 8: archived link -> 400; reusable link -> 400', async () => {
    const deposit = await newDeposit(h.api, 1000);
    const archived = await newLink(h.api, 1000);
    await h.api('POST', `/paymentLink/${archived.id}/archive`);
    expect((await apply(deposit.id, { paymentLinkId: archived.id })).status).toBe(400);
    const reusable = await newLink(h.api, 1000, { reusable: true });
    const response = await apply(deposit.id, { paymentLinkId: reusable.id, amountCents: 100 });
    expect(response.status).toBe(400);
    expect(response.body.error).toContain('reusable');
  });

  it('4.1 rule 9: unknown deposit or link -> 404', async () => {
    const deposit = await newDeposit(h.api, 1000);
    const link = await newLink(h.api, 1000);
    expect((await apply('cd_missing', { paymentLinkId: link.id })).status).toBe(404);
    const noLink = await apply(deposit.id, { paymentLinkId: 'pl_missing' });
    expect(noLink.status).toBe(404);
    expect(noLink.body.error).toContain('pl_missing');
  });

  it('4.1 rule 10: 403 as in part 7 (no banking, missing permission)', async () => {
    const response = await h.as(h.keys.noPermissions)('POST', '/serviceBanking/checkDeposits/cd_x/apply', {
      paymentLinkId: 'pl_x',
    });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('MISSING_PERMISSION');
  });

  it('concurrency: 20 parallel applies of one deposit never exceed its amount', async () => {
    const deposit = await newDeposit(h.api, 10_000);
    const links = await Promise.all(Array.from({ length: 20 }, () => newLink(h.api, 1000)));
    const responses = await Promise.all(
      links.map((link) => apply(deposit.id, { paymentLinkId: link.id, amountCents: 700 })),
    );
    const ok = responses.filter((r) => r.status === 200);
    expect(ok).toHaveLength(14);
    expect(responses.filter((r) => r.status === 400)).toHaveLength(6);
    const after = await h.api('GET', `/serviceBanking/checkDeposits/${deposit.id}`);
    expect(after.body.unappliedAmountCents).toBe(10_000 - 14 * 700);
  });

  it('decision “Check deposits”: multipart deposit with images; list with status filter', async () => {
    const form = new FormData();
    form.set('amountCents', '1234');
    form.set('memo', 'check #1');
    form.set('frontImage', new Blob([Buffer.alloc(10)]), 'front.png');
    form.set('backImage', new Blob([Buffer.alloc(10)]), 'back.png');
    const response = await fetch(`${h.baseUrl}/serviceBanking/checkDeposits`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.keys.full}` },
      body: form,
    });
    expect(response.status).toBe(201);
    const body = (await response.json()) as { status: string; amountCents: number };
    expect(body).toMatchObject({ status: 'PROCESSING', amountCents: 1234, unappliedAmountCents: 1234 });
    const missingBack = new FormData();
    missingBack.set('amountCents', '1');
    missingBack.set('frontImage', new Blob([Buffer.alloc(1)]), 'front.png');
    const bad = await fetch(`${h.baseUrl}/serviceBanking/checkDeposits`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.keys.full}` },
      body: missingBack,
    });
    expect(bad.status).toBe(400);
    const list = await h.api('GET', '/serviceBanking/checkDeposits?status=RETURNED&pageSize=500');
    expect(list.status).toBe(200);
    expect(list.body.checkDeposits.every((d: { status: string }) => d.status === 'RETURNED')).toBe(true);
  });
});
