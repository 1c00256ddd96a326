import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BillPaymentView } from '../../../src/flows/bill-payment/contract.js';
import { fixturesDir, startTimeSkipping, workflowBundle } from '../../support/temporal.js';
import { eventually } from '../../support/wait-for.js';
import { type Stack, startStack } from './stack.js';

// The check windows are real durable timers of days: on the time-skipping server they pass in seconds,
// while the activities still fetch from the emulator over HTTP and book into a ledger file.

let env: TestWorkflowEnvironment;
let stack: Stack;

beforeAll(async () => {
  const [started, bundle] = await Promise.all([startTimeSkipping(), workflowBundle()]);
  env = started;
  // The worker's settings (CHECK_DELIVERY_WINDOW_DAYS=3, CHECK_CASHING_WINDOW_DAYS=30) reach the workflow
  // through its activity: the ingress starts runs with the id only.
  stack = await startStack(env, bundle, {
    webhooks: false,
    checkWindows: { deliveryDays: 3, cashingDays: 30 },
  });
});

afterAll(async () => {
  await stack?.close();
  await env?.teardown();
});

function event(category: string, billPaymentId: string, n: number) {
  return {
    eventId: `evt-${billPaymentId}-${n}`,
    category,
    objectType: category.startsWith('check.') ? 'check' : 'bill_payment',
    objectId: billPaymentId,
    createdAt: new Date().toISOString(),
  };
}

async function searchAttributes(workflowId: string): Promise<Record<string, unknown[]>> {
  const description = await env.client.workflow.getHandle(workflowId).describe();
  return description.searchAttributes as Record<string, unknown[]>;
}

describe('bill payment check windows (time-skipping)', () => {
  it('flags a check not delivered in time, then not cashed in time, and closes once deposited', async () => {
    const vendor = await stack.service.createVendor({ name: 'Slow Mail Nursery' });
    const method = await stack.sandbox.submitVendorOnboardingForm(vendor.id, {
      type: 'CHECK',
      checkAddress: { name: vendor.name, street: '9 Elm', city: 'Shelbyville', state: 'IL', zip: '62565' },
    });
    const bill = await stack.service.createBill({ vendorId: vendor.id, amountCents: 250_00 });
    const { id: billPaymentId } = await stack.service.createBillPayment(bill.id, method.id);
    const workflowId = `bill-payment-${billPaymentId}`;

    await stack.sandbox.advanceBillCheck(billPaymentId, 'sent');
    const handle = await env.client.workflow.signalWithStart('billPayment', {
      workflowId,
      taskQueue: stack.taskQueue,
      args: [{ billPaymentId }],
      signal: 'serviceEvent',
      signalArgs: [event('check.sent', billPaymentId, 1)],
    });
    await eventually(async () => (await handle.query<BillPaymentView>('view')).state === 'SENT', 'SENT');
    expect((await handle.query<BillPaymentView>('view')).windows).toEqual({
      deliveryDays: 3,
      cashingDays: 30,
    });

    await env.sleep('2 days');
    expect((await searchAttributes(workflowId)).NeedsAttention).toEqual([false]);

    await env.sleep('2 days');
    await eventually(
      async () => (await searchAttributes(workflowId)).NeedsAttention?.[0] === true,
      'flagged',
    );
    expect((await searchAttributes(workflowId)).SyncState).toEqual(['CHECK_OVERDUE']);
    const overdue = await handle.query<BillPaymentView>('view');
    expect(overdue.overdue).toMatchObject({ kind: 'NOT_DELIVERED', windowDays: 3 });
    expect((await handle.describe()).memo).toMatchObject({ overdue: { kind: 'NOT_DELIVERED' } });
    await eventually(
      async () =>
        stack.logs.some((l) => l.includes('"level":40') && l.includes('check not delivered within 3 days')),
      'warn log',
    );

    // Delivered at last: the flag clears, the cashing window starts.
    await stack.sandbox.advanceBillCheck(billPaymentId, 'delivered');
    await handle.signal('serviceEvent', event('check.delivered', billPaymentId, 2));
    await eventually(
      async () => (await searchAttributes(workflowId)).SyncState?.[0] === 'DELIVERED',
      'DELIVERED',
    );
    expect((await searchAttributes(workflowId)).NeedsAttention).toEqual([false]);

    await env.sleep('31 days');
    await eventually(
      async () => (await searchAttributes(workflowId)).NeedsAttention?.[0] === true,
      'not cashed',
    );
    expect((await handle.query<BillPaymentView>('view')).overdue).toMatchObject({
      kind: 'NOT_CASHED',
      windowDays: 30,
    });

    // A duplicate signal is dropped; the deposit closes the run as PAID.
    await handle.signal('serviceEvent', event('check.delivered', billPaymentId, 2));
    await stack.sandbox.advanceBillCheck(billPaymentId, 'deposited');
    await handle.signal('serviceEvent', event('check.deposited', billPaymentId, 3));
    const view = (await handle.result()) as BillPaymentView;
    expect(view).toMatchObject({ state: 'PAID', overdue: null, duplicatesDropped: 1 });
    expect(await stack.ledger.balanceOf('liabilities:outgoing-payments-clearing' as never)).toBe(0);

    if (process.env.BOOKSYNC_RECORD_HISTORIES) {
      writeFileSync(
        path.join(fixturesDir, 'histories', 'bill-payment-check-overdue-then-paid.json'),
        `${historyToJSON(await handle.fetchHistory())}\n`,
      );
    }
  });
});

describe('an ACH bill payment whose events are lost (time-skipping)', () => {
  it('is looked at daily, so it is booked PAID without the bill_payment.succeeded event', async () => {
    const vendor = await stack.service.createVendor({ name: 'Quiet Bank Supplies' });
    const method = await stack.sandbox.submitVendorOnboardingForm(vendor.id, {
      type: 'ACH',
      routingNumber: '011000015',
      accountNumber: '000123456789',
      accountType: 'CHECKING',
    });
    const bill = await stack.service.createBill({ vendorId: vendor.id, amountCents: 120_00 });
    const { id: billPaymentId } = await stack.service.createBillPayment(bill.id, method.id);
    await stack.sandbox.advanceBillAch(billPaymentId, 'sent');
    const handle = await env.client.workflow.signalWithStart('billPayment', {
      workflowId: `bill-payment-${billPaymentId}`,
      taskQueue: stack.taskQueue,
      args: [{ billPaymentId }],
      signal: 'serviceEvent',
      // An early delivery: the event outran the service's state, which still shows the payment in flight.
      signalArgs: [event('bill_payment.succeeded', billPaymentId, 1)],
    });
    await eventually(async () => (await handle.query<BillPaymentView>('view')).syncs >= 1, 'first sync');
    // The ACH succeeds at the service; its webhook never arrives.
    await stack.sandbox.advanceBillAch(billPaymentId, 'succeeded');
    await env.sleep('25 hours');
    const view = (await handle.result()) as BillPaymentView;
    expect(view).toMatchObject({ state: 'PAID', deliveryMethodType: 'ACH' });
    expect(view.syncs).toBe(2);
    expect((await stack.ledger.get(`bill-payment-paid:${billPaymentId}`))?.lines).toHaveLength(2);
  });
});
