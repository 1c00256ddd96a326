import { fromResponse } from '@booksync/service-contract/errors';
import { ApplicationFailure } from '@temporalio/common';
import type { MockActivityEnvironment } from '@temporalio/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDisbursementActivities } from '../../../src/flows/disbursement/activities.js';
import type { SyncDisbursementInput } from '../../../src/flows/disbursement/activities-contract.js';
import { createPaymentActivities } from '../../../src/flows/payment/activities.js';
import { Accounts } from '../../../src/ledger/chart-of-accounts.js';
import {
  type ActivityWorld,
  activityWorld,
  disbursementRecord,
  entryShape,
  paymentRecord,
  quietActivityEnvironment,
  runActivity,
  TODAY,
} from '../fakes.js';

// syncDisbursement through MockActivityEnvironment over a fake service and a real in-memory ledger: the
// payout's entries, and its check against what its payments left at the service (decision “Disbursement statuses”), worked out by hand.

const { ProcessorClearing, PayoutsInTransit, OperatingBank, ProcessingFees, AccountsReceivable, Revenue } =
  Accounts;

let world: ActivityWorld;
let env: MockActivityEnvironment;

beforeEach(() => {
  world = activityWorld();
  env = quietActivityEnvironment({ activityType: 'syncDisbursement' });
  // Two card payments: 10000 with a 320 fee, 5000 with a 175 fee. They leave 9680 + 4825 = 14505.
  world.service.payments.set(
    'pay_a',
    paymentRecord({ id: 'pay_a', amountInCents: 10_000, platformFeeInCents: 320 }),
  );
  world.service.payments.set(
    'pay_b',
    paymentRecord({ id: 'pay_b', amountInCents: 5_000, platformFeeInCents: 175 }),
  );
});
afterEach(() => world.close());

function sync(input: Partial<SyncDisbursementInput> & { disbursementId: string }) {
  const { syncDisbursement } = createDisbursementActivities(world.deps);
  return runActivity(env, syncDisbursement, { eventIds: ['evt_d'], ...input });
}

function setDisbursement(overrides: Parameters<typeof disbursementRecord>[0]): void {
  world.service.disbursements.set(overrides.id, disbursementRecord(overrides));
}

async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApplicationFailure);
  return error as ApplicationFailure;
}

describe('a payout through its states', () => {
  it("PENDING books Payouts In Transit; SUCCEEDED moves it to the bank; the payments' clearing empties", async () => {
    // The payments first, as their own workflows would have booked them.
    const { syncPayment } = createPaymentActivities(world.deps);
    for (const paymentId of ['pay_a', 'pay_b']) {
      await runActivity(quietActivityEnvironment(), syncPayment, {
        paymentId,
        eventIds: [],
        workflowId: 'w',
      });
    }
    expect(await world.ledger.balanceOf(ProcessorClearing)).toBe(14_505);

    setDisbursement({ id: 'dis_1', amountInCents: 14_505, paymentIds: ['pay_a', 'pay_b'] });
    const pending = await sync({ disbursementId: 'dis_1' });

    expect(pending).toEqual({
      disbursementId: 'dis_1',
      status: 'PENDING',
      amountInCents: 14_505,
      paymentIds: ['pay_a', 'pay_b'],
      amountMatchesPayments: true,
      posted: ['disbursement-pending:dis_1'],
      reversed: [],
    });
    expect(await world.balances(ProcessorClearing, PayoutsInTransit)).toEqual({
      [ProcessorClearing]: 0,
      [PayoutsInTransit]: 14_505,
    });

    setDisbursement({
      id: 'dis_1',
      status: 'SUCCEEDED',
      amountInCents: 14_505,
      paymentIds: ['pay_a', 'pay_b'],
      paidAt: '2026-03-07',
    });
    const paid = await sync({ disbursementId: 'dis_1' });

    expect(paid.posted).toEqual(['disbursement-paid:dis_1']);
    expect((await world.ledger.entriesFor({ disbursementId: 'dis_1' })).map(entryShape)).toEqual([
      {
        key: 'disbursement-pending:dis_1',
        date: '2026-03-05',
        lines: [
          [PayoutsInTransit, 14_505],
          [ProcessorClearing, -14_505],
        ],
        reverses: null,
      },
      {
        key: 'disbursement-paid:dis_1',
        date: '2026-03-07',
        lines: [
          [OperatingBank, 14_505],
          [PayoutsInTransit, -14_505],
        ],
        reverses: null,
      },
    ]);
    expect(
      await world.balances(
        OperatingBank,
        PayoutsInTransit,
        ProcessorClearing,
        ProcessingFees,
        AccountsReceivable,
        Revenue,
      ),
    ).toEqual({
      [OperatingBank]: 14_505,
      [PayoutsInTransit]: 0,
      [ProcessorClearing]: 0,
      [ProcessingFees]: 495,
      // The payments are on no link: sales of their own, revenue, nothing receivable.
      [AccountsReceivable]: 0,
      [Revenue]: -15_000,
    });

    // Running it again (a retry, a late duplicate) books nothing more.
    const again = await sync({ disbursementId: 'dis_1' });
    expect([again.posted, again.reversed]).toEqual([[], []]);
    expect(await world.ledger.entriesFor({ disbursementId: 'dis_1' })).toHaveLength(2);
  });

  it("FAILED after PENDING reverses the payout on today's date: the money is back at the service", async () => {
    setDisbursement({ id: 'dis_f', amountInCents: 14_505, paymentIds: ['pay_a', 'pay_b'] });
    await sync({ disbursementId: 'dis_f' });
    setDisbursement({ id: 'dis_f', status: 'FAILED', amountInCents: 14_505, paymentIds: ['pay_a', 'pay_b'] });

    const failed = await sync({ disbursementId: 'dis_f' });

    expect(failed.status).toBe('FAILED');
    expect(failed.reversed).toEqual(['disbursement-pending:dis_f']);
    const reversal = await world.ledger.get('reversal:disbursement-pending:dis_f');
    expect(reversal && entryShape(reversal)).toEqual({
      key: 'reversal:disbursement-pending:dis_f',
      date: TODAY,
      lines: [
        [PayoutsInTransit, -14_505],
        [ProcessorClearing, 14_505],
      ],
      reverses: 'disbursement-pending:dis_f',
    });
    expect(await world.balances(PayoutsInTransit, ProcessorClearing)).toEqual({
      [PayoutsInTransit]: 0,
      [ProcessorClearing]: 0,
    });
  });
});

