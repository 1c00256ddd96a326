import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { IngressApp } from '../../src/ingress/ingress-app.js';
import { createIngress, DEFAULT_BODY_LIMIT_BYTES } from '../../src/ingress/server.js';
import {
  type RecordingTemporalClient,
  recordingTemporalClient,
} from '../support/recording-temporal-client.js';
import { type Envelope, envelope, nowSeconds, secretA, secretB, signed } from './harness.js';

// The real ingress app (createIngress, as startIngress builds it) driven through app.inject, with a recording
// stand-in for its Temporal client: what each request hands to Temporal (workflow type and id, start args,
// signal and its args), and what the sender is told, without a Temporal server. webhooks.test.ts checks the
// same surface over real HTTP against a real dev server; this file pins the exact calls.

const taskQueue = 'inject-test-queue';
const signalTimeoutMs = 4_321;
const apiKey = 'inject-test-command-key-0123456789';

let temporal: RecordingTemporalClient;
let app: IngressApp;
const apps: IngressApp[] = [];

function build(options: { returnedCheckFeeCents?: number } = {}): IngressApp {
  temporal = recordingTemporalClient();
  const built = createIngress({
    temporalClient: temporal.client,
    taskQueue,
    webhookSecrets: [secretA, secretB],
    signalTimeoutMs,
    commandApiKey: apiKey,
    ...options,
  });
  apps.push(built);
  return built;
}

beforeEach(() => {
  app = build();
});

afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
});

function post(
  body: string,
  headers: Record<string, string | undefined>,
  target: IngressApp = app,
): Promise<LightMyRequestResponse> {
  const defined = Object.fromEntries(
    Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  return target.inject({ method: 'POST', url: '/webhooks/service', headers: defined, payload: body });
}

function deliver(event: Envelope, secret = secretA): Promise<LightMyRequestResponse> {
  const body = JSON.stringify(event);
  return post(body, { 'content-type': 'application/json', 'service-signature': signed(secret, body) });
}

describe('a correctly signed delivery', () => {
  it('is answered 200 after exactly one signalWithStart of the owning workflow, carrying the event', async () => {
    const event = envelope('payment.made', 'payment', { associated_object_id: 'pay_inject_1' });
    const before = Date.now();

    const answer = await deliver(event);

    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ received: true, routed: true, workflowId: 'payment-pay_inject_1' });
    expect(temporal.calls).toHaveLength(1);
    const [call] = temporal.calls;
    expect(call).toEqual({
      workflowType: 'payment',
      workflowId: 'payment-pay_inject_1',
      taskQueue,
      args: [{ paymentId: 'pay_inject_1' }],
      signal: 'serviceEvent',
      signalArgs: [
        {
          eventId: event.id,
          category: 'payment.made',
          objectType: 'payment',
          objectId: 'pay_inject_1',
          createdAt: event.created_at,
        },
      ],
      deadline: expect.any(Number),
    });
    // The signal runs under the configured deadline (signalTimeoutMs), not the client's default.
    expect(call?.deadline).toBeGreaterThanOrEqual(before + signalTimeoutMs);
    expect(call?.deadline).toBeLessThanOrEqual(Date.now() + signalTimeoutMs);
  });

  const rows: [
    category: string,
    objectType: string,
    id: string,
    type: string,
    workflowId: string,
    field: string,
  ][] = [
    [
      'disbursement.succeeded',
      'disbursement',
      'dis_7',
      'disbursement',
      'disbursement-dis_7',
      'disbursementId',
    ],
    ['check.deposited', 'check', 'bp_9', 'billPayment', 'bill-payment-bp_9', 'billPaymentId'],
    ['bill_payment.failed', 'bill_payment', 'bp_9', 'billPayment', 'bill-payment-bp_9', 'billPaymentId'],
    [
      'charge_authorization.deleted',
      'charge_authorization',
      'ca_3',
      'chargeAuthorization',
      'charge-authorization-ca_3',
      'chargeAuthorizationId',
    ],
    ['vendor.payout_method_updated', 'vendor', 'ven_2', 'vendorDeliveryMethods', 'vendor-ven_2', 'vendorId'],
    // A payment id that would read as a payment link's workflow id is escaped (workflow-ids.ts).
    ['payment.refunded', 'payment', 'link-42', 'payment', 'payment-~link-42', 'paymentId'],
  ];
  for (const [category, objectType, id, workflowType, workflowId, field] of rows) {
    it(`${category} for ${id} signals ${workflowType} ${workflowId}`, async () => {
      const event = envelope(category, objectType, { associated_object_id: id });
      const answer = await deliver(event);
      expect(answer.statusCode).toBe(200);
      expect(answer.json()).toEqual({ received: true, routed: true, workflowId });
      expect(temporal.calls).toEqual([
        expect.objectContaining({
          workflowType,
          workflowId,
          args: [{ [field]: id }],
          signal: 'serviceEvent',
          signalArgs: [expect.objectContaining({ eventId: event.id, category, objectId: id })],
        }),
      ]);
    });
  }

  it('is accepted under the second secret during a rotation', async () => {
    const answer = await deliver(
      envelope('payment.voided', 'payment', { associated_object_id: 'pay_r' }),
      secretB,
    );
    expect(answer.statusCode).toBe(200);
    expect(temporal.calls.map((c) => c.workflowId)).toEqual(['payment-pay_r']);
  });

  it('of a category outside 6.5 is acknowledged but signals nothing', async () => {
    const answer = await deliver(envelope('payment.disputed', 'payment'));
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ received: true, routed: false });
    expect(temporal.calls).toEqual([]);
  });

  it('is answered 503 temporal_unavailable when Temporal does not take the signal', async () => {
    temporal.failWith(new Error('14 UNAVAILABLE: connection refused'));
    const answer = await deliver(envelope('payment.made', 'payment', { associated_object_id: 'pay_down' }));
    expect(answer.statusCode).toBe(503);
    expect(answer.json()).toEqual({ error: expect.any(String), code: 'temporal_unavailable' });
    expect(answer.body).not.toContain('connection refused');
    expect(temporal.calls.map((c) => c.workflowId)).toEqual(['payment-pay_down']);
  });
});

