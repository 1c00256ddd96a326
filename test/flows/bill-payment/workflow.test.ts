import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BillPaymentView } from '../../../src/flows/bill-payment/contract.js';
import type { ChargeAuthorizationView } from '../../../src/flows/charge-authorization/contract.js';
import type { VendorDeliveryMethodsView } from '../../../src/flows/vendor-delivery-methods/contract.js';
import { Accounts } from '../../../src/ledger/chart-of-accounts.js';
import type { EntryLinks } from '../../../src/ledger/entry.js';
import { deliver, signed } from '../../ingress/harness.js';
import { checkWithHledger } from '../../support/hledger.js';
import { startDevServer, workflowBundle } from '../../support/temporal.js';
import { eventually } from '../../support/wait-for.js';
import { type Stack, startStack } from './stack.js';

// Bill payments end to end on a real Temporal dev server: the emulator's sandbox moves the payment, its
// webhooks reach the real ingress, the billPayment workflow fetches and books, the ledger file holds it.

let env: TestWorkflowEnvironment;
let stack: Stack;

beforeAll(async () => {
  const [started, bundle] = await Promise.all([startDevServer(), workflowBundle()]);
  env = started;
  stack = await startStack(env, bundle);
});

afterAll(async () => {
  await stack?.close();
  await env?.teardown();
});

const AP = Accounts.AccountsPayable;
const OPC = Accounts.OutgoingPaymentsClearing;
const BANK = Accounts.OperatingBank;
const EXP = Accounts.BillExpenses;

/** What the bill still owes in the books: its payable open item (0 when the books hold none for it). */
async function payableOf(billId: string): Promise<number> {
  const item = (await stack.ledger.openItems('payable')).find((i) => i.documentId === billId);
  return item?.openCents ?? 0;
}

/** The bill's own entry, booked by the first sync of a payment of it: Dr Bill Expenses / Cr Accounts Payable. */
async function expectBillBooked(bill: { id: string; vendorId: string; amountCents: number }): Promise<void> {
  const entry = (await stack.ledger.entriesFor({ billId: bill.id })).find((e) => e.key === `bill:${bill.id}`);
  expect(entry?.lines.map((l) => [l.account, l.amountCents])).toEqual([
    [EXP, bill.amountCents],
    [AP, -bill.amountCents],
  ]);
  expect(entry?.links).toMatchObject({ billId: bill.id, vendorId: bill.vendorId });
}

/** Net per account of what is booked for one object (reversals included), zero accounts left out. */
async function net(links: EntryLinks): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  for (const entry of await stack.ledger.entriesFor(links)) {
    for (const line of entry.lines) result[line.account] = (result[line.account] ?? 0) + line.amountCents;
  }
  for (const [account, cents] of Object.entries(result)) if (cents === 0) delete result[account];
  return result;
}

async function view(billPaymentId: string): Promise<BillPaymentView> {
  return stack.env.client.workflow.getHandle(`bill-payment-${billPaymentId}`).query<BillPaymentView>('view');
}

async function closedView(billPaymentId: string): Promise<BillPaymentView> {
  return eventually(async () => {
    const handle = stack.env.client.workflow.getHandle(`bill-payment-${billPaymentId}`);
    const description = await handle.describe();
    return description.status.name === 'COMPLETED' ? ((await handle.result()) as BillPaymentView) : undefined;
  }, `bill-payment-${billPaymentId} closed`);
}

let vendorCount = 0;
async function billPaymentBy(type: 'CHECK' | 'ACH', amountCents: number) {
  const vendor = await stack.service.createVendor({ name: `Vendor ${++vendorCount}` });
  const method = await stack.sandbox.submitVendorOnboardingForm(
    vendor.id,
    type === 'CHECK'
      ? {
          type: 'CHECK',
          checkAddress: {
            name: vendor.name,
            street: '1 Main St',
            city: 'Springfield',
            state: 'IL',
            zip: '62701',
          },
        }
      : { type: 'ACH', routingNumber: '011000015', accountNumber: '000123456789', accountType: 'CHECKING' },
  );
  const bill = await stack.service.createBill({ vendorId: vendor.id, amountCents });
  const payment = await stack.service.createBillPayment(bill.id, method.id);
  return { vendor, bill, billPaymentId: payment.id };
}

