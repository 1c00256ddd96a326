import { Client, Connection } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIngress } from '../../src/ingress/main.js';
import { createIngress } from '../../src/ingress/server.js';
import { startDevServer, startOwnDevServer, uniqueTaskQueue } from '../support/temporal.js';
import {
  capturedLogger,
  deliverEvent,
  envelope,
  metricValue,
  request,
  secretA,
  secretB,
  serviceEventSignals,
  signaturesSent,
  terminateAll,
} from './harness.js';

// Temporal going away, and the ingress's own lifecycle (startIngress / close).

let env: TestWorkflowEnvironment;
const logs = capturedLogger();
const started = new Set<string>();

beforeAll(async () => {
  env = await startDevServer();
});

afterAll(async () => {
  if (env) {
    await terminateAll(env.client, started);
    await env.teardown();
  }
});

describe('Temporal unavailable', () => {
  it('answers 503 so the sender retries, and readyz turns 503, while healthz stays 200', async () => {
    // A server of its own, stopped under a connection the test owns (teardown would close env's connection).
    const doomed = await startOwnDevServer();
    const connection = await Connection.connect({ address: doomed.address });
    const client = new Client({ connection });
    const app = createIngress({
      temporalClient: client,
      taskQueue: uniqueTaskQueue('ingress-down'),
      webhookSecrets: [secretA],
      signalTimeoutMs: 1_500,
      readinessTimeoutMs: 500,
      commandApiKey: 'availability-command-key-0123456789',
      logger: logs.logger,
    });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      expect((await request(`${url}/readyz`)).status).toBe(200);
      await doomed.teardown();

      const event = envelope('payment.made', 'payment');
      const begun = Date.now();
      const answer = await deliverEvent(url, event);
      expect(answer.status).toBe(503);
      expect(answer.json).toEqual({ error: expect.any(String), code: 'temporal_unavailable' });
      // Bounded by signalTimeoutMs, well inside the sender's 10 s per attempt (decision “Webhook delivery”).
      expect(Date.now() - begun).toBeLessThan(5_000);

      expect(await request(`${url}/readyz`)).toMatchObject({ status: 503, json: { code: 'not_ready' } });
      expect((await request(`${url}/healthz`)).status).toBe(200);
      const metrics = (
        await request(`${url}/metrics`, {
          headers: { authorization: 'Bearer availability-command-key-0123456789' },
        })
      ).text;
      expect(metricValue(metrics, 'booksync_ingress_signal_failures_total{workflow_type="payment"}')).toBe(1);
      expect(metricValue(metrics, 'booksync_ingress_signals_sent_total{workflow_type="payment"}')).toBe(0);

      const failure = logs.lines
        .map((l) => JSON.parse(l))
        .find((l) => l.eventId === event.id && l.level === 50);
      expect(failure).toMatchObject({
        workflowId: `payment-${event.associated_object_id}`,
        category: 'payment.made',
      });
    } finally {
      await app.close();
      await connection.close();
    }
  });
});

describe('startIngress', () => {
  it('connects by address, serves deliveries, and closes', async () => {
    const running = await startIngress({
      temporal: { address: env.address, namespace: env.namespace ?? 'default' },
      taskQueue: uniqueTaskQueue('ingress-main'),
      webhookSecrets: [secretA, secretB],
      logger: logs.logger,
    });
    expect(running.address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const event = envelope('disbursement.succeeded', 'disbursement');
    const workflowId = `disbursement-${event.associated_object_id}`;
    started.add(workflowId);

    const answer = await deliverEvent(running.address, event, secretB);
    expect(answer.json).toEqual({ received: true, routed: true, workflowId });
    expect(await serviceEventSignals(env.client, workflowId)).toHaveLength(1);

    await running.close();
    await running.close(); // idempotent
    await expect(fetch(`${running.address}/healthz`)).rejects.toThrow();
  });

  it('close lets an in-flight request finish before resolving', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const running = await startIngress({
      temporal: { client: env.client },
      taskQueue: uniqueTaskQueue('ingress-close'),
      webhookSecrets: [secretA],
      readinessCheck: async () => {
        entered();
        await gate;
      },
      logger: logs.logger,
    });

    const inFlight = request(`${running.address}/readyz`);
    await inside;
    let closed = false;
    const closing = running.close().then(() => {
      closed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(closed).toBe(false);

    release();
    expect(await inFlight).toMatchObject({ status: 200, json: { status: 'ready' } });
    await closing;
    expect(closed).toBe(true);
    // The caller's client stays usable: startIngress did not own it.
    expect((await env.client.workflowService.getSystemInfo({})).serverVersion).toEqual(expect.any(String));
  });

  it('refuses a configuration that could accept nothing', async () => {
    await expect(
      startIngress({
        temporal: { client: env.client },
        taskQueue: 'unused',
        webhookSecrets: [],
        allowUnsigned: false,
        logger: logs.logger,
      }),
    ).rejects.toThrow(/no webhook secret/);
    expect(() =>
      createIngress({
        temporalClient: env.client,
        taskQueue: 'unused',
        webhookSecrets: [''],
        logger: logs.logger,
      }),
    ).toThrow(/non-empty/);
  });
});

describe('logs', () => {
  it('hold no secret and no signature, failures included', () => {
    const all = logs.lines.join('');
    expect(logs.lines.length).toBeGreaterThan(5);
    for (const secret of [secretA, secretB]) expect(all).not.toContain(secret);
    for (const signature of signaturesSent) expect(all).not.toContain(signature);
  });
});
