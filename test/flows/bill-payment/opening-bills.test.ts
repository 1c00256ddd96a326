import { Bill, BillPayment } from '@booksync/service-contract/schemas/index';
import type { MockActivityEnvironment } from '@temporalio/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBillPaymentActivities } from '../../../src/flows/bill-payment/activities.js';
import { Accounts } from '../../../src/ledger/chart-of-accounts.js';
import { resyncDiff } from '../../../src/resync/plan.js';
import type { ServiceClient } from '../../../src/service/client.js';
import {
  type ActivityWorld,
  activityWorld,
  entryShape,
  quietActivityEnvironment,
  runActivity,
} from '../fakes.js';

// The service lists no bills: booksync learns a bill when a payment of it arrives. A bill of last period
// still owed when the books open is then its opening document (what it owed that day, against Opening
// Balances, dated the day before), never last period's expense booked now; the payment after the opening
// settles it; a payment sent before the opening is not booked. Figures worked out by hand.

const { AccountsPayable, BillExpenses, OpeningBalances, OperatingBank } = Accounts;
const opensOn = '2026-03-10';

const bills = new Map<string, Bill>();
const billPayments = new Map<string, BillPayment>();
const service = {
  async getBill(id: string) {
    const bill = bills.get(id);
    if (!bill) throw new Error(`no bill ${id}`);
    return Bill.parse(bill);
  },
  async getBillPayment(id: string) {
    const billPayment = billPayments.get(id);
    if (!billPayment) throw new Error(`no bill payment ${id}`);
    return BillPayment.parse(billPayment);
  },
} as unknown as ServiceClient;

const billRecord = (overrides: Partial<Bill> & Pick<Bill, 'id'>): Bill => ({
  vendorId: 'ven_1',
  amountCents: 50_000,
  dueDate: '2026-03-20',
  invoiceNumber: 'V-100',
  status: 'OPEN',
  createdAt: '2026-02-20T15:00:00.000Z',
  ...overrides,
});
const achPayment = (overrides: Partial<BillPayment> & Pick<BillPayment, 'id' | 'billId'>): BillPayment => ({
  vendorId: 'ven_1',
  amountCents: 50_000,
  status: 'PENDING',
  deliveryMethodId: 'dm_1',
  deliveryMethodType: 'ACH',
  sentAt: '2026-03-15T12:00:00.000Z',
  completedAt: null,
  failureReason: null,
  createdAt: '2026-03-14T12:00:00.000Z',
  ...overrides,
});

let world: ActivityWorld;
let env: MockActivityEnvironment;

beforeEach(async () => {
  bills.clear();
  billPayments.clear();
  world = activityWorld({ service });
  env = quietActivityEnvironment({ activityType: 'syncBillPayment' });
  await world.ledger.openBooks(opensOn);
});
afterEach(() => world.close());

const sync = (billPaymentId: string) =>
  runActivity(env, createBillPaymentActivities(world.deps).syncBillPayment, {
    billPaymentId,
    eventIds: ['evt_1'],
  });

const expensesBeforeOpening = async (billId: string) =>
  (await world.ledger.entriesFor({ billId })).filter(
    (e) => e.date < opensOn && e.lines.some((l) => l.account === BillExpenses),
  );

