import { afterEach, describe, expect, it } from 'vitest';
import { createDisbursementActivities } from '../../../src/flows/disbursement/activities.js';
import { syncDisbursementBooks } from '../../../src/flows/in-activity/link-and-payout-books.js';
import { Accounts } from '../../../src/ledger/chart-of-accounts.js';
import {
  type ActivityWorld,
  activityWorld,
  disbursementRecord,
  quietActivityEnvironment,
  runActivity,
} from '../fakes.js';

// The worker's PAYOUT_BANK_ACCOUNTS reach the payout's books through the activities' dependencies: the
// event-driven sync and reconciliation's (and the backfill's) both receive a payout to a named account in
// Payout Bank, any other in Operating Bank.

const { OperatingBank, PayoutBank, PayoutsInTransit } = Accounts;

let world: ActivityWorld;
afterEach(() => world.close());

const paidTo = (id: string, lastFour: string) =>
  disbursementRecord({
    id,
    status: 'SUCCEEDED',
    amountInCents: 14_505,
    paymentIds: [],
    paidAt: '2026-03-07',
    accountNumberLastFour: lastFour,
  });

describe('payouts and PAYOUT_BANK_ACCOUNTS in the activities', () => {
  it('syncDisbursement receives a payout to a named account in Payout Bank, another in Operating Bank', async () => {
    world = activityWorld({ payoutBankAccounts: ['4321'] });
    world.service.disbursements.set('dis_pb', paidTo('dis_pb', '4321'));
    world.service.disbursements.set('dis_op', paidTo('dis_op', '6789'));
    const { syncDisbursement } = createDisbursementActivities(world.deps);
    for (const disbursementId of ['dis_pb', 'dis_op']) {
      const result = await runActivity(quietActivityEnvironment(), syncDisbursement, {
        disbursementId,
        eventIds: ['evt_d'],
      });
      expect(result.posted).toEqual([
        `disbursement-pending:${disbursementId}`,
        `disbursement-paid:${disbursementId}`,
      ]);
    }
    expect(await world.balances(PayoutBank, OperatingBank, PayoutsInTransit)).toEqual({
      [PayoutBank]: 14_505,
      [OperatingBank]: 14_505,
      [PayoutsInTransit]: 0,
    });
  });

  it('reconciliation books the same; without the setting, every payout is the Operating Bank’s', async () => {
    world = activityWorld({ payoutBankAccounts: ['4321'] });
    await syncDisbursementBooks(world.deps, paidTo('dis_pb', '4321'), 'reconciliation');
    expect(await world.balances(PayoutBank, OperatingBank)).toEqual({
      [PayoutBank]: 14_505,
      [OperatingBank]: 0,
    });
    world.close();

    world = activityWorld();
    await syncDisbursementBooks(world.deps, paidTo('dis_pb', '4321'), 'reconciliation');
    expect(await world.balances(PayoutBank, OperatingBank)).toEqual({
      [PayoutBank]: 0,
      [OperatingBank]: 14_505,
    });
  });
});
