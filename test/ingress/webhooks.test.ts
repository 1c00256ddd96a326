import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IngressApp } from '../../src/ingress/ingress-app.js';
import { createIngress } from '../../src/ingress/server.js';
import { startDevServer, uniqueTaskQueue } from '../support/temporal.js';
import {
  capturedLogger,
  deliver,
  deliverEvent,
  envelope,
  metricValue,
  nowSeconds,
  request,
  secretA,
  secretB,
  serviceEventSignals,
  signaturesSent,
  signed,
  startArgs,
  terminateAll,
  workflowExists,
} from './harness.js';

// POST /webhooks/service over real HTTP against a real Temporal dev server: what reaches Temporal, what
// does not, and what the sender is told.

let env: TestWorkflowEnvironment;
let strict: IngressApp;
let legacy: IngressApp;
let strictUrl: string;
let legacyUrl: string;
const taskQueue = uniqueTaskQueue('ingress');
const logs = capturedLogger();
// One listener serves everything here: /metrics and /events/unrouted answer with the command API key only.
const opsKey = 'webhooks-test-command-key-0123456789';
const withOpsKey = { headers: { authorization: `Bearer ${opsKey}` } };
const started = new Set<string>();

beforeAll(async () => {
  env = await startDevServer();
  strict = createIngress({
    temporalClient: env.client,
    taskQueue,
    webhookSecrets: [secretA, secretB],
    allowUnsigned: false,
    commandApiKey: opsKey,
    logger: logs.logger,
  });
  legacy = createIngress({
    temporalClient: env.client,
    taskQueue,
    webhookSecrets: [secretA],
    allowUnsigned: true,
    commandApiKey: opsKey,
    logger: logs.logger,
  });
  strictUrl = await strict.listen({ host: '127.0.0.1', port: 0 });
  legacyUrl = await legacy.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await strict?.close();
  await legacy?.close();
  if (env) {
    await terminateAll(env.client, started);
    await env.teardown();
  }
});

async function metrics(): Promise<string> {
  return (await request(`${strictUrl}/metrics`, withOpsKey)).text;
}

describe('a verified delivery', () => {
  it('answers 200 only once the workflow holds the signal', async () => {
    const event = envelope('payment.made', 'payment');
    const workflowId = `payment-${event.associated_object_id}`;
    started.add(workflowId);

    const answer = await deliverEvent(strictUrl, event);

    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ received: true, routed: true, workflowId });
    const description = await env.client.workflow.getHandle(workflowId).describe();
    expect(description.type).toBe('payment');
    expect(description.taskQueue).toBe(taskQueue);
    expect(await startArgs(env.client, workflowId)).toEqual([{ paymentId: event.associated_object_id }]);
    expect(await serviceEventSignals(env.client, workflowId)).toEqual([
      {
        eventId: event.id,
        category: 'payment.made',
        objectType: 'payment',
        objectId: event.associated_object_id,
        createdAt: event.created_at,
      },
    ]);
  });

  it('signals again on a duplicate (the workflow drops it by eventId) and on a later event', async () => {
    const event = envelope('payment.made', 'payment');
    const workflowId = `payment-${event.associated_object_id}`;
    started.add(workflowId);
    const refund = envelope('payment.refunded', 'payment', {
      associated_object_id: event.associated_object_id,
    });

    expect((await deliverEvent(strictUrl, event)).status).toBe(200);
    expect((await deliverEvent(strictUrl, event)).status).toBe(200);
    expect((await deliverEvent(strictUrl, refund)).status).toBe(200);

    const signals = (await serviceEventSignals(env.client, workflowId)) as { eventId: string }[];
    expect(signals.map((s) => s.eventId)).toEqual([event.id, event.id, refund.id]);
  });

  it('accepts the second of two secrets during rotation', async () => {
    const event = envelope('disbursement.pending', 'disbursement');
    started.add(`disbursement-${event.associated_object_id}`);
    const answer = await deliverEvent(strictUrl, event, secretB);
    expect(answer.status).toBe(200);
    expect(await workflowExists(env.client, `disbursement-${event.associated_object_id}`)).toBe(true);
  });

  it('accepts a charset parameter on the media type', async () => {
    const event = envelope('payment.voided', 'payment');
    started.add(`payment-${event.associated_object_id}`);
    const body = JSON.stringify(event);
    const answer = await deliver(strictUrl, {
      body,
      signature: signed(secretA, body),
      contentType: 'application/json; charset=utf-8',
    });
    expect(answer.status).toBe(200);
  });
});