describe('a delivery that fails authentication: 401 {error, code}, nothing signalled', () => {
  const cases: { name: string; code: string; headers: (body: string) => Record<string, string> }[] = [
    {
      name: 'signed with a secret not configured',
      code: 'no_matching_signature',
      headers: (body) => ({
        'service-signature': signed('whsec_bm90LWNvbmZpZ3VyZWQtaW5qZWN0LXNlY3JldA', body),
      }),
    },
    {
      name: 'signature of other bytes (body tampered)',
      code: 'no_matching_signature',
      headers: (body) => ({
        'service-signature': signed(secretA, body.replace('payment.made', 'payment.voided')),
      }),
    },
    {
      name: 'stale timestamp (now - 330 s; a loaded machine may take seconds between signing and checking)',
      code: 'timestamp_too_old',
      headers: (body) => ({ 'service-signature': signed(secretA, body, nowSeconds() - 330) }),
    },
    {
      name: 'timestamp in the future (now + 330 s)',
      code: 'timestamp_in_future',
      headers: (body) => ({ 'service-signature': signed(secretA, body, nowSeconds() + 330) }),
    },
    { name: 'no Service-Signature header', code: 'missing_header', headers: () => ({}) },
  ];
  for (const { name, code, headers } of cases) {
    it(name, async () => {
      const body = JSON.stringify(envelope('payment.made', 'payment'));
      const answer = await post(body, { 'content-type': 'application/json', ...headers(body) });
      expect(answer.statusCode).toBe(401);
      expect(answer.json()).toEqual({ error: expect.any(String), code });
      expect(temporal.calls).toEqual([]);
    });
  }

  it('a timestamp just inside the 300 s tolerance still verifies', async () => {
    const body = JSON.stringify(envelope('payment.made', 'payment'));
    const answer = await post(body, {
      'content-type': 'application/json',
      'service-signature': signed(secretA, body, nowSeconds() - 295),
    });
    expect(answer.statusCode).toBe(200);
    expect(temporal.calls).toHaveLength(1);
  });
});

