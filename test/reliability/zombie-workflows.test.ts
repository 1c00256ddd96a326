import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DisbursementActivities } from '../../src/flows/disbursement/activities-contract.js';
import { disbursementWorkflowId } from '../../src/flows/disbursement/contract.js';
import { disbursement } from '../../src/flows/disbursement/workflow.js';
import { serviceEventSignal } from '../../src/flows/in-workflow/service-event.js';
import type { PaymentActivities } from '../../src/flows/payment/activities-contract.js';
import { paymentWorkflowId } from '../../src/flows/payment/contract.js';
import { payment } from '../../src/flows/payment/workflow.js';
import { NeedsAttention, SyncState } from '../../src/workflow-safe/search-attributes.js';
import { startTimeSkipping, uniqueTaskQueue, workflowBundle } from '../support/temporal.js';

// Hostile review: a payment workflow for an id the service answers 404 for stayed Running forever, so bad
// or test deliveries piled up zombie workflows. It now looks once more, then closes NOT_FOUND, flagged.

let env: TestWorkflowEnvironment;
let bundle: { codePath: string };

beforeAll(async () => {
  [env, bundle] = await Promise.all([startTimeSkipping(), workflowBundle()]);
});
afterAll(async () => {
  await env?.teardown();
});

function notFoundActivities(appearsAfterCalls = Number.POSITIVE_INFINITY) {
  const calls: string[][] = [];
  const activities: PaymentActivities = {
    async syncPayment({ paymentId, eventIds }) {
      calls.push(eventIds);
      if (calls.length <= appearsAfterCalls) {
        throw ApplicationFailure.nonRetryable(`payment ${paymentId} not found`, 'ServiceNotFoundError');
      }
      return {
        paymentId,
        status: 'SUCCEEDED',
        methodType: 'Card',
        paymentLinkId: null,
        customerId: null,
        amountInCents: 500,
        madeAt: new Date().toISOString(),
        posted: [],
        reversed: [],
      };
    },
  };
  return { activities, calls };
}

async function deliver(paymentId: string, activities: PaymentActivities) {
  const taskQueue = uniqueTaskQueue('zombie');
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: bundle,
    activities,
  });
  return worker.runUntil(async () => {
    const handle = await env.client.workflow.signalWithStart(payment, {
      workflowId: paymentWorkflowId(paymentId),
      taskQueue,
      args: [{ paymentId }],
      signal: serviceEventSignal,
      signalArgs: [
        {
          eventId: `evt-${paymentId}`,
          category: 'payment.made',
          objectType: 'payment',
          objectId: paymentId,
          createdAt: new Date().toISOString(),
        },
      ],
    });
    const view = await handle.result();
    return { view, attributes: (await handle.describe()).typedSearchAttributes };
  });
}

describe('a payment workflow for an id the service does not know', () => {
  it('looks once more, then closes NOT_FOUND and stays flagged', async () => {
    const { activities, calls } = notFoundActivities();
    const { view, attributes } = await deliver('pay_ghost', activities);
    expect(view.state).toBe('NOT_FOUND');
    expect(view.closedAt).not.toBeNull();
    expect(calls).toEqual([['evt-pay_ghost'], []]);
    expect(attributes.get(NeedsAttention)).toBe(true);
    expect(attributes.get(SyncState)).toBe('NOT_FOUND');
  });

  it('books normally when the object shows up at the second look', async () => {
    const { activities, calls } = notFoundActivities(1);
    const { view } = await deliver('pay_late', activities);
    expect(view.state).toBe('CLOSED');
    expect(view.lastError).toBeNull();
    expect(calls).toHaveLength(2);
  });
});

describe('a disbursement workflow for an id the service does not know', () => {
  it('polls once more, then closes NOT_FOUND and stays flagged', async () => {
    const calls: string[][] = [];
    const activities: DisbursementActivities = {
      async syncDisbursement({ disbursementId, eventIds }) {
        calls.push(eventIds);
        throw ApplicationFailure.nonRetryable(
          `disbursement ${disbursementId} not found`,
          'ServiceNotFoundError',
        );
      },
    };
    const taskQueue = uniqueTaskQueue('zombie-disbursement');
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      workflowBundle: bundle,
      activities,
    });
    const { view, attributes } = await worker.runUntil(async () => {
      const handle = await env.client.workflow.signalWithStart(disbursement, {
        workflowId: disbursementWorkflowId('dis_ghost'),
        taskQueue,
        args: [{ disbursementId: 'dis_ghost' }],
        signal: serviceEventSignal,
        signalArgs: [
          {
            eventId: 'evt-dis_ghost',
            category: 'disbursement.pending',
            objectType: 'disbursement',
            objectId: 'dis_ghost',
            createdAt: new Date().toISOString(),
          },
        ],
      });
      const result = await handle.result();
      return { view: result, attributes: (await handle.describe()).typedSearchAttributes };
    });
    expect(view.state).toBe('NOT_FOUND');
    expect(calls).toEqual([['evt-dis_ghost'], []]);
    expect(attributes.get(NeedsAttention)).toBe(true);
    expect(attributes.get(SyncState)).toBe('NOT_FOUND');
  });
});