describe('signature failures answer 401 with the reason and start nothing', () => {
  const cases: {
    name: string;
    code: string;
    make: (body: string) => { body: string; signature?: string };
  }[] = [
    {
      name: 'forged (unknown secret)',
      code: 'no_matching_signature',
      make: (body) => ({ body, signature: signed('whsec_not-a-configured-secret', body) }),
    },
    {
      name: 'tampered body',
      code: 'no_matching_signature',
      make: (body) => ({
        body: body.replace('payment.made', 'payment.voided'),
        signature: signed(secretA, body),
      }),
    },
    // The 300 s edge is checked with a fixed clock in webhook-signature.test.ts; here t is far enough
    // outside the window that a slow second between signing and delivery cannot bring it back in.
    {
      name: 'stale t (an hour old)',
      code: 'timestamp_too_old',
      make: (body) => ({ body, signature: signed(secretA, body, nowSeconds() - 3_600) }),
    },
    {
      name: 'future t (an hour ahead)',
      code: 'timestamp_in_future',
      make: (body) => ({ body, signature: signed(secretA, body, nowSeconds() + 3_600) }),
    },
    { name: 'missing header', code: 'missing_header', make: (body) => ({ body }) },
    {
      name: 'malformed header',
      code: 'malformed_header',
      make: (body) => ({ body, signature: `t=${nowSeconds()},v1=not-hex` }),
    },
  ];

  for (const { name, code, make } of cases) {
    it(name, async () => {
      const event = envelope('payment.made', 'payment');
      const answer = await deliver(strictUrl, make(JSON.stringify(event)));
      expect(answer.status).toBe(401);
      expect(answer.json).toEqual({ error: expect.any(String), code });
      expect(await workflowExists(env.client, `payment-${event.associated_object_id}`)).toBe(false);
      expect(
        metricValue(await metrics(), `booksync_ingress_deliveries_rejected_total{reason="${code}"}`),
      ).toBeGreaterThan(0);
    });
  }

  it('still checks the signature a legacy ingress is given, but accepts a delivery with none', async () => {
    const unsigned = envelope('payment.made', 'payment');
    const workflowId = `payment-${unsigned.associated_object_id}`;
    started.add(workflowId);
    const body = JSON.stringify(unsigned);

    expect((await deliver(strictUrl, { body })).status).toBe(401);
    const accepted = await deliver(legacyUrl, { body });
    expect(accepted.status).toBe(200);
    expect(accepted.json.workflowId).toBe(workflowId);
    expect(await serviceEventSignals(env.client, workflowId)).toHaveLength(1);

    const forged = envelope('payment.made', 'payment');
    const forgedBody = JSON.stringify(forged);
    const rejected = await deliver(legacyUrl, { body: forgedBody, signature: signed(secretB, forgedBody) });
    expect(rejected.status).toBe(401);
    expect(rejected.json.code).toBe('no_matching_signature');
    expect(await workflowExists(env.client, `payment-${forged.associated_object_id}`)).toBe(false);
    expect(
      metricValue(
        (await request(`${legacyUrl}/metrics`, withOpsKey)).text,
        'booksync_ingress_deliveries_verified_total{mode="unsigned"}',
      ),
    ).toBe(1);
  });
});