describe('the payout amount against its payments (decision “Disbursement statuses”)', () => {
  it('flags a payout that is not what its payments left at the service, and books it as the service says', async () => {
    setDisbursement({ id: 'dis_off', amountInCents: 14_000, paymentIds: ['pay_a', 'pay_b'] });

    const result = await sync({ disbursementId: 'dis_off' });

    expect(result.amountMatchesPayments).toBe(false);
    expect(result.posted).toEqual(['disbursement-pending:dis_off']);
    expect(await world.ledger.balanceOf(PayoutsInTransit)).toBe(14_000);
  });

  it('counts a refund made before the batch day, and not a voided one', async () => {
    world.service.payments.set(
      'pay_a',
      paymentRecord({
        id: 'pay_a',
        status: 'REFUNDED',
        amountInCents: 10_000,
        platformFeeInCents: 320,
        refunds: [
          { id: 're_early', amountCents: 1_000, refundDate: '2026-03-04T10:00:00.000Z', voided: false },
          { id: 're_void', amountCents: 700, refundDate: '2026-03-04T11:00:00.000Z', voided: true },
        ],
      }),
    );
    // 14505 - 1000 (the voided 700 does not count).
    setDisbursement({ id: 'dis_r', amountInCents: 13_505, paymentIds: ['pay_a', 'pay_b'] });
    expect((await sync({ disbursementId: 'dis_r' })).amountMatchesPayments).toBe(true);

    setDisbursement({ id: 'dis_r2', amountInCents: 12_805, paymentIds: ['pay_a', 'pay_b'] });
    expect((await sync({ disbursementId: 'dis_r2' })).amountMatchesPayments).toBe(false);
  });

  it('places a refund of the batch day by batchedAt, and accepts either reading without it', async () => {
    world.service.payments.set(
      'pay_a',
      paymentRecord({
        id: 'pay_a',
        status: 'REFUNDED',
        amountInCents: 10_000,
        platformFeeInCents: 320,
        refunds: [
          { id: 're_day', amountCents: 1_000, refundDate: '2026-03-05T10:00:00.000Z', voided: false },
        ],
      }),
    );
    // Batched after the refund: the payout is 14505 - 1000.
    setDisbursement({ id: 'dis_day', amountInCents: 13_505, paymentIds: ['pay_a', 'pay_b'] });

    expect(
      (await sync({ disbursementId: 'dis_day', batchedAt: '2026-03-05T12:00:00.000Z' }))
        .amountMatchesPayments,
    ).toBe(true);
    // Had the batch been cut before the refund, the refund would lower a later payout instead.
    expect(
      (await sync({ disbursementId: 'dis_day', batchedAt: '2026-03-05T09:00:00.000Z' }))
        .amountMatchesPayments,
    ).toBe(false);
    expect((await sync({ disbursementId: 'dis_day' })).amountMatchesPayments).toBe(true);
  });
});

describe('failures, as the activity hands them to Temporal', () => {
  it('a 404 for the disbursement is a non-retryable ServiceNotFoundError and books nothing', async () => {
    world.service.fail('getDisbursement', fromResponse(404, '{"error":"disbursement not found"}'));

    const failure = await failureOf(sync({ disbursementId: 'dis_gone' }));

    expect(failure.type).toBe('ServiceNotFoundError');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.details).toEqual([{ status: 404, code: null }]);
    expect(await world.ledger.allEntries()).toEqual([]);
  });

  it('a 503 while reading a payment is retryable; the retry converges without booking twice', async () => {
    setDisbursement({ id: 'dis_503', amountInCents: 14_505, paymentIds: ['pay_a', 'pay_b'] });
    world.service.fail('getPayment', fromResponse(503, '{"error":"try later"}'), 'pay_b');

    const failure = await failureOf(sync({ disbursementId: 'dis_503' }));

    expect(failure.type).toBe('ServiceServerError');
    expect(failure.nonRetryable).toBe(false);
    // The payout was booked before the payments were read for the amount check.
    expect((await world.ledger.allEntries()).map((e) => e.key)).toEqual(['disbursement-pending:dis_503']);

    world.service.heal('getPayment');
    const retried = await sync({ disbursementId: 'dis_503' });
    expect(retried.posted).toEqual([]);
    expect(retried.amountMatchesPayments).toBe(true);
    expect(await world.ledger.balanceOf(PayoutsInTransit)).toBe(14_505);
  });

  it('an unknown disbursement status is a non-retryable UnmappableStateError', async () => {
    setDisbursement({ id: 'dis_odd', status: 'IN_REVIEW', amountInCents: 100, paymentIds: [] });

    const failure = await failureOf(sync({ disbursementId: 'dis_odd' }));

    expect(failure.type).toBe('UnmappableStateError');
    expect(failure.nonRetryable).toBe(true);
    expect(await world.ledger.allEntries()).toEqual([]);
  });
});
