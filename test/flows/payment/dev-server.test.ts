import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceEventSignal } from '../../../src/flows/in-workflow/service-event.js';
import { paymentViewQuery, paymentWorkflowId } from '../../../src/flows/payment/contract.js';
import { payment } from '../../../src/flows/payment/workflow.js';
import { startDevServer, uniqueTaskQueue, workflowBundle } from '../../support/temporal.js';
import { eventually } from '../../support/wait-for.js';
import { scriptedPaymentActivity } from './activity-script.js';

describe('payment workflow on a real Temporal dev server (gRPC, SQLite, visibility)', () => {
  let env: TestWorkflowEnvironment;
  let bundle: { codePath: string };

  beforeAll(async () => {
    [env, bundle] = await Promise.all([startDevServer(), workflowBundle()]);
  });
  afterAll(async () => {
    await env?.teardown();
  });

  it('holds an ACH payment in its return window, visible by search attribute and query', async () => {
    const paymentId = `pay_dev_${Date.now()}`;
    const script = scriptedPaymentActivity({
      paymentId,
      status: 'PENDING',
      methodType: 'ACH',
      paymentLinkId: 'pl_dev',
      customerId: 'cus_dev',
      amountInCents: 420_00,
      madeAt: new Date().toISOString(),
    });
    const taskQueue = uniqueTaskQueue('payment-dev');
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      workflowBundle: bundle,
      activities: script.activities,
    });
    await worker.runUntil(async () => {
      const handle = await env.client.workflow.signalWithStart(payment, {
        workflowId: paymentWorkflowId(paymentId),
        taskQueue,
        args: [{ paymentId }],
        signal: serviceEventSignal,
        signalArgs: [
          {
            eventId: 'e1',
            category: 'payment.made',
            objectType: 'payment',
            objectId: paymentId,
            createdAt: '',
          },
        ],
      });
      const view = await eventually(async () => {
        const v = await handle.query(paymentViewQuery);
        return v.state === 'IN_RETURN_WINDOW' ? v : undefined;
      });
      expect(view.methodType).toBe('ACH');
      expect(Date.parse(view.returnWindowEndsAt!) - Date.parse(view.openedAt)).toBeGreaterThan(
        59 * 86_400_000,
      );

      // What a person types in the Web UI to list ACH payments still inside their window.
      const query = `SyncState = "IN_RETURN_WINDOW" AND PaymentMethodType = "ACH" AND PaymentLinkId = "pl_dev"`;
      const listed = await eventually(async () => {
        for await (const wf of env.client.workflow.list({ query })) {
          if (wf.workflowId === paymentWorkflowId(paymentId)) return wf;
        }
        return undefined;
      });
      expect(listed.status.name).toBe('RUNNING');
      expect(listed.typedSearchAttributes.get({ name: 'AmountCents', type: 'INT' } as never)).toBe(420_00);
      await handle.terminate('test done');
    });
  });
});
