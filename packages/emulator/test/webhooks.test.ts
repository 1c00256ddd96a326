import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventEnvelope } from '@booksync/service-contract/schemas/index';
import { verify } from '@booksync/service-contract/webhook-signature';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, newLink, startHarness } from '../src/harness.js';
import { DirectHttpDispatcher } from '../src/webhooks/direct-http-dispatcher.js';
import type { RecordingDispatcher } from '../src/webhooks/recording-dispatcher.js';

interface Received {
  body: string;
  signature: string | undefined;
}

async function receiver(handle: (n: number, req: IncomingMessage, res: ServerResponse) => void) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        body: Buffer.concat(chunks).toString(),
        signature: req.headers['service-signature'] as string | undefined,
      });
      handle(received.length, req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let h: Harness | undefined;
let dispatcher: DirectHttpDispatcher | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await dispatcher?.idle();
  await h?.close();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function start() {
  h = await startHarness({
    dispatcher: (store) => {
      dispatcher = new DirectHttpDispatcher({ store, backoffMs: [5, 10, 20, 40], timeoutMs: 200 });
      return dispatcher;
    },
  });
  return h;
}

describe('part 6 events and delivery', () => {
  it('6.1 rule 1 / decision “Webhook subscription”: creating a webhook replaces the API subscription; secret whsec_ + 32 bytes; GET returns it', async () => {
    const harness = await start();
    const first = await harness.api('POST', '/webhook', { url: 'http://127.0.0.1:9/a' });
    expect(first.status).toBe(201);
    expect(first.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const second = await harness.api('POST', '/webhook', { url: 'http://127.0.0.1:9/b' });
    const listed = await harness.api('GET', '/webhook');
    expect(listed.body.webhooks).toEqual([second.body]);
    expect((await harness.api('POST', '/webhook', { url: 'ftp://x' })).status).toBe(400);
  });

  it('6.3 / 6.4: a receiver failing 4 times then 2xx sees 5 attempts, fresh valid signature each, same event id', async () => {
    const harness = await start();
    const hook = await receiver((n, _req, res) => {
      res.statusCode = n < 5 ? 500 : 204;
      res.end();
    });
    cleanups.push(hook.close);
    const secret = (await harness.api('POST', '/webhook', { url: hook.url })).body.secret as string;
    const link = await newLink(harness.api, 1000);
    await harness.api('POST', `/sandbox/paymentLinks/${link.id}/pay`, { method: 'Card' });
    await dispatcher!.idle();
    expect(hook.received).toHaveLength(5);
    const ids = new Set<string>();
    for (const delivery of hook.received) {
      expect(verify(delivery.body, delivery.signature, [secret]).ok).toBe(true);
      const envelope = EventEnvelope.parse(JSON.parse(delivery.body));
      expect(Object.keys(JSON.parse(delivery.body)).sort()).toEqual([
        'associated_object_id',
        'associated_object_type',
        'category',
        'created_at',
        'id',
        'type',
      ]);
      ids.add(envelope.id);
    }
    expect(ids.size).toBe(1);
    const log = await harness.api('GET', `/sandbox/events/${[...ids][0]}`);
    expect(log.body.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([
      500, 500, 500, 500, 204,
    ]);
    expect(log.body.event.category).toBe('payment.made');
  });

  it('6.3 rule 2: a receiver that never answers sees exactly 5 attempts, each timed out', async () => {
    const harness = await start();
    const hook = await receiver(() => {});
    cleanups.push(hook.close);
    await harness.api('POST', '/webhook', { url: hook.url });
    const link = await newLink(harness.api, 1000);
    const payment = await harness.api('POST', `/sandbox/paymentLinks/${link.id}/pay`, { method: 'ACH' });
    await dispatcher!.idle();
    expect(hook.received).toHaveLength(5);
    const log = await harness.api('GET', '/sandbox/events');
    const entry = log.body.events.find(
      (e: { event: { associated_object_id: string } }) => e.event.associated_object_id === payment.body.id,
    );
    expect(entry.attempts).toHaveLength(5);
    expect(
      entry.attempts.every(
        (a: { statusCode: null; error: string }) => a.statusCode === null && a.error.includes('timeout'),
      ),
    ).toBe(true);
  });

  it('6.1 rule 3: the legacy subscription is delivered unsigned and stays beside the API one; redeliver keeps the id', async () => {
    const harness = await start();
    const hook = await receiver((_n, _req, res) => res.end());
    cleanups.push(hook.close);
    await harness.api('POST', '/sandbox/webhook/legacy', { url: hook.url });
    await harness.api('POST', '/webhook', { url: hook.url });
    const vendor = await harness.api('POST', '/vendor', { name: 'Paper Co' });
    await harness.api('PUT', `/vendor/${vendor.body.id}/payoutMethod/ach`, {
      routingNumber: '011000015',
      accountNumber: '123456789',
      accountType: 'CHECKING',
    });
    await dispatcher!.idle();
    expect(hook.received).toHaveLength(2);
    expect(hook.received.filter((r) => r.signature === undefined)).toHaveLength(1);
    const eventId = JSON.parse(hook.received[0]!.body).id;
    const redeliver = await harness.api('POST', `/sandbox/events/${eventId}/redeliver`);
    expect(redeliver.status).toBe(202);
    await dispatcher!.idle();
    expect(hook.received).toHaveLength(4);
    expect(new Set(hook.received.map((r) => JSON.parse(r.body).id)).size).toBe(1);
  });

  it('sandbox control: held webhooks wait, then go out last first and twice each; a release without a hold is 409', async () => {
    const harness = await start();
    const hook = await receiver((_n, _req, res) => res.end());
    cleanups.push(hook.close);
    await harness.api('POST', '/webhook', { url: hook.url });
    expect((await harness.api('POST', '/sandbox/webhooks/release', {})).status).toBe(409);
    expect((await harness.api('POST', '/sandbox/webhooks/hold', {})).body).toEqual({ held: true });
    const link = await newLink(harness.api, 1000);
    const paid = await harness.api('POST', `/sandbox/paymentLinks/${link.id}/pay`, { method: 'ACH' });
    await harness.api('POST', `/sandbox/payments/${paid.body.id}/achReturn`);
    await dispatcher!.idle();
    expect(hook.received).toEqual([]);
    // Held, not lost: the delivery log lists both, with no attempt yet.
    const log = (await harness.api('GET', '/sandbox/events')).body.events as {
      event: { category: string };
      attempts: unknown[];
    }[];
    expect(log.map((e) => [e.event.category, e.attempts.length]).sort()).toEqual([
      ['payment.failed', 0],
      ['payment.made', 0],
    ]);
    const released = await harness.api('POST', '/sandbox/webhooks/release', { order: 'reversed', times: 2 });
    expect(released.body).toEqual({ released: 2 });
    await dispatcher!.idle();
    // Each twice; the order they were handed to the sender is the recording dispatcher's test below.
    const categories = hook.received.map((r) => (JSON.parse(r.body) as { category: string }).category);
    expect(categories.sort()).toEqual(['payment.failed', 'payment.failed', 'payment.made', 'payment.made']);
    // Released: the next event goes out at once.
    await harness.api('POST', `/sandbox/paymentLinks/${(await newLink(harness.api, 500)).id}/pay`, {
      method: 'Card',
    });
    await dispatcher!.idle();
    expect(hook.received).toHaveLength(5);
    expect((await harness.api('POST', '/sandbox/webhooks/release', { times: 4 })).status).toBe(400);
  });

  it('sandbox control: a release hands the held events to the sender in the order asked, copies after', async () => {
    h = await startHarness();
    const recording = h.emulator.dispatcher as RecordingDispatcher;
    await h.api('POST', '/webhook', { url: 'http://127.0.0.1:9/hook' });
    await h.api('POST', '/sandbox/webhooks/hold', {});
    const link = await newLink(h.api, 1000);
    const paid = await h.api('POST', `/sandbox/paymentLinks/${link.id}/pay`, { method: 'ACH' });
    await h.api('POST', `/sandbox/payments/${paid.body.id}/achReturn`);
    expect(recording.categories()).toEqual([]);
    await h.api('POST', '/sandbox/webhooks/release', { order: 'reversed', times: 2 });
    expect(recording.categories()).toEqual([
      'payment.failed',
      'payment.made',
      'payment.failed',
      'payment.made',
    ]);
    await h.api('POST', '/sandbox/webhooks/hold', {});
    const first = await h.api('POST', `/sandbox/paymentLinks/${(await newLink(h.api, 500)).id}/pay`, {
      method: 'Card',
    });
    const second = await h.api('POST', `/sandbox/paymentLinks/${(await newLink(h.api, 700)).id}/pay`, {
      method: 'Card',
    });
    const later = () => recording.dispatched.slice(4).map((d) => d.event.associated_object_id);
    expect(later()).toEqual([]);
    await h.api('POST', '/sandbox/webhooks/release', {});
    expect(later()).toEqual([first.body.id, second.body.id]);
  });

  it('6.5 / decision “Which transition emits which event”: every category with its object type; check events carry the bill payment id', async () => {
    const harness = await start();
    const api = harness.api;
    const customer = await api('POST', '/customer', { name: 'Auth Co', emails: ['ap@auth.example'] });
    const auth = await api('POST', `/customer/${customer.body.id}/requestChargeAuthorization`, {
      transactionLimitCents: 50_000,
      expirationDate: '2030-01-01',
    });
    expect(auth.body).toMatchObject({ active: false, paymentMethod: null });
    expect(
      (await api('POST', `/sandbox/chargeAuthorizations/${auth.body.id}/authorize`, { method: 'ACH' })).body
        .active,
    ).toBe(true);
    await api('POST', `/sandbox/chargeAuthorizations/${auth.body.id}/revoke`);
    const vendor = (await api('POST', '/vendor', { name: 'Ink Co' })).body;
    await api('POST', `/sandbox/vendors/${vendor.id}/onboardingForm`, {
      type: 'CHECK',
      checkAddress: { name: 'Ink Co', street: '1 Main', city: 'Town', state: 'CA', zip: '90000' },
    });
    await api('PUT', `/vendor/${vendor.id}/deliveryMethod/ach`, {
      routingNumber: '011000015',
      accountNumber: '99887766',
      accountType: 'SAVINGS',
    });
    const methods = (await api('GET', `/vendor/${vendor.id}`)).body.vendorDeliveryMethods as {
      id: string;
      type: string;
    }[];
    const checkMethod = methods.find((m) => m.type === 'CHECK')!.id;
    const achMethod = methods.find((m) => m.type === 'ACH')!.id;
    const bill = async () =>
      (await api('POST', '/bill', { vendorId: vendor.id, amountCents: 10_000 })).body.id as string;
    const billPay = async (methodId: string) =>
      (await api('POST', `/bill/${await bill()}/billPayment`, { deliveryMethodId: methodId })).body
        .id as string;
    const deposited = await billPay(checkMethod);
    for (const step of ['sent', 'delivered', 'deposited'])
      await api('POST', `/sandbox/billPayments/${deposited}/check/${step}`);
    const returned = await billPay(checkMethod);
    await api('POST', `/sandbox/billPayments/${returned}/check/sent`);
    await api('POST', `/sandbox/billPayments/${returned}/check/returned`);
    const failed = await billPay(checkMethod);
    await api('POST', `/sandbox/billPayments/${failed}/check/failed`);
    const achOk = await billPay(achMethod);
    await api('POST', `/sandbox/billPayments/${achOk}/ach/succeeded`);
    const achBad = await billPay(achMethod);
    await api('POST', `/sandbox/billPayments/${achBad}/ach/failed`);
    const cancelled = await billPay(achMethod);
    const cancel = await api('POST', `/billPayment/${cancelled}/cancel`);
    expect(cancel.body).toMatchObject({ status: 'FAILED', failureReason: 'CANCELLED' });
    const bp = await api('GET', `/billPayment/${deposited}`);
    expect(bp.body).toMatchObject({ status: 'SUCCEEDED', check: { status: 'DEPOSITED' } });
    expect((await api('GET', `/bill/${bp.body.billId}`)).body.status).toBe('PAID');

    const log = (await api('GET', '/sandbox/events?pageSize=100')).body.events as {
      event: { category: string; associated_object_type: string; associated_object_id: string };
    }[];
    const seen = log.map((e) => `${e.event.category}:${e.event.associated_object_type}`);
    expect(seen).toEqual([
      'charge_authorization.authorized:charge_authorization',
      'charge_authorization.deleted:charge_authorization',
      'vendor.payout_method_updated:vendor',
      'vendor.payout_method_updated:vendor',
      'check.sent:check',
      'check.delivered:check',
      'check.deposited:check',
      'bill_payment.succeeded:bill_payment',
      'check.sent:check',
      'check.returned:check',
      'check.failed:check',
      'bill_payment.succeeded:bill_payment',
      'bill_payment.failed:bill_payment',
      'bill_payment.cancelled:bill_payment',
    ]);
    expect(log[4]!.event.associated_object_id).toBe(deposited);
    const sentAgain = await api('POST', `/sandbox/billPayments/${deposited}/check/sent`);
    expect(sentAgain.status).toBe(400);
    await dispatcher!.idle();
  });
});