describe('a bill paid by check', () => {
  it('walks sent, delivered, deposited with the right books at each step', async () => {
    const { bill, billPaymentId } = await billPaymentBy('CHECK', 420_00);

    await stack.sandbox.advanceBillCheck(billPaymentId, 'sent');
    await eventually(async () => (await view(billPaymentId)).state === 'SENT', 'SENT');
    expect(await net({ billPaymentId })).toEqual({ [AP]: 420_00, [OPC]: -420_00 });

    await stack.sandbox.advanceBillCheck(billPaymentId, 'delivered');
    await eventually(async () => (await view(billPaymentId)).state === 'DELIVERED', 'DELIVERED');
    expect(await net({ billPaymentId })).toEqual({ [AP]: 420_00, [OPC]: -420_00 });
    const description = await stack.env.client.workflow.getHandle(`bill-payment-${billPaymentId}`).describe();
    expect(description.memo).toMatchObject({ checkStatus: 'DELIVERED', billId: bill.id });

    await stack.sandbox.advanceBillCheck(billPaymentId, 'deposited');
    const closed = await closedView(billPaymentId);
    expect(closed).toMatchObject({ state: 'PAID', serviceStatus: 'SUCCEEDED', checkStatus: 'DEPOSITED' });
    expect(closed.billStatus).toBe('PAID');
    expect(await net({ billPaymentId })).toEqual({ [AP]: 420_00, [BANK]: -420_00 });
    expect((await stack.service.getBill(bill.id)).status).toBe('PAID');
    // The bill is booked too, and the payment settles it: expense 420, paid from the bank, nothing payable.
    await expectBillBooked(bill);
    expect(await net({ billId: bill.id })).toEqual({ [EXP]: 420_00, [BANK]: -420_00 });
    expect(await payableOf(bill.id)).toBe(0);
    await checkWithHledger(stack.ledger);
  });

  it('a returned check reverses the sent entry and the bill is OPEN again', async () => {
    const { bill, billPaymentId } = await billPaymentBy('CHECK', 75_50);
    await stack.sandbox.advanceBillCheck(billPaymentId, 'sent');
    await eventually(async () => (await net({ billPaymentId }))[AP] === 75_50, 'sent booked');
    await stack.sandbox.advanceBillCheck(billPaymentId, 'returned');
    const closed = await closedView(billPaymentId);
    expect(closed).toMatchObject({
      state: 'RETURNED',
      serviceStatus: 'FAILED',
      failureReason: 'CHECK_RETURNED',
    });
    expect(closed.billStatus).toBe('OPEN');
    expect(await net({ billPaymentId })).toEqual({});
    const entries = await stack.ledger.entriesFor({ billPaymentId });
    expect(entries.map((e) => e.key).sort()).toEqual([
      `bill-payment-sent:${billPaymentId}`,
      `reversal:bill-payment-sent:${billPaymentId}`,
    ]);
    expect((await stack.service.getBill(bill.id)).status).toBe('OPEN');
    // The bill stays booked: OPEN at the service, owed in full in the books.
    await expectBillBooked(bill);
    expect(await net({ billId: bill.id })).toEqual({ [EXP]: 75_50, [AP]: -75_50 });
    expect(await payableOf(bill.id)).toBe(75_50);
    // The Web UI's "bill payments with a returned check".
    await eventually(async () => {
      for await (const wf of stack.env.client.workflow.list({ query: 'SyncState = "RETURNED"' })) {
        if (wf.workflowId === `bill-payment-${billPaymentId}`) return true;
      }
      return false;
    }, 'listed as RETURNED');
  });

  it('a check that fails after being sent is reversed too', async () => {
    const { billPaymentId } = await billPaymentBy('CHECK', 12_00);
    await stack.sandbox.advanceBillCheck(billPaymentId, 'sent');
    await stack.sandbox.advanceBillCheck(billPaymentId, 'failed');
    const closed = await eventually(async () => {
      const v = await closedView(billPaymentId);
      return (await net({ billPaymentId }))[AP] === undefined ? v : undefined;
    }, 'failed check reversed');
    expect(closed.state).toBe('FAILED');
    expect(await net({ billPaymentId })).toEqual({});
  });
});

