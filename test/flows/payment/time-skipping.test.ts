import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceEventSignal } from '../../../src/flows/in-workflow/service-event.js';
import { type PaymentView, paymentWorkflowId } from '../../../src/flows/payment/contract.js';
import { achReturnWindowDays, payment } from '../../../src/flows/payment/workflow.js';
import { fixturesDir, startTimeSkipping, uniqueTaskQueue, workflowBundle } from '../../support/temporal.js';
import { scriptedPaymentActivity } from './activity-script.js';

const dayMs = 24 * 60 * 60 * 1000;

function event(eventId: string, category: string, objectId: string) {
  return { eventId, category, objectType: 'payment', objectId, createdAt: new Date().toISOString() };
}

describe('payment workflow on the time-skipping test server', () => {
  let env: TestWorkflowEnvironment;
  let bundle: { codePath: string };

  beforeAll(async () => {
    [env, bundle] = await Promise.all([startTimeSkipping(), workflowBundle()]);
  });
  afterAll(async () => {
    await env?.teardown();
  });

  async function run<T>(activities: object, body: (taskQueue: string) => Promise<T>): Promise<T> {
    const taskQueue = uniqueTaskQueue('payment');
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      workflowBundle: bundle,
      activities,
    });
    return worker.runUntil(body(taskQueue));
  }

  it('keeps an ACH payment open for the real 60-day return window, then closes it as final', async () => {
    const started = await env.currentTimeMs();
    const script = scriptedPaymentActivity({
      paymentId: 'pay_ach_1',
      status: 'PENDING',
      methodType: 'ACH',
      paymentLinkId: 'pl_1',
      customerId: 'cus_1',
      amountInCents: 125_00,
      madeAt: new Date(started).toISOString(),
    });
    const wallStart = Date.now();
    const view = await run(script.activities, async (taskQueue) => {
      const handle = await env.client.workflow.signalWithStart(payment, {
        workflowId: paymentWorkflowId('pay_ach_1'),
        taskQueue,
        args: [{ paymentId: 'pay_ach_1' }],
        signal: serviceEventSignal,
        signalArgs: [event('evt-1', 'payment.made', 'pay_ach_1')],
      });
      return handle.result();
    });
    const elapsedVirtualMs = Date.parse(view.closedAt!) - started;

    expect(view.state).toBe('CLOSED');
    expect(elapsedVirtualMs).toBeGreaterThanOrEqual(achReturnWindowDays * dayMs);
    expect(elapsedVirtualMs).toBeLessThan((achReturnWindowDays + 1) * dayMs);
    // One sync for payment.made, one final look when the window ends.
    expect(script.state.calls.map((c) => c.eventIds)).toEqual([['evt-1'], []]);
    console.info(
      `60-day ACH window: ${(elapsedVirtualMs / dayMs).toFixed(2)} virtual days in ${Date.now() - wallStart} ms wall time`,
    );
  });

  it('books a return on day 59 (payment.failed) and closes as RETURNED before the window ends', async () => {
    const started = await env.currentTimeMs();
    const script = scriptedPaymentActivity({
      paymentId: 'pay_ach_2',
      status: 'PENDING',
      methodType: 'ACH',
      paymentLinkId: 'pl_2',
      customerId: null,
      amountInCents: 50_00,
      madeAt: new Date(started).toISOString(),
    });
    const { view, history } = await run(script.activities, async (taskQueue) => {
      const handle = await env.client.workflow.signalWithStart(payment, {
        workflowId: paymentWorkflowId('pay_ach_2'),
        taskQueue,
        args: [{ paymentId: 'pay_ach_2' }],
        signal: serviceEventSignal,
        signalArgs: [event('evt-made', 'payment.made', 'pay_ach_2')],
      });
      await env.sleep('59 days');
      script.state.current.status = 'FAILED';
      await handle.signal(serviceEventSignal, event('evt-failed', 'payment.failed', 'pay_ach_2'));
      // A duplicate delivery of the same event must not cause another sync.
      await handle.signal(serviceEventSignal, event('evt-failed', 'payment.failed', 'pay_ach_2'));
      const view: PaymentView = await handle.result();
      return { view, history: await handle.fetchHistory() };
    });
    const elapsedVirtualMs = Date.parse(view.closedAt!) - started;

    expect(view.state).toBe('RETURNED');
    expect(view.serviceStatus).toBe('FAILED');
    expect(elapsedVirtualMs).toBeGreaterThanOrEqual(59 * dayMs);
    expect(elapsedVirtualMs).toBeLessThan(achReturnWindowDays * dayMs);
    expect(script.state.calls.map((c) => c.eventIds)).toEqual([['evt-made'], ['evt-failed']]);
    expect(view.duplicatesDropped + view.eventsHandled).toBe(3);

    if (process.env.BOOKSYNC_RECORD_HISTORIES) {
      writeFileSync(
        path.join(fixturesDir, 'histories', 'payment-ach-returned-day-59.json'),
        `${historyToJSON(history)}\n`,
      );
    }
  });

  it('closes a card payment as soon as it is booked', async () => {
    const script = scriptedPaymentActivity({
      paymentId: 'pay_card_1',
      status: 'SUCCEEDED',
      methodType: 'Card',
      paymentLinkId: 'pl_3',
      customerId: 'cus_3',
      amountInCents: 99_99,
      madeAt: new Date(await env.currentTimeMs()).toISOString(),
    });
    const view = await run(script.activities, async (taskQueue) => {
      const handle = await env.client.workflow.signalWithStart(payment, {
        workflowId: paymentWorkflowId('pay_card_1'),
        taskQueue,
        args: [{ paymentId: 'pay_card_1' }],
        signal: serviceEventSignal,
        signalArgs: [event('evt-card', 'payment.made', 'pay_card_1')],
      });
      return handle.result();
    });
    expect(view).toMatchObject({ state: 'CLOSED', methodType: 'Card', syncs: 1, returnWindowEndsAt: null });
  });
});
