import { randomUUID } from 'node:crypto';
import { type Harness, newLink, startHarness } from '@booksync/emulator/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentLinkWorkflowId } from '../../src/flows/payment-link/contract.js';
import type { IngressApp } from '../../src/ingress/ingress-app.js';
import { createIngress } from '../../src/ingress/server.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { invoiceEntryToPost } from '../../src/ledger/mapping/invoice.js';
import { writtenOffCents } from '../../src/ledger/write-offs.js';
import { ServiceClient } from '../../src/service/client.js';
import {
  type RecordingTemporalClient,
  recordingTemporalClient,
} from '../support/recording-temporal-client.js';
import { bookLink, serviceLink as serviceLinkOf } from './write-off-books.js';

// `POST /commands/paymentLinks/{id}/writeOff` through inject, against the emulator and an embedded ledger:
// the write-off is recorded in the ledger's store, then the link's own amount is lowered at the service by
// what remains, and the link's workflow is signalled to book it. The lowering then books as Bad Debt.
// Refused with nothing written: an unknown link, nothing left to pay, an unpaid part in debit memos, an
// invoice not booked yet.

const apiKey = 'write-off-test-key-0123456789';
let harness: Harness;
let ledger: EmbeddedLedger;
let temporal: RecordingTemporalClient;
let app: IngressApp;

beforeAll(async () => {
  harness = await startHarness();
  ledger = EmbeddedLedger.open();
  temporal = recordingTemporalClient();
  const service = new ServiceClient({ baseUrl: harness.baseUrl, apiKey: harness.keys.full });
  app = createIngress({
    temporalClient: temporal.client,
    taskQueue: 'write-offs',
    webhookSecrets: ['whsec_write_offs'],
    commandApiKey: apiKey,
    writeOffs: { ledger, service },
  });
}, 60_000);
afterAll(async () => {
  await app?.close();
  ledger?.close();
  await harness?.close();
});

