import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestReconciliation } from '../../src/cli/commands/reconcile.js';
import { type PaymentView, paymentViewQuery, paymentWorkflowId } from '../../src/flows/payment/contract.js';
import { ReturnWindowEndsAt, SyncState } from '../../src/workflow-safe/search-attributes.js';
import { type Stack, startStack } from '../flows/bill-payment/stack.js';
import { startDevServer, workflowBundle } from '../support/temporal.js';
import { eventually } from '../support/wait-for.js';

// Hostile review: an ACH payment whose events were all lost was booked by reconciliation, but nothing
// watched its 60-day return window until its next event (which may be the return itself, also lost).
// Reconciliation now starts its payment workflow, which shows IN_RETURN_WINDOW at once.

let env: TestWorkflowEnvironment;
let stack: Stack;

beforeAll(async () => {
  const [started, bundle] = await Promise.all([startDevServer(), workflowBundle()]);
  env = started;
  stack = await startStack(env, bundle);
});

afterAll(async () => {
  if (env) {
    for await (const wf of env.client.workflow.list({ query: 'ExecutionStatus = "Running"' })) {
      await env.client.workflow
        .getHandle(wf.workflowId)
        .terminate('test over')
        .catch(() => undefined);
    }
  }
  await stack?.close();
  await env?.teardown();
});

describe('reconciliation of an ACH payment whose events were lost', { timeout: 180_000 }, () => {
  it('books it and starts its payment workflow, which watches the return window at once', async () => {
    await stack.webhooksNowhere();
    const customer = await stack.service.createCustomer({
      name: 'Lost Events Ltd',
      emails: ['ap@lost.test'],
    });
    const link = await stack.service.createPaymentLink({
      name: 'INV-LOST-ACH',
      requestedAmountCents: 310_00,
      customerId: customer.id,
    });
    const ach = await stack.sandbox.payLink(link.id, 'ACH');
    const card = await stack.sandbox.payLink(
      (await stack.service.createPaymentLink({ name: 'INV-LOST-CARD', requestedAmountCents: 40_00 })).id,
      'Card',
    );
    await stack.deliveriesIdle();
    await stack.webhooksToIngress();
    const handle = env.client.workflow.getHandle(paymentWorkflowId(ach.id));
    await expect(handle.describe()).rejects.toThrow();

    const { report } = await requestReconciliation(env.client, {
      scope: { kind: 'customer', customerId: customer.id },
      taskQueue: stack.taskQueue,
      timeoutSeconds: 120,
    });
    expect(report.fixed.posted.payment).toBe(1);
    expect((await stack.ledger.get(`payment:${ach.id}`))?.lines).toHaveLength(2);

    const view = await eventually(async () => {
      const v: PaymentView = await handle.query(paymentViewQuery);
      return v.state === 'IN_RETURN_WINDOW' ? v : undefined;
    }, 'the payment workflow in its return window');
    expect(view.methodType).toBe('ACH');
    const described = await handle.describe();
    expect(described.status.name).toBe('RUNNING');
    expect(described.typedSearchAttributes.get(SyncState)).toBe('IN_RETURN_WINDOW');
    const endsAt = described.typedSearchAttributes.get(ReturnWindowEndsAt) as Date;
    expect(endsAt.getTime() - ach.createdAt).toBe(60 * 24 * 60 * 60 * 1000);
    // A card payment (outside this customer's scope here) is not given a window to watch.
    await expect(env.client.workflow.getHandle(paymentWorkflowId(card.id)).describe()).rejects.toThrow();
  });
});