describe('malformed deliveries answer 4xx and never reach Temporal', () => {
  it('400 for a signed body that is not JSON', async () => {
    const body = '{"id": "oops", ';
    const answer = await deliver(strictUrl, { body, signature: signed(secretA, body) });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: 'body is not valid JSON', code: 'malformed_json' });
  });

  it('400 for an empty signed body', async () => {
    const answer = await deliver(strictUrl, { body: '', signature: signed(secretA, '') });
    expect(answer.status).toBe(400);
    expect(answer.json.code).toBe('malformed_json');
  });

  const invalid: { name: string; event: () => Record<string, unknown> }[] = [
    {
      name: 'missing associated_object_id',
      event: () => {
        const { associated_object_id: _, ...rest } = envelope('payment.made', 'payment');
        return rest;
      },
    },
    { name: 'unknown object type', event: () => ({ ...envelope('payment.made', 'invoice') }) },
    {
      name: 'category carrying another object type',
      event: () => ({ ...envelope('payment.made', 'vendor') }),
    },
    { name: 'id not a UUID', event: () => ({ ...envelope('payment.made', 'payment', { id: 'evt_1' }) }) },
    { name: 'type not "event"', event: () => ({ ...envelope('payment.made', 'payment', { type: 'ping' }) }) },
    {
      name: 'a JSON array',
      event: () => [envelope('payment.made', 'payment')] as unknown as Record<string, unknown>,
    },
  ];
  for (const { name, event } of invalid) {
    it(`400 invalid_envelope: ${name}`, async () => {
      const value = event();
      const body = JSON.stringify(value);
      const answer = await deliver(strictUrl, { body, signature: signed(secretA, body) });
      expect(answer.status).toBe(400);
      expect(answer.json.code).toBe('invalid_envelope');
      const objectId = (value as { associated_object_id?: string }).associated_object_id;
      if (objectId) {
        for (const prefix of ['payment-', 'vendor-'])
          expect(await workflowExists(env.client, `${prefix}${objectId}`)).toBe(false);
      }
    });
  }

  it('413 for a body over the limit (64 KiB), before verifying anything', async () => {
    const event = envelope('payment.made', 'payment', { associated_object_id: 'x'.repeat(70 * 1024) });
    const body = JSON.stringify(event);
    const answer = await deliver(strictUrl, { body, signature: signed(secretA, body) });
    expect(answer.status).toBe(413);
    expect(answer.json).toEqual({ error: 'request body too large', code: 'body_too_large' });
  });

  it('415 for text/plain, and for a body with no content type', async () => {
    const body = JSON.stringify(envelope('payment.made', 'payment'));
    const text = await deliver(strictUrl, {
      body,
      signature: signed(secretA, body),
      contentType: 'text/plain',
    });
    expect(text.status).toBe(415);
    expect(text.json.code).toBe('unsupported_media_type');

    const bare = await fetch(`${strictUrl}/webhooks/service`, {
      method: 'POST',
      headers: { 'service-signature': signed(secretA, body) },
      body: Buffer.from(body),
    });
    expect(bare.status).toBe(415);
  });

  it('counts every rejection by reason', async () => {
    const text = await metrics();
    for (const reason of ['malformed_json', 'invalid_envelope', 'body_too_large', 'unsupported_media_type']) {
      expect(
        metricValue(text, `booksync_ingress_deliveries_rejected_total{reason="${reason}"}`),
      ).toBeGreaterThan(0);
    }
  });
});

describe('unknown categories', () => {
  it('are acknowledged, recorded at /events/unrouted and counted, but signal nothing', async () => {
    const before = metricValue(await metrics(), 'booksync_ingress_unrouted_events_total');
    const event = envelope('payment.disputed', 'payment');

    const answer = await deliverEvent(strictUrl, event);

    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ received: true, routed: false });
    expect(await workflowExists(env.client, `payment-${event.associated_object_id}`)).toBe(false);
    const listed = await request(`${strictUrl}/events/unrouted`, withOpsKey);
    expect(listed.json.events).toContainEqual({
      eventId: event.id,
      category: 'payment.disputed',
      objectType: 'payment',
      objectId: event.associated_object_id,
      createdAt: event.created_at,
      receivedAt: expect.any(String),
    });
    expect(metricValue(await metrics(), 'booksync_ingress_unrouted_events_total')).toBe(before + 1);
    const warning = logs.lines
      .map((l) => JSON.parse(l))
      .find((l) => l.eventId === event.id && l.level === 40);
    expect(warning).toMatchObject({ category: 'payment.disputed', objectId: event.associated_object_id });
  });
});

