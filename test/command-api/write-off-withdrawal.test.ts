import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IngressApp } from '../../src/ingress/ingress-app.js';
import { createIngress } from '../../src/ingress/server.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { invoiceEntryToPost } from '../../src/ledger/mapping/invoice.js';
import { writtenOffCents } from '../../src/ledger/write-offs.js';
import { ServiceClient } from '../../src/service/client.js';
import { type Harness, newLink, startHarness } from '../emulator/harness.js';
import { recordingTemporalClient } from '../support/recording-temporal-client.js';

// `POST /commands/paymentLinks/{id}/writeOffs/{writeOffId}/withdraw` through inject, against the emulator and
// an embedded ledger. A write-off whose lowering's outcome was unknown stays recorded; once the link changed
// (a payment), its Idempotency-Key no longer fits and a new write-off is refused while it is pending: the
// business withdraws it, and a later lowering is a discount. A write-off the books took stands; one whose
// lowering may be waiting to be booked is refused until the link is synced.

const apiKey = 'write-off-withdraw-test-key-0123456789';
let harness: Harness;
let ledger: EmbeddedLedger;
let app: IngressApp;

beforeAll(async () => {
  harness = await startHarness();
  ledger = EmbeddedLedger.open();
  const service = new ServiceClient({ baseUrl: harness.baseUrl, apiKey: harness.keys.full });
  app = createIngress({
    temporalClient: recordingTemporalClient().client,
    taskQueue: 'write-off-withdrawals',
    webhookSecrets: ['whsec_write_off_withdrawals'],
    commandApiKey: apiKey,
    writeOffs: { ledger, service },
  });
}, 60_000);
afterAll(async () => {
  await app?.close();
  ledger?.close();
  await harness?.close();
});

const post = (url: string, body?: unknown) =>
  app.inject({
    method: 'POST',
    url,
    headers: {
      authorization: `Bearer ${apiKey}`,
      'idempotency-key': randomUUID(),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
const writeOff = (linkId: string) => post(`/commands/paymentLinks/${linkId}/writeOff`, {});
const withdraw = (linkId: string, writeOffId: string) =>
  post(`/commands/paymentLinks/${linkId}/writeOffs/${writeOffId}/withdraw`);
const serviceLink = async (id: string) => (await harness.api('GET', `/paymentLink/${id}`)).body;

/** A link of `cents` with its invoice booked. */
async function bookedLink(cents: number) {
  const link = await serviceLink((await newLink(harness.api, cents)).id);
  await ledger.post(invoiceEntryToPost(link, [], '2026-03-01', 'UTC')!);
  return link;
}

/** Whatever the link's flows would book now: its lowering, what the live write-offs cover of it as Bad Debt. */
async function bookLink(linkId: string) {
  const entry = invoiceEntryToPost(
    await serviceLink(linkId),
    await ledger.entriesFor({ paymentLinkId: linkId }),
    '2026-03-05',
    'UTC',
    0,
    writtenOffCents(await ledger.writeOffsFor(linkId)),
  );
  if (entry) await ledger.post(entry);
  return entry;
}

describe('withdrawing a write-off', () => {
  it('one that never lowered the link: withdrawn once, a new write-off taken, a later lowering a discount', async () => {
    const link = await bookedLink(5_000);
    // The lowering's outcome was unknown (502): the write-off stays recorded, the link was never lowered.
    await ledger.recordWriteOff({
      id: 'wo-unknown',
      paymentLinkId: link.id,
      amountCents: 5_000,
      reason: null,
    });
    const pending = await writeOff(link.id);
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
    expect((await bookLink(link.id))?.lines).toEqual([
      { account: Accounts.AccountsReceivable, amountCents: -1_000 },
      { account: Accounts.DiscountsAndWriteOffs, amountCents: 1_000 },
    ]);
    // And a new write-off of what is left is taken.
    const taken = await writeOff(link.id);
    expect([taken.statusCode, taken.json().amountCents]).toEqual([201, 4_000]);
  });

  it('refused once the books took it (Bad Debt booked): it stands', async () => {
    const link = await bookedLink(3_000);
    const taken = await writeOff(link.id);
    expect(taken.statusCode).toBe(201);
    await bookLink(link.id);
    const refused = await withdraw(link.id, taken.json().writeOffId);
    expect([refused.statusCode, refused.json().code]).toEqual([409, 'write_off_booked']);
    expect(writtenOffCents(await ledger.writeOffsFor(link.id))).toBe(3_000);
  });

  it('refused while the link has a lowering the books have not taken (it may be this one): sync first', async () => {
    const link = await bookedLink(2_000);
    const taken = await writeOff(link.id);
    expect(taken.statusCode).toBe(201);
    const refused = await withdraw(link.id, taken.json().writeOffId);
    expect([refused.statusCode, refused.json().code]).toEqual([409, 'lowering_not_booked']);
    expect(refused.json().error).toContain(`booksync link sync ${link.id}`);
    // Synced: it is Bad Debt, and then it stands.
    expect((await bookLink(link.id))?.lines).toContainEqual({
      account: Accounts.BadDebt,
      amountCents: 2_000,
    });
    expect((await withdraw(link.id, taken.json().writeOffId)).json().code).toBe('write_off_booked');
  });

  it('404 for a write-off the link does not have; 401 without the bearer key', async () => {
    const link = await bookedLink(1_000);
    const unknown = await withdraw(link.id, 'wo-nope');
    expect([unknown.statusCode, unknown.json().code]).toEqual([404, 'write_off_not_found']);
    const anonymous = await app.inject({
      method: 'POST',
      url: `/commands/paymentLinks/${link.id}/writeOffs/wo-nope/withdraw`,
    });
    expect(anonymous.statusCode).toBe(401);
  });
});