describe('ACH bill payments', () => {
  it('succeeded: AP to clearing to bank', async () => {
    const { bill, billPaymentId } = await billPaymentBy('ACH', 300_00);
    await stack.sandbox.advanceBillAch(billPaymentId, 'sent');
    await stack.sandbox.advanceBillAch(billPaymentId, 'succeeded');
    const closed = await closedView(billPaymentId);
    expect(closed).toMatchObject({ state: 'PAID', deliveryMethodType: 'ACH', checkStatus: null });
    expect(await net({ billPaymentId })).toEqual({ [AP]: 300_00, [BANK]: -300_00 });
    const keys = (await stack.ledger.entriesFor({ billPaymentId })).map((e) => e.key).sort();
    expect(keys).toEqual([`bill-payment-paid:${billPaymentId}`, `bill-payment-sent:${billPaymentId}`]);
    await expectBillBooked(bill);
    const billKeys = (await stack.ledger.entriesFor({ billId: bill.id })).map((e) => e.key).sort();
    expect(billKeys).toEqual([
      `bill-payment-paid:${billPaymentId}`,
      `bill-payment-sent:${billPaymentId}`,
      `bill:${bill.id}`,
    ]);
    expect(await payableOf(bill.id)).toBe(0);
  });

  it('failed: nothing stays booked and the bill is owed again', async () => {
    const { bill, billPaymentId } = await billPaymentBy('ACH', 55_00);
    await stack.sandbox.advanceBillAch(billPaymentId, 'sent');
    await stack.sandbox.advanceBillAch(billPaymentId, 'failed');
    const closed = await closedView(billPaymentId);
    expect(closed).toMatchObject({ state: 'FAILED', failureReason: 'ACH_FAILED', billStatus: 'OPEN' });
    expect(await net({ billPaymentId })).toEqual({});
    expect((await stack.service.getBill(bill.id)).status).toBe('OPEN');
    expect(await payableOf(bill.id)).toBe(55_00);
  });
});

it('a bill payment cancelled before sending books nothing and closes as CANCELLED', async () => {
  const { bill, billPaymentId } = await billPaymentBy('CHECK', 99_00);
  await stack.service.cancelBillPayment(billPaymentId);
  const closed = await closedView(billPaymentId);
  expect(closed).toMatchObject({ state: 'CANCELLED', serviceStatus: 'FAILED', failureReason: 'CANCELLED' });
  expect(await stack.ledger.entriesFor({ billPaymentId })).toEqual([]);
  expect((await stack.service.getBill(bill.id)).status).toBe('OPEN');
});