describe('routing table, on the real server', () => {
  const rows: [category: string, objectType: string, workflowType: string, prefix: string, field: string][] =
    [
      ['payment.made', 'payment', 'payment', 'payment-', 'paymentId'],
      ['payment.failed', 'payment', 'payment', 'payment-', 'paymentId'],
      ['payment.refunded', 'payment', 'payment', 'payment-', 'paymentId'],
      ['payment.voided', 'payment', 'payment', 'payment-', 'paymentId'],
      ['disbursement.pending', 'disbursement', 'disbursement', 'disbursement-', 'disbursementId'],
      ['disbursement.succeeded', 'disbursement', 'disbursement', 'disbursement-', 'disbursementId'],
      ['bill_payment.succeeded', 'bill_payment', 'billPayment', 'bill-payment-', 'billPaymentId'],
      ['bill_payment.failed', 'bill_payment', 'billPayment', 'bill-payment-', 'billPaymentId'],
      ['bill_payment.cancelled', 'bill_payment', 'billPayment', 'bill-payment-', 'billPaymentId'],
      ['check.sent', 'check', 'billPayment', 'bill-payment-', 'billPaymentId'],
      ['check.delivered', 'check', 'billPayment', 'bill-payment-', 'billPaymentId'],
      ['check.deposited', 'check', 'billPayment', 'bill-payment-', 'billPaymentId'],
      ['check.returned', 'check', 'billPayment', 'bill-payment-', 'billPaymentId'],
      ['check.failed', 'check', 'billPayment', 'bill-payment-', 'billPaymentId'],
      [
        'charge_authorization.authorized',
        'charge_authorization',
        'chargeAuthorization',
        'charge-authorization-',
        'chargeAuthorizationId',
      ],
      [
        'charge_authorization.deleted',
        'charge_authorization',
        'chargeAuthorization',
        'charge-authorization-',
        'chargeAuthorizationId',
      ],
      ['vendor.payout_method_updated', 'vendor', 'vendorDeliveryMethods', 'vendor-', 'vendorId'],
    ];

  for (const [category, objectType, workflowType, prefix, field] of rows) {
    it(`${category} → ${workflowType} ${prefix}{id}`, async () => {
      const event = envelope(category, objectType);
      const workflowId = `${prefix}${event.associated_object_id}`;
      started.add(workflowId);
      const answer = await deliverEvent(strictUrl, event);
      expect(answer.json).toEqual({ received: true, routed: true, workflowId });
      expect((await env.client.workflow.getHandle(workflowId).describe()).type).toBe(workflowType);
      expect(await startArgs(env.client, workflowId)).toEqual([{ [field]: event.associated_object_id }]);
      expect(await serviceEventSignals(env.client, workflowId)).toHaveLength(1);
    });
  }

  it('check events and bill payment events of one bill payment reach the same workflow', async () => {
    const billPaymentId = `bp_${randomUUID().slice(0, 8)}`;
    const workflowId = `bill-payment-${billPaymentId}`;
    started.add(workflowId);
    for (const [category, type] of [
      ['check.sent', 'check'],
      ['check.deposited', 'check'],
      ['bill_payment.succeeded', 'bill_payment'],
    ] as const) {
      const answer = await deliverEvent(
        strictUrl,
        envelope(category, type, { associated_object_id: billPaymentId }),
      );
      expect(answer.json.workflowId).toBe(workflowId);
    }
    const signals = (await serviceEventSignals(env.client, workflowId)) as { category: string }[];
    expect(signals.map((s) => s.category)).toEqual([
      'check.sent',
      'check.deposited',
      'bill_payment.succeeded',
    ]);
  });
});

describe('operations endpoints', () => {
  it('healthz and readyz answer 200 while Temporal is up', async () => {
    expect(await request(`${strictUrl}/healthz`)).toMatchObject({ status: 200, json: { status: 'ok' } });
    expect(await request(`${strictUrl}/readyz`)).toMatchObject({ status: 200, json: { status: 'ready' } });
  });

  it('an unknown route answers 404 in the error shape', async () => {
    expect(await request(`${strictUrl}/nope`)).toMatchObject({ status: 404, json: { code: 'not_found' } });
  });

  it('GET on the webhook route is not a delivery', async () => {
    const answer = await request(`${strictUrl}/webhooks/service`);
    expect(answer.status).toBe(404);
    expect(answer.json.error).toEqual(expect.any(String));
  });

  it('/metrics exposes deliveries, verifications, signals and request durations', async () => {
    const text = await metrics();
    expect(metricValue(text, 'booksync_ingress_deliveries_received_total')).toBeGreaterThan(20);
    expect(metricValue(text, 'booksync_ingress_deliveries_verified_total{mode="signed"}')).toBeGreaterThan(
      20,
    );
    expect(metricValue(text, 'booksync_ingress_signals_sent_total{workflow_type="payment"}')).toBeGreaterThan(
      4,
    );
    expect(
      metricValue(text, 'booksync_ingress_signals_sent_total{workflow_type="billPayment"}'),
    ).toBeGreaterThan(7);
    expect(metricValue(text, 'booksync_ingress_signal_failures_total')).toBe(0);
    expect(text).toMatch(
      /booksync_ingress_request_duration_seconds_count\{method="POST",route="\/webhooks\/service",status_code="200"\} \d+/,
    );
  });
});

describe('logs', () => {
  it('never hold a secret or a signature, and name the event and workflow on event lines', () => {
    const all = logs.lines.join('');
    expect(logs.lines.length).toBeGreaterThan(50);
    expect(signaturesSent.size).toBeGreaterThan(20);
    for (const secret of [secretA, secretB, 'whsec_not-a-configured-secret'])
      expect(all).not.toContain(secret);
    for (const signature of signaturesSent) expect(all).not.toContain(signature);
    expect(all).not.toContain('v1=');

    const signalled = logs.lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'event signalled');
    expect(signalled.length).toBeGreaterThan(20);
    for (const line of signalled) {
      expect(line).toEqual(
        expect.objectContaining({
          eventId: expect.any(String),
          category: expect.any(String),
          objectId: expect.any(String),
          workflowId: expect.any(String),
        }),
      );
    }
    // Fastify's own completion line for a delivery carries the event too.
    const completed = logs.lines
      .map((l) => JSON.parse(l))
      .filter((l) => l.msg === 'request completed' && l.workflowId !== undefined);
    expect(completed.length).toBe(signalled.length);
  });
});