const writeOff = (linkId: string, body?: unknown, key: string | null = randomUUID()) =>
  app.inject({
    method: 'POST',
    url: `/commands/paymentLinks/${linkId}/writeOff`,
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(key ? { 'idempotency-key': key } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });

const serviceLink = (id: string) => serviceLinkOf(harness, id);

/** A link of `cents`, its invoice booked, `paid` of it received outside the service. */
async function bookedLink(cents: number, paid: number, memoCents = 0) {
  const link = await newLink(harness.api, cents);
  if (memoCents > 0) {
    const memo = await harness.api('POST', `/paymentLink/${link.id}/debitMemo`, {
      amountCents: memoCents,
      description: 'Late fee',
    });
    expect(memo.status).toBe(201);
  }
  if (paid > 0) {
    const recorded = await harness.api('POST', `/paymentLink/${link.id}/externalPayment`, {
      amountCents: paid,
      paidAt: '2026-03-01',
    });
    expect(recorded.status).toBe(201);
  }
  const fetched = await serviceLink(link.id);
  await ledger.post(invoiceEntryToPost(fetched, [], '2026-03-01', 'UTC')!);
  return fetched;
}

/** The lowering as the link's flows book it: what the write-offs recorded cover of it. */
const bookLowering = (linkId: string) => bookLink(harness, ledger, linkId);

describe('writing off what a payment link owes', () => {
  it('201: recorded, the link lowered by what remains, its workflow signalled; the lowering books Dr Bad Debt / Cr A/R', async () => {
    const link = await bookedLink(10_000, 3_000);
    const key = randomUUID();
    const answer = await writeOff(link.id, { reason: 'customer went out of business' }, key);
    expect(answer.statusCode).toBe(201);
    expect(answer.json()).toMatchObject({
      paymentLinkId: link.id,
      amountCents: 7_000,
      reason: 'customer went out of business',
      created: true,
      link: { requestedAmountCents: 3_000, completedAmountCents: 3_000, remainderCents: 0 },
    });
    expect(await serviceLink(link.id)).toMatchObject({ requestedAmountCents: 3_000, status: 'PAID' });
    expect(await ledger.writeOffsFor(link.id)).toMatchObject([
      { amountCents: 7_000, reason: 'customer went out of business', withdrawnAt: null },
    ]);
    expect(temporal.calls.at(-1)).toMatchObject({
      workflowId: paymentLinkWorkflowId(link.id),
      signal: 'sync',
      signalArgs: [{ reason: 'write-off' }],
    });

    const entry = await bookLowering(link.id);
    expect(entry?.key).toBe(`invoice-adjustment:${link.id}:1`);
    expect(entry?.lines).toEqual([
      { account: Accounts.AccountsReceivable, amountCents: -7_000 },
      { account: Accounts.BadDebt, amountCents: 7_000 },
    ]);

    // The same command again (its answer lost) answers the same; a new one finds nothing left to pay.
    const again = await writeOff(link.id, { reason: 'customer went out of business' }, key);
    expect(again.statusCode).toBe(201);
    expect(again.json().writeOffId).toBe(answer.json().writeOffId);
    const another = await writeOff(link.id);
    expect(another.statusCode).toBe(409);
    expect(another.json()).toMatchObject({ code: 'nothing_to_write_off' });
  });

  it('409 when nothing remains to pay, with what was paid; nothing recorded, nothing lowered', async () => {
    const link = await bookedLink(5_000, 5_000);
    const answer = await writeOff(link.id);
    expect(answer.statusCode).toBe(409);
    expect(answer.json()).toEqual({
      code: 'nothing_to_write_off',
      error: `payment link ${link.id} has nothing left to pay ($50.00 paid of $50.00): nothing to write off`,
    });
    expect(await ledger.writeOffsFor(link.id)).toEqual([]);
    expect((await serviceLink(link.id)).requestedAmountCents).toBe(5_000);
  });

  it('404 for a link the service does not know', async () => {
    const answer = await writeOff('pl_unknown');
    expect(answer.statusCode).toBe(404);
    expect(answer.json()).toMatchObject({ code: 'payment_link_not_found' });
    expect(answer.json().error).toContain('payment link pl_unknown is unknown at the service');
    expect(await ledger.writeOffsFor('pl_unknown')).toEqual([]);
  });

  it('a link with debit memos: its own amount lowered to what was paid less the memos (4.3 sets the own amount)', async () => {
    // 10,000 own + 1,500 memo, 6,000 paid: 5,500 left, all within the own amount.
    const link = await bookedLink(10_000, 6_000, 1_500);
    const answer = await writeOff(link.id);
    expect(answer.statusCode).toBe(201);
    expect(answer.json()).toMatchObject({
      amountCents: 5_500,
      link: { requestedAmountCents: 6_000, debitMemoAmountCents: 1_500, remainderCents: 0 },
    });
    expect((await bookLowering(link.id))?.lines).toEqual([
      { account: Accounts.AccountsReceivable, amountCents: -5_500 },
      { account: Accounts.BadDebt, amountCents: 5_500 },
    ]);
  });

  it('409 when part of what remains is in debit memos (the own amount cannot take it off)', async () => {
    // 2,000 own + 3,000 memo, 1,000 paid: 4,000 left, more than the own amount.
    const link = await bookedLink(2_000, 1_000, 3_000);
    const answer = await writeOff(link.id);
    expect(answer.statusCode).toBe(409);
    expect(answer.json().code).toBe('debit_memos_unpaid');
    expect(answer.json().error).toContain('cannot take off a debit memo; void the debit memos');
    expect(await ledger.writeOffsFor(link.id)).toEqual([]);
    expect((await serviceLink(link.id)).requestedAmountCents).toBe(5_000);
  });

  it('409 while the link’s invoice is not booked', async () => {
    const link = await newLink(harness.api, 4_000);
    const answer = await writeOff(link.id);
    expect(answer.statusCode).toBe(409);
    expect(answer.json()).toMatchObject({ code: 'invoice_not_booked' });
    expect((await serviceLink(link.id)).requestedAmountCents).toBe(4_000);
  });

  it('a refused lowering withdraws the write-off: an archived link', async () => {
    const link = await bookedLink(3_000, 0);
    expect((await harness.api('POST', `/paymentLink/${link.id}/archive`)).status).toBe(200);
    const answer = await writeOff(link.id);
    expect(answer.statusCode).toBe(400);
    expect(answer.json().error).toContain('was not lowered at the service; nothing was written off');
    const [withdrawn] = await ledger.writeOffsFor(link.id);
    expect(withdrawn?.withdrawnAt).not.toBeNull();
    expect(writtenOffCents(await ledger.writeOffsFor(link.id))).toBe(0);
  });

  it('asks for an Idempotency-Key, a bearer key, and a reason of at most 500 characters', async () => {
    const link = await bookedLink(1_000, 0);
    expect((await writeOff(link.id, undefined, null)).statusCode).toBe(400);
    expect((await writeOff(link.id, { reason: 'x'.repeat(501) })).statusCode).toBe(400);
    const anonymous = await app.inject({ method: 'POST', url: `/commands/paymentLinks/${link.id}/writeOff` });
    expect(anonymous.statusCode).toBe(401);
  });

  it('503 from an ingress without the books or the service', async () => {
    const apart = createIngress({
      temporalClient: recordingTemporalClient().client,
      taskQueue: 'write-offs',
      webhookSecrets: ['whsec_write_offs'],
      commandApiKey: apiKey,
    });
    try {
      const answer = await apart.inject({
        method: 'POST',
        url: '/commands/paymentLinks/pl_1/writeOff',
        headers: { authorization: `Bearer ${apiKey}`, 'idempotency-key': randomUUID() },
      });
      expect(answer.statusCode).toBe(503);
      expect(answer.json().code).toBe('write_offs_not_served');
    } finally {
      await apart.close();
    }
  });
});

const withdraw = (linkId: string, writeOffId: string) =>
  app.inject({
    method: 'POST',
    url: `/commands/paymentLinks/${linkId}/writeOffs/${writeOffId}/withdraw`,
    headers: { authorization: `Bearer ${apiKey}` },
  });

// A write-off whose lowering's outcome was unknown stays recorded; once the link changed (a payment), its
// Idempotency-Key no longer fits and a new write-off is refused while it is pending: the business withdraws
// it, and a later lowering is a discount. One the books took stands; one whose lowering may be waiting to be
// booked is refused until the link is synced.
describe('withdrawing a write-off', () => {
  it('one that never lowered the link: withdrawn once, a new write-off taken, a later lowering a discount', async () => {
    const link = await bookedLink(5_000, 0);
    // The lowering's outcome was unknown (502): the write-off stays recorded, the link was never lowered.
    await ledger.recordWriteOff({
      id: 'wo-unknown',
      paymentLinkId: link.id,
      amountCents: 5_000,
      reason: null,
    });
    const pending = await writeOff(link.id, {});
    expect([pending.statusCode, pending.json().code]).toEqual([409, 'write_off_pending']);

    const withdrawn = await withdraw(link.id, 'wo-unknown');
    expect(withdrawn.statusCode).toBe(200);
    expect(withdrawn.json()).toMatchObject({
      paymentLinkId: link.id,
      writeOffId: 'wo-unknown',
      amountCents: 5_000,
      withdrawn: true,
    });
    const again = await withdraw(link.id, 'wo-unknown');
    expect([again.statusCode, again.json().withdrawn]).toEqual([200, false]);
    expect(writtenOffCents(await ledger.writeOffsFor(link.id))).toBe(0);

    // A discount given at the service is a discount, not the withdrawn write-off's Bad Debt.
    await harness.api('PUT', `/paymentLink/${link.id}`, { requestedAmountCents: 4_000 });
    expect((await bookLowering(link.id))?.lines).toEqual([
      { account: Accounts.AccountsReceivable, amountCents: -1_000 },
      { account: Accounts.DiscountsAndWriteOffs, amountCents: 1_000 },
    ]);
    // And a new write-off of what is left is taken.
    const taken = await writeOff(link.id, {});
    expect([taken.statusCode, taken.json().amountCents]).toEqual([201, 4_000]);
  });

  it('refused once the books took it (Bad Debt booked): it stands', async () => {
    const link = await bookedLink(3_000, 0);
    const taken = await writeOff(link.id, {});
    expect(taken.statusCode).toBe(201);
    await bookLowering(link.id);
    const refused = await withdraw(link.id, taken.json().writeOffId);
    expect([refused.statusCode, refused.json().code]).toEqual([409, 'write_off_booked']);
    expect(writtenOffCents(await ledger.writeOffsFor(link.id))).toBe(3_000);
  });

  it('refused while the link has a lowering the books have not taken (it may be this one): sync first', async () => {
    const link = await bookedLink(2_000, 0);
    const taken = await writeOff(link.id, {});
    expect(taken.statusCode).toBe(201);
    const refused = await withdraw(link.id, taken.json().writeOffId);
    expect([refused.statusCode, refused.json().code]).toEqual([409, 'lowering_not_booked']);
    expect(refused.json().error).toContain(`booksync link sync ${link.id}`);
    // Synced: it is Bad Debt, and then it stands.
    expect((await bookLowering(link.id))?.lines).toContainEqual({
      account: Accounts.BadDebt,
      amountCents: 2_000,
    });
    expect((await withdraw(link.id, taken.json().writeOffId)).json().code).toBe('write_off_booked');
  });

  it('404 for a write-off the link does not have; 401 without the bearer key', async () => {
    const link = await bookedLink(1_000, 0);
    const unknown = await withdraw(link.id, 'wo-nope');
    expect([unknown.statusCode, unknown.json().code]).toEqual([404, 'write_off_not_found']);
    const anonymous = await app.inject({
      method: 'POST',
      url: `/commands/paymentLinks/${link.id}/writeOffs/wo-nope/withdraw`,
    });
    expect(anonymous.statusCode).toBe(401);
  });
});
