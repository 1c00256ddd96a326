import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Harness, newLink, startHarness } from '@booksync/emulator/harness';
import { createDeliveryWorker, deliveryWorkflowsPath } from '@booksync/emulator/webhooks/delivery-worker';
import type { RecordingDispatcher } from '@booksync/emulator/webhooks/recording-dispatcher';
import { TemporalDispatcher } from '@booksync/emulator/webhooks/temporal-dispatcher';
import {
  deliveryStateQuery,
  webhookDelivery,
  webhookDeliveryWorkflowId,
} from '@booksync/emulator/webhooks/webhook-delivery';
import { EventEnvelope } from '@booksync/service-contract/schemas/index';
import { SIGNATURE_HEADER, verify } from '@booksync/service-contract/webhook-signature';
import type { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, type WorkflowBundle } from '@temporalio/worker';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTimeSkipping, uniqueTaskQueue } from '../support/temporal.js';

// Decision “Webhook delivery” on Temporal's time-skipping test server: the retry backoff (3, 6, 12, 24 s) is skipped, the HTTP is
// real (a node:http receiver on loopback), and so is the emulator whose store the activity records into.

interface Received {
  body: string;
  signature: string | undefined;
  receivedAtMs: number;
  /** The test server's clock (workflow time) at receipt and just before answering. */
  serverReceivedMs: number;
  serverAnsweredMs: number;
}

type Answer = { status: number; delayMs?: number } | 'hang';