describe('a bill of last period, owed when the books open', () => {
  it("its payment after the opening books the bill's opening document, then settles it: no Bill Expenses", async () => {
    bills.set('bill_old', billRecord({ id: 'bill_old' }));
    billPayments.set('bp_after', achPayment({ id: 'bp_after', billId: 'bill_old' }));
    const result = await sync('bp_after');
    expect(result.posted).toEqual(['bill-payment-sent:bp_after', 'bill-payment-paid:bp_after']);

    const bill = (await world.ledger.entriesFor({ billId: 'bill_old' })).find(
      (e) => e.key === 'bill:bill_old',
    );
    expect(bill && entryShape(bill)).toEqual({
      key: 'bill:bill_old',
      date: '2026-03-09',
      lines: [
        [OpeningBalances, 50_000],
        [AccountsPayable, -50_000],
      ],
      reverses: null,
    });
    expect(await expensesBeforeOpening('bill_old')).toEqual([]);
    expect(await world.balances(AccountsPayable, BillExpenses, OpeningBalances, OperatingBank)).toEqual({
      [AccountsPayable]: 0,
      [BillExpenses]: 0,
      [OpeningBalances]: 50_000,
      [OperatingBank]: -50_000,
    });
    // Synced again (another event of the payment): nothing more, the opening document stays.
    expect((await sync('bp_after')).posted).toEqual([]);
    const entries = await world.ledger.entriesFor({ billId: 'bill_old' });
    expect(entries.filter((e) => e.reverses)).toEqual([]);
    // A resync leaves it too.
    const resync = resyncDiff(
      {
        links: [],
        payments: [],
        disbursements: [],
        checkDeposits: [],
        bills: [...bills.values()],
        billPayments: [...billPayments.values()],
        entries,
        opensOn,
      },
      { since: null, timeZone: 'UTC' },
    );
    expect([resync.toReverse, resync.toPost, resync.unchanged]).toEqual([[], [], 3]);
  });

  it('partly paid by a payment sent before the opening: the rest is owed, and that payment is not booked', async () => {
    bills.set('bill_part', billRecord({ id: 'bill_part' }));
    billPayments.set(
      'bp_before',
      achPayment({
        id: 'bp_before',
        billId: 'bill_part',
        amountCents: 20_000,
        sentAt: '2026-03-03T12:00:00.000Z',
        status: 'SUCCEEDED',
        completedAt: '2026-03-05T12:00:00.000Z',
      }),
    );
    billPayments.set('bp_rest', achPayment({ id: 'bp_rest', billId: 'bill_part', amountCents: 30_000 }));

    expect((await sync('bp_before')).posted).toEqual([]);
    expect((await world.ledger.get('bill:bill_part'))?.lines).toEqual([
      { account: OpeningBalances, amountCents: 30_000 },
      { account: AccountsPayable, amountCents: -30_000 },
    ]);
    expect(await world.ledger.entriesFor({ billPaymentId: 'bp_before' })).toEqual([]);

    expect((await sync('bp_rest')).posted).toEqual([
      'bill-payment-sent:bp_rest',
      'bill-payment-paid:bp_rest',
    ]);
    expect(await expensesBeforeOpening('bill_part')).toEqual([]);
    expect(await world.balances(AccountsPayable, BillExpenses)).toEqual({
      [AccountsPayable]: 0,
      [BillExpenses]: 0,
    });
  });

  it('paid in full before the opening: nothing is booked', async () => {
    bills.set('bill_paid', billRecord({ id: 'bill_paid', status: 'PAID' }));
    billPayments.set(
      'bp_full',
      achPayment({ id: 'bp_full', billId: 'bill_paid', sentAt: '2026-03-02T12:00:00.000Z' }),
    );
    expect((await sync('bp_full')).posted).toEqual([]);
    expect(await world.ledger.entriesFor({ billId: 'bill_paid' })).toEqual([]);
  });

  it('a bill created after the opening is booked as any bill, on its creation day', async () => {
    bills.set('bill_new', billRecord({ id: 'bill_new', createdAt: '2026-03-11T10:00:00.000Z' }));
    billPayments.set('bp_new', achPayment({ id: 'bp_new', billId: 'bill_new' }));
    await sync('bp_new');
    expect((await world.ledger.get('bill:bill_new'))?.date).toBe('2026-03-11');
    expect(await world.balances(AccountsPayable, BillExpenses, OpeningBalances)).toEqual({
      [AccountsPayable]: 0,
      [BillExpenses]: 50_000,
      [OpeningBalances]: 0,
    });
  });
});