describe('a delivery the framework refuses before any handler', () => {
  /** A signed, valid envelope padded with JSON whitespace to exactly `bytes` bytes. */
  function paddedTo(bytes: number): string {
    const json = JSON.stringify(envelope('payment.made', 'payment'));
    return json + ' '.repeat(bytes - Buffer.byteLength(json));
  }

  it(`accepts a body of exactly the limit (${DEFAULT_BODY_LIMIT_BYTES} bytes) and answers 413 one byte over`, async () => {
    const atLimit = paddedTo(DEFAULT_BODY_LIMIT_BYTES);
    const accepted = await post(atLimit, {
      'content-type': 'application/json',
      'service-signature': signed(secretA, atLimit),
    });
    expect(accepted.statusCode).toBe(200);
    expect(temporal.calls).toHaveLength(1);

    const over = paddedTo(DEFAULT_BODY_LIMIT_BYTES + 1);
    const refused = await post(over, {
      'content-type': 'application/json',
      'service-signature': signed(secretA, over),
    });
    expect(refused.statusCode).toBe(413);
    expect(refused.json()).toEqual({ error: 'request body too large', code: 'body_too_large' });
    expect(temporal.calls).toHaveLength(1);
  });

  it('honours a configured bodyLimitBytes', async () => {
    const small = createIngress({
      temporalClient: temporal.client,
      taskQueue,
      webhookSecrets: [secretA],
      bodyLimitBytes: 1_024,
    });
    apps.push(small);
    const body = paddedTo(1_025);
    const answer = await post(
      body,
      { 'content-type': 'application/json', 'service-signature': signed(secretA, body) },
      small,
    );
    expect(answer.statusCode).toBe(413);
    expect(answer.json().code).toBe('body_too_large');
    expect(temporal.calls).toEqual([]);
  });

  it('answers 415 for text/plain, for a form, and for no content type', async () => {
    const body = JSON.stringify(envelope('payment.made', 'payment'));
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', undefined]) {
      const answer = await post(body, {
        'content-type': contentType,
        'service-signature': signed(secretA, body),
      });
      expect(answer.statusCode, String(contentType)).toBe(415);
      expect(answer.json()).toEqual({
        error: 'unsupported media type; expected application/json',
        code: 'unsupported_media_type',
      });
    }
    expect(temporal.calls).toEqual([]);
  });
});

describe('command API in the same app: bearer key, then the signal', () => {
  const syncUrl = '/commands/paymentLinks/pl_inj/sync';

  it('answers 401 unauthorized without a key, with a wrong key, or with another scheme, and signals nothing', async () => {
    for (const authorization of [
      undefined,
      'Bearer not-the-key-not-the-key-000',
      `Basic ${apiKey}`,
      apiKey,
    ]) {
      const answer = await app.inject({
        method: 'POST',
        url: syncUrl,
        headers: authorization === undefined ? {} : { authorization },
        payload: { reason: 'test' },
      });
      expect(answer.statusCode, String(authorization)).toBe(401);
      expect(answer.json()).toEqual({ error: expect.any(String), code: 'unauthorized' });
    }
    const read = await app.inject({ method: 'GET', url: '/commands/paymentLinks/pl_inj' });
    expect(read.statusCode).toBe(401);
    expect(temporal.calls).toEqual([]);
  });

  it('with the key, a sync signals the payment link workflow (started when no run is open) and answers 202', async () => {
    const commandId = randomUUID();
    const answer = await app.inject({
      method: 'POST',
      url: syncUrl,
      headers: { authorization: `Bearer ${apiKey}`, 'idempotency-key': commandId },
      payload: { reason: 'dashboard edit' },
    });
    expect(answer.statusCode).toBe(202);
    expect(answer.json()).toEqual({ workflowId: 'payment-link-pl_inj', commandId });
    expect(temporal.calls).toEqual([
      {
        workflowType: 'paymentLink',
        workflowId: 'payment-link-pl_inj',
        taskQueue,
        args: [{ paymentLinkId: 'pl_inj' }],
        signal: 'sync',
        signalArgs: [{ reason: 'dashboard edit', commandId }],
        deadline: expect.any(Number),
      },
    ]);
  });

  it('a deposit refresh starts the check-deposit workflow with the returned-check fee it is configured with', async () => {
    const withFee = build({ returnedCheckFeeCents: 1_500 });
    const answer = await withFee.inject({
      method: 'POST',
      url: '/commands/checkDeposits/cd_inj/refresh',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(answer.statusCode).toBe(202);
    const { commandId } = answer.json() as { commandId: string };
    expect(temporal.calls).toEqual([
      expect.objectContaining({
        workflowType: 'checkDeposit',
        workflowId: 'check-deposit-cd_inj',
        args: [{ checkDepositId: 'cd_inj', returnedCheckFeeCents: 1_500 }],
        signal: 'refresh',
        signalArgs: [{ reason: `refresh command ${commandId}` }],
      }),
    ]);
  });
});
