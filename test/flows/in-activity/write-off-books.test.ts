import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { syncInvoiceBooks } from '../../../src/flows/in-activity/invoice-books.js';
import { Accounts } from '../../../src/ledger/chart-of-accounts.js';
import { type ActivityWorld, activityWorld, linkRecord } from '../fakes.js';

// The lowering of a written-off link books as Bad Debt from whichever flow fetches the link (the link's
// workflow, a payment's, the reconciliation, a resync: all book the invoice through syncInvoiceBooks), as
// long as the write-off was recorded before the lowering; a withdrawn one covers nothing.

const { AccountsReceivable, BadDebt, DiscountsAndWriteOffs } = Accounts;

let world: ActivityWorld;
beforeEach(() => {
  world = activityWorld();
});
afterEach(() => world.close());

const invoiced = linkRecord({ id: 'pl_wo', requestedAmountCents: 10_000, completedAmountCents: 2_500 });
const lowered = { ...invoiced, requestedAmountCents: 2_500, status: 'PAID' };

describe('the lowering of a written-off link, booked by the invoice flow', () => {
  it('a write-off recorded, the link lowered: invoice-adjustment Dr Bad Debt / Cr A/R, dated today; once', async () => {
    await syncInvoiceBooks(world.deps, invoiced);
    await world.ledger.recordWriteOff({
      id: 'wo-1',
      paymentLinkId: 'pl_wo',
      amountCents: 7_500,
      reason: null,
    });
    expect((await syncInvoiceBooks(world.deps, lowered)).posted).toEqual(['invoice-adjustment:pl_wo:1']);
    const entry = await world.ledger.get('invoice-adjustment:pl_wo:1');
    expect(entry?.date).toBe(world.deps.today?.());
    expect(entry?.lines.map((l) => [l.account, l.amountCents])).toEqual([
      [AccountsReceivable, -7_500],
      [BadDebt, 7_500],
    ]);
    expect((await syncInvoiceBooks(world.deps, lowered)).posted).toEqual([]);
    expect(await world.balances(AccountsReceivable, BadDebt, DiscountsAndWriteOffs)).toEqual({
      [AccountsReceivable]: 2_500,
      [BadDebt]: 7_500,
      [DiscountsAndWriteOffs]: 0,
    });
  });

  it('withdrawn (the link was never lowered by it), a later lowering is a discount', async () => {
    await syncInvoiceBooks(world.deps, invoiced);
    await world.ledger.recordWriteOff({
      id: 'wo-2',
      paymentLinkId: 'pl_wo',
      amountCents: 7_500,
      reason: null,
    });
    await world.ledger.withdrawWriteOff('wo-2');
    await syncInvoiceBooks(world.deps, lowered);
    expect(await world.balances(BadDebt, DiscountsAndWriteOffs)).toEqual({
      [BadDebt]: 0,
      [DiscountsAndWriteOffs]: 7_500,
    });
  });

  it('a lowering that is part write-off, part a discount given: two adjustments in one sync, each one account against A/R', async () => {
    await syncInvoiceBooks(world.deps, invoiced);
    await world.ledger.recordWriteOff({
      id: 'wo-3',
      paymentLinkId: 'pl_wo',
      amountCents: 5_000,
      reason: null,
    });
    // The link lowered by 7,500 at the service: 5,000 the write-off, 2,500 a discount given in the dashboard.
    expect((await syncInvoiceBooks(world.deps, lowered)).posted).toEqual([
      'invoice-adjustment:pl_wo:1',
      'invoice-adjustment:pl_wo:2',
    ]);
    const lines = async (key: string) =>
      (await world.ledger.get(key))?.lines.map((l) => [l.account, l.amountCents]);
    expect(await lines('invoice-adjustment:pl_wo:1')).toEqual([
      [AccountsReceivable, -5_000],
      [BadDebt, 5_000],
    ]);
    expect(await lines('invoice-adjustment:pl_wo:2')).toEqual([
      [AccountsReceivable, -2_500],
      [DiscountsAndWriteOffs, 2_500],
    ]);
    expect((await syncInvoiceBooks(world.deps, lowered)).posted).toEqual([]);
    expect(await world.balances(AccountsReceivable, BadDebt, DiscountsAndWriteOffs)).toEqual({
      [AccountsReceivable]: 2_500,
      [BadDebt]: 5_000,
      [DiscountsAndWriteOffs]: 2_500,
    });
  });
});
