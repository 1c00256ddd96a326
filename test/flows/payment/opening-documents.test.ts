import type { MockActivityEnvironment } from '@temporalio/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { syncInvoiceBooks } from '../../../src/flows/in-activity/invoice-books.js';
import { createPaymentActivities } from '../../../src/flows/payment/activities.js';
import { Accounts } from '../../../src/ledger/chart-of-accounts.js';
import {
  type ActivityWorld,
  activityWorld,
  entryShape,
  linkRecord,
  paymentRecord,
  quietActivityEnvironment,
  runActivity,
} from '../fakes.js';

// An invoice still owed when the books open is an opening document: what it owed that day, against Opening
// Balances, dated the day before; its payments from the opening day on settle it; nothing of its history
// before the opening is booked. Expected figures worked out by hand.

const { AccountsReceivable, OpeningBalances, ProcessorClearing, Revenue } = Accounts;
const opensOn = '2026-03-10';

let world: ActivityWorld;
let env: MockActivityEnvironment;

beforeEach(async () => {
  world = activityWorld();
  env = quietActivityEnvironment({ activityType: 'syncPayment' });
  await world.ledger.openBooks(opensOn);
});
afterEach(() => world.close());

const sync = (paymentId: string) =>
  runActivity(env, createPaymentActivities(world.deps).syncPayment, {
    paymentId,
    eventIds: ['evt_1'],
    workflowId: `payment-${paymentId}`,
  });

describe('an invoice of last period, owed when the books open', () => {
  // 100.00 invoiced; 30.00 paid by ACH on 3 March (before the opening), 70.00 on 15 March.
  const before = paymentRecord({
    id: 'pay_before',
    amountInCents: 3_000,
    paymentLinkId: 'pl_old',
    createdAt: Date.UTC(2026, 2, 3, 12),
  });
  const after = paymentRecord({
    id: 'pay_after',
    amountInCents: 7_000,
    paymentLinkId: 'pl_old',
    createdAt: Date.UTC(2026, 2, 15, 12),
  });

  it('a payment after the opening books the opening document of the remainder, then settles it: no revenue', async () => {
    world.service.links.set(
      'pl_old',
      linkRecord({ id: 'pl_old', payments: [before, after], completedAmountCents: 10_000, status: 'PAID' }),
    );
    world.service.payments.set('pay_after', after);
    const result = await sync('pay_after');
    expect(result.posted).toEqual(['payment:pay_after']);

    const booked = (await world.ledger.entriesFor({ paymentLinkId: 'pl_old' })).map(entryShape);
    expect(booked).toEqual([
      {
        key: 'invoice:pl_old',
        date: '2026-03-09',
        lines: [
          [AccountsReceivable, 7_000],
          [OpeningBalances, -7_000],
        ],
        reverses: null,
      },
      {
        key: 'payment:pay_after',
        date: '2026-03-15',
        lines: [
          [ProcessorClearing, 7_000],
          [AccountsReceivable, -7_000],
        ],
        reverses: null,
      },
    ]);
    expect(await world.ledger.get('payment:pay_before')).toBeNull();
    expect(await world.balances(AccountsReceivable, Revenue, OpeningBalances)).toEqual({
      [AccountsReceivable]: 0,
      [Revenue]: 0,
      [OpeningBalances]: -7_000,
    });
  });

  it("at every step the invoice's open amount is the service's remainder, and a raise after the opening is revenue of the raise only", async () => {
    const owed = linkRecord({ id: 'pl_old', payments: [before], completedAmountCents: 3_000 });
    await syncInvoiceBooks(world.deps, owed, { openingDocument: true });
    const open = async () =>
      (await world.ledger.openItems('receivable')).find((i) => i.documentId === 'pl_old')?.openCents;
    expect(await open()).toBe(owed.requestedAmountCents - owed.completedAmountCents);

    // The link raised to 120.00 after the opening: 20.00 more is owed, and only that is this period's revenue.
    const raised = { ...owed, requestedAmountCents: 12_000 };
    const adjusted = await syncInvoiceBooks(world.deps, raised);
    expect(adjusted.posted).toEqual(['invoice-adjustment:pl_old:1']);
    expect(await open()).toBe(raised.requestedAmountCents - raised.completedAmountCents);
    expect(await world.balances(Revenue)).toEqual({ [Revenue]: -2_000 });

    // Synced again: nothing more.
    expect((await syncInvoiceBooks(world.deps, raised)).posted).toEqual([]);
  });

  it('an invoice paid in full before the opening books nothing', async () => {
    const settled = linkRecord({
      id: 'pl_paid',
      payments: [{ ...before, id: 'pay_full', amountInCents: 10_000, paymentLinkId: 'pl_paid' }],
      completedAmountCents: 10_000,
      status: 'PAID',
    });
    expect((await syncInvoiceBooks(world.deps, settled, { openingDocument: true })).posted).toEqual([]);
    expect(await world.ledger.entriesFor({ paymentLinkId: 'pl_paid' })).toEqual([]);
  });
});