it('events delivered shuffled and duplicated converge to the same books', async () => {
  const { billPaymentId } = await billPaymentBy('CHECK', 640_00);
  await stack.webhooksNowhere();
  await stack.sandbox.advanceBillCheck(billPaymentId, 'sent');
  await stack.sandbox.advanceBillCheck(billPaymentId, 'delivered');
  await stack.sandbox.advanceBillCheck(billPaymentId, 'deposited');
  await stack.deliveriesIdle();
  const secret = await stack.webhooksToIngress();
  expect(await stack.ledger.entriesFor({ billPaymentId })).toEqual([]);

  const events = [];
  for await (const item of stack.sandbox.allEvents()) {
    if (item.event.associated_object_id === billPaymentId) events.push(item.event);
  }
  expect(events.map((e) => e.category).sort()).toEqual([
    'bill_payment.succeeded',
    'check.delivered',
    'check.deposited',
    'check.sent',
  ]);
  // Newest first (deposited before sent), each twice, the duplicates interleaved.
  const byTime = [...events].sort((a, b) => a.created_at.localeCompare(b.created_at));
  const shuffled = [...byTime].reverse();
  const order = [
    shuffled[1],
    shuffled[0],
    shuffled[3],
    shuffled[1],
    shuffled[2],
    shuffled[0],
    shuffled[3],
    shuffled[2],
  ];
  for (const event of order) {
    const body = JSON.stringify(event);
    const answer = await deliver(stack.ingressUrl, { body, signature: signed(secret, body) });
    expect(answer.status).toBe(200);
  }
  const closed = await closedView(billPaymentId);
  expect(closed.state).toBe('PAID');
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  await eventually(async () => {
    const handle = stack.env.client.workflow.getHandle(`bill-payment-${billPaymentId}`);
    return (await handle.describe()).status.name === 'COMPLETED';
  }, 'every run closed');
  expect(await net({ billPaymentId })).toEqual({ [AP]: 640_00, [BANK]: -640_00 });
  const keys = (await stack.ledger.entriesFor({ billPaymentId })).map((e) => e.key).sort();
  expect(keys).toEqual([`bill-payment-paid:${billPaymentId}`, `bill-payment-sent:${billPaymentId}`]);
  await checkWithHledger(stack.ledger);
});

it('a check past its delivery window is flagged NeedsAttention, listed by the Web UI query', async () => {
  const { billPaymentId } = await billPaymentBy('CHECK', 18_00);
  await stack.sandbox.advanceBillCheck(billPaymentId, 'sent');
  await eventually(async () => (await view(billPaymentId)).state === 'SENT', 'SENT');
  // A second run of the same id with a zero-day window (the input override): overdue at once.
  const handle = stack.env.client.workflow.getHandle(`bill-payment-${billPaymentId}`);
  await handle.terminate('restart with a zero-day delivery window');
  await stack.env.client.workflow.start('billPayment', {
    workflowId: `bill-payment-${billPaymentId}`,
    taskQueue: stack.taskQueue,
    args: [{ billPaymentId, windows: { deliveryDays: 0 }, syncOnStart: true }],
  });
  const listed = await eventually(async () => {
    for await (const wf of stack.env.client.workflow.list({
      query: `NeedsAttention = true AND SyncState = "CHECK_OVERDUE" AND ServiceObjectId = "${billPaymentId}"`,
    })) {
      if (wf.status.name === 'RUNNING') return wf;
    }
    return undefined;
  }, 'listed as overdue');
  expect(listed.workflowId).toBe(`bill-payment-${billPaymentId}`);
  expect((await view(billPaymentId)).overdue).toMatchObject({ kind: 'NOT_DELIVERED', windowDays: 0 });
  await eventually(
    async () => stack.logs.some((l) => l.includes('check not delivered') && l.includes(billPaymentId)),
    'warn log from reportOverdueCheck',
  );
  // Delivered after all: the flag clears.
  await stack.sandbox.advanceBillCheck(billPaymentId, 'delivered');
  const after = await eventually(async () => {
    const v = await view(billPaymentId);
    return v.state === 'DELIVERED' ? v : undefined;
  }, 'flag cleared');
  expect(after.overdue).toBeNull();
  await handle.terminate('test done');
});

it('a check event of a bill payment the service does not know is recorded and flagged, not dropped', async () => {
  const billPaymentId = `bp_unknown_${Date.now()}`;
  const handle = await stack.env.client.workflow.signalWithStart('billPayment', {
    workflowId: `bill-payment-${billPaymentId}`,
    taskQueue: stack.taskQueue,
    args: [{ billPaymentId }],
    signal: 'serviceEvent',
    signalArgs: [
      {
        eventId: `evt-${billPaymentId}`,
        category: 'check.sent',
        objectType: 'check',
        objectId: billPaymentId,
        createdAt: '',
      },
    ],
  });
  const closed = (await handle.result()) as BillPaymentView;
  expect(closed.state).toBe('NOT_FOUND');
  expect(closed.lastError).toMatch(/404|not found/i);
  const attributes = (await handle.describe()).searchAttributes;
  expect(attributes).toMatchObject({ NeedsAttention: [true], SyncState: ['NOT_FOUND'] });
});