let env: TestWorkflowEnvironment;
let workflowBundle: WorkflowBundle;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  env = await startTimeSkipping();
  workflowBundle = await bundleWorkflowCode({
    workflowsPath: deliveryWorkflowsPath,
    logger: new DefaultLogger('WARN'),
  });
});
afterAll(async () => {
  await env?.teardown();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A webhook receiver answering the n-th delivery (1-based) as `answer(n)` says. */
async function receiver(answer: (n: number) => Answer) {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const entry: Received = {
        body: Buffer.concat(chunks).toString(),
        signature: req.headers[SIGNATURE_HEADER.toLowerCase()] as string | undefined,
        receivedAtMs: Date.now(),
        serverReceivedMs: await env.currentTimeMs(),
        serverAnsweredMs: 0,
      };
      received.push(entry);
      const decision = answer(received.length);
      if (decision === 'hang') {
        hanging.push(res);
        return;
      }
      if (decision.delayMs) await sleep(decision.delayMs);
      entry.serverAnsweredMs = await env.currentTimeMs();
      res.statusCode = decision.status;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

async function harness(options: Parameters<typeof startHarness>[0] = {}): Promise<Harness> {
  const h = await startHarness(options);
  cleanups.push(() => h.close());
  return h;
}

function worker(h: Harness, taskQueue: string, timeoutMs?: number) {
  return createDeliveryWorker({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    store: h.emulator.store,
    workflowBundle,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  });
}

/** A payment.made event to a fresh API subscription, caught by the RecordingDispatcher (nothing sent). */
async function recordedPaymentEvent(h: Harness, url: string) {
  const secret = (await h.api('POST', '/webhook', { url })).body.secret as string;
  const link = await newLink(h.api, 1000);
  await h.api('POST', `/sandbox/paymentLinks/${link.id}/pay`, { method: 'Card' });
  const recorded = (h.emulator.dispatcher as RecordingDispatcher).dispatched.at(-1)!;
  const input = {
    eventId: recorded.event.id,
    envelope: JSON.stringify(recorded.event),
    subscriptionId: recorded.subscription.subscriptionId,
    url,
    signed: true,
  };
  return { secret, input };
}

function eventTimeMs(event: temporal.api.history.v1.IHistoryEvent): number {
  const time = event.eventTime!;
  return Number(time.seconds) * 1000 + Math.round((time.nanos ?? 0) / 1e6);
}

async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe('webhookDelivery workflow (decision “Webhook delivery”, 6.3, 6.4)', () => {
  it('a receiver failing 4 times then 204: 5 attempts, fresh valid signature each, identical bodies, gaps 3/6/12/24 s', async () => {
    const h = await harness();
    // Each failure answers after 1.1 s of real time, so every attempt's t is a different second.
    const hook = await receiver((n) => (n < 5 ? { status: 500, delayMs: 1_100 } : { status: 204 }));
    const { secret, input } = await recordedPaymentEvent(h, hook.url);
    const taskQueue = uniqueTaskQueue('webhook-delivery');

    const outcome = await (await worker(h, taskQueue)).runUntil(async () => {
      const handle = await env.client.workflow.start(webhookDelivery, {
        workflowId: webhookDeliveryWorkflowId(input.eventId),
        taskQueue,
        args: [input],
      });
      const result = await handle.result();
      return { result, state: await handle.query(deliveryStateQuery), history: await handle.fetchHistory() };
    });

    expect(outcome.result).toEqual({ delivered: true, attempts: 5 });
    expect(outcome.state).toEqual({ attempts: 5, delivered: true, lastStatus: 204 });
    expect(hook.received).toHaveLength(5);

    // 6.4: each attempt signed when it was made (t within 1 s of its receipt), and t moves on.
    const ts = hook.received.map((delivery) => {
      const verdict = verify(delivery.body, delivery.signature, [secret], {
        now: delivery.receivedAtMs,
        toleranceSeconds: 1,
      });
      expect(verdict.ok).toBe(true);
      return verdict.ok ? verdict.t : -1;
    });
    expect(new Set(ts).size).toBe(5);
    expect(new Set(hook.received.map((d) => d.signature)).size).toBe(5);

    // 6.2 / 6.3 rule 3: the exact bytes of the envelope every time, one event id.
    for (const delivery of hook.received) expect(delivery.body).toBe(input.envelope);
    expect(EventEnvelope.parse(JSON.parse(hook.received[0]!.body)).id).toBe(input.eventId);

    // Workflow time between one attempt's answer and the next attempt: the retry policy's backoff.
    const gaps = hook.received
      .slice(1)
      .map((next, i) => (next.serverReceivedMs - hook.received[i]!.serverAnsweredMs) / 1000);
    console.log(`attempt gaps in workflow time (s): ${gaps.map((g) => g.toFixed(2)).join(', ')}`);
    for (const [i, expected] of [3, 6, 12, 24].entries())
      expect(Math.abs(gaps[i]! - expected)).toBeLessThanOrEqual(1);

    // The history agrees: one activity, scheduled at the first attempt, last started (attempt 5) at the fifth.
    const events = outcome.history.events ?? [];
    const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes);
    const started = events.filter((e) => e.activityTaskStartedEventAttributes);
    expect(scheduled).toHaveLength(1);
    expect(started).toHaveLength(1);
    expect(started[0]!.activityTaskStartedEventAttributes!.attempt).toBe(5);
    expect(Math.abs(eventTimeMs(scheduled[0]!) - hook.received[0]!.serverReceivedMs)).toBeLessThanOrEqual(
      1_000,
    );
    expect(Math.abs(eventTimeMs(started[0]!) - hook.received[4]!.serverReceivedMs)).toBeLessThanOrEqual(
      1_000,
    );

    // Decision “Webhook delivery” delivery log over HTTP.
    const log = await h.api('GET', `/sandbox/events/${input.eventId}`);
    expect(log.status).toBe(200);
    expect(log.body.event.id).toBe(input.eventId);
    expect(log.body.attempts.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(log.body.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([
      500, 500, 500, 500, 204,
    ]);
    for (const attempt of log.body.attempts) {
      expect(attempt.subscriptionId).toBe(input.subscriptionId);
      expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
    }
  });

  it('a receiver that never answers 2xx: exactly 5 attempts, then {delivered: false, attempts: 5}', async () => {
    const h = await harness();
    // Four refusals, then no answer at all (the attempt times out).
    const hook = await receiver((n) => (n < 5 ? { status: 503 } : 'hang'));
    const { input } = await recordedPaymentEvent(h, hook.url);
    const taskQueue = uniqueTaskQueue('webhook-delivery');

    const outcome = await (await worker(h, taskQueue, 300)).runUntil(async () => {
      const handle = await env.client.workflow.start(webhookDelivery, {
        workflowId: webhookDeliveryWorkflowId(input.eventId),
        taskQueue,
        args: [input],
      });
      return { result: await handle.result(), state: await handle.query(deliveryStateQuery) };
    });

    expect(outcome.result).toEqual({ delivered: false, attempts: 5 });
    expect(outcome.state).toEqual({ attempts: 5, delivered: false, lastStatus: null });
    expect(hook.received).toHaveLength(5);
    const log = await h.api('GET', `/sandbox/events/${input.eventId}`);
    expect(log.body.attempts.map((a: { statusCode: number | null }) => a.statusCode)).toEqual([
      503,
      503,
      503,
      503,
      null,
    ]);
    expect(log.body.attempts[4].error).toContain('timeout');
  });
});

describe('TemporalDispatcher with a real emulator', () => {
  it('payment.made reaches the API subscription signed and the legacy one unsigned; redeliver continues the log; a repeated dispatch is a no-op', async () => {
    const taskQueue = uniqueTaskQueue('webhook-delivery');
    let dispatcher: TemporalDispatcher | undefined;
    const h = await harness({
      dispatcher: () => {
        dispatcher = new TemporalDispatcher({ client: env.client, taskQueue });
        return dispatcher;
      },
    });
    const hook = await receiver(() => ({ status: 204 }));
    const legacyHook = await receiver(() => ({ status: 200 }));
    const secret = (await h.api('POST', '/webhook', { url: hook.url })).body.secret as string;
    await h.api('POST', '/sandbox/webhook/legacy', { url: legacyHook.url });

    await (await worker(h, taskQueue)).runUntil(async () => {
      const link = await newLink(h.api, 2500);
      const payment = await h.api('POST', `/sandbox/paymentLinks/${link.id}/pay`, { method: 'Card' });
      expect(payment.status).toBe(201);
      await until(() => hook.received.length === 1 && legacyHook.received.length === 1, 'both deliveries');

      const delivered = hook.received[0]!;
      const envelope = EventEnvelope.parse(JSON.parse(delivered.body));
      expect(envelope.category).toBe('payment.made');
      expect(envelope.associated_object_id).toBe(payment.body.id);
      expect(verify(delivered.body, delivered.signature, [secret], { now: delivered.receivedAtMs }).ok).toBe(
        true,
      );
      expect(legacyHook.received[0]!.signature).toBeUndefined();
      expect(legacyHook.received[0]!.body).toBe(delivered.body);

      const api = env.client.workflow.getHandle(webhookDeliveryWorkflowId(envelope.id));
      const legacy = env.client.workflow.getHandle(webhookDeliveryWorkflowId(envelope.id, { legacy: true }));
      expect(await api.result()).toEqual({ delivered: true, attempts: 1 });
      expect(await legacy.result()).toEqual({ delivered: true, attempts: 1 });

      // The outbox relaying the event again (after a crash) starts nothing new.
      const subscriptionId = (await h.api('GET', `/sandbox/events/${envelope.id}`)).body.attempts.find(
        (a: { statusCode: number }) => a.statusCode === 204,
      ).subscriptionId as string;
      await dispatcher!.dispatch(envelope, { subscriptionId, url: hook.url, secret });
      await sleep(300);
      expect(hook.received).toHaveLength(1);

      // Redelivery: a workflow of its own, same event id, attempt numbers continue (E14).
      const redeliver = await h.api('POST', `/sandbox/events/${envelope.id}/redeliver`);
      expect(redeliver.status).toBe(202);
      const again = env.client.workflow.getHandle(webhookDeliveryWorkflowId(envelope.id, { redelivery: 1 }));
      await until(() => hook.received.length === 2 && legacyHook.received.length === 2, 'redelivery');
      expect(await again.result()).toEqual({ delivered: true, attempts: 1 });
      expect(hook.received[1]!.body).toBe(delivered.body);
      expect(verify(hook.received[1]!.body, hook.received[1]!.signature, [secret]).ok).toBe(true);
      const legacyAgain = env.client.workflow.getHandle(
        webhookDeliveryWorkflowId(envelope.id, { legacy: true, redelivery: 1 }),
      );
      expect(await legacyAgain.result()).toEqual({ delivered: true, attempts: 1 });

      const log = await h.api('GET', `/sandbox/events/${envelope.id}`);
      const numbers = log.body.attempts
        .filter((a: { subscriptionId: string }) => a.subscriptionId === subscriptionId)
        .map((a: { attempt: number }) => a.attempt);
      expect(numbers).toEqual([1, 2]);
    });
  });
});