describe('events with nothing to book are recorded, not dropped', () => {
  it('charge_authorization.authorized / .deleted: a chargeAuthorization run holding the fetched state', async () => {
    const customer = await stack.service.createCustomer({
      name: 'Charge Me Inc',
      emails: ['ap@charge.example'],
    });
    const authorization = await stack.service.requestChargeAuthorization(customer.id, {
      transactionLimitCents: 5_000_00,
      expirationDate: '2030-12-31',
      sendEmail: false,
    });
    const workflowId = `charge-authorization-${authorization.id}`;
    await stack.sandbox.authorizeCharge(authorization.id, 'ACH');
    const first = await eventually(async () => {
      const handle = stack.env.client.workflow.getHandle(workflowId);
      return (await handle.describe()).status.name === 'COMPLETED'
        ? ((await handle.result()) as ChargeAuthorizationView)
        : undefined;
    }, 'authorized run closed');
    expect(first.authorization).toMatchObject({
      chargeAuthorizationId: authorization.id,
      customerId: customer.id,
      active: true,
      status: 'ACTIVE',
      methodType: 'ACH',
      transactionLimitCents: 5_000_00,
    });
    expect(first.categories).toEqual(['charge_authorization.authorized']);
    const description = await stack.env.client.workflow.getHandle(workflowId).describe();
    expect(description.type).toBe('chargeAuthorization');
    expect(description.searchAttributes).toMatchObject({
      ServiceStatus: ['ACTIVE'],
      ServiceObjectId: [authorization.id],
      CustomerId: [customer.id],
    });

    await stack.call('POST', `/sandbox/chargeAuthorizations/${authorization.id}/revoke`);
    const second = await eventually(async () => {
      const handle = stack.env.client.workflow.getHandle(workflowId);
      const result =
        (await handle.describe()).status.name === 'COMPLETED'
          ? ((await handle.result()) as ChargeAuthorizationView)
          : undefined;
      return result?.categories[0] === 'charge_authorization.deleted' ? result : undefined;
    }, 'revoked run closed');
    expect(second.authorization).toMatchObject({ active: false, status: 'REVOKED' });
  });

  it('vendor.payout_method_updated: a vendorDeliveryMethods run holding the vendor methods', async () => {
    const vendor = await stack.service.createVendor({ name: 'Onboarded Gardens' });
    const method = await stack.sandbox.submitVendorOnboardingForm(vendor.id, {
      type: 'ACH',
      routingNumber: '011000015',
      accountNumber: '000987654321',
      accountType: 'SAVINGS',
    });
    const result = await eventually(async () => {
      const handle = stack.env.client.workflow.getHandle(`vendor-${vendor.id}`);
      return (await handle.describe()).status.name === 'COMPLETED'
        ? ((await handle.result()) as VendorDeliveryMethodsView)
        : undefined;
    }, 'vendor run closed');
    expect(result.state).toBe('SYNCED');
    expect(result.vendor).toMatchObject({ vendorId: vendor.id, name: 'Onboarded Gardens' });
    expect(result.vendor?.methods).toEqual([
      expect.objectContaining({ id: method.id, type: 'ACH', summary: 'ACH SAVINGS ****4321' }),
    ]);
    expect(JSON.stringify(result)).not.toContain('000987654321');
    const description = await stack.env.client.workflow.getHandle(`vendor-${vendor.id}`).describe();
    expect(description.searchAttributes).toMatchObject({ ServiceStatus: ['ACH'], SyncState: ['SYNCED'] });
  });
});
