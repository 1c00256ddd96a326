import { fromResponse } from '@booksync/service-contract/errors';
import { ApplicationFailure } from '@temporalio/common';
import type { MockActivityEnvironment } from '@temporalio/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPaymentActivities } from '../../../src/flows/payment/activities.js';
import type { SyncPaymentInput } from '../../../src/flows/payment/activities-contract.js';
import { Accounts } from '../../../src/ledger/chart-of-accounts.js';
import {
  type ActivityWorld,
  achMethod,
  activityWorld,
  entryShape,
  linkRecord,
  paymentRecord,
  quietActivityEnvironment,
  runActivity,
  TODAY,
} from '../fakes.js';

// syncPayment through MockActivityEnvironment: the real activity over a fake service and a real in-memory
// ledger. Every expected entry and balance below is worked out by hand from the fixture.

const { ProcessorClearing, AccountsReceivable, ProcessingFees, Revenue, Refunds, SurchargeIncome } = Accounts;

let world: ActivityWorld;
let env: MockActivityEnvironment;

beforeEach(() => {
  world = activityWorld();
  env = quietActivityEnvironment({ activityType: 'syncPayment' });
});
afterEach(() => world.close());

function sync(paymentId: string) {
  const { syncPayment } = createPaymentActivities(world.deps);
  const input: SyncPaymentInput = { paymentId, eventIds: ['evt_1'], workflowId: `payment-${paymentId}` };
  return runActivity(env, syncPayment, input);
}

async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApplicationFailure);
  return error as ApplicationFailure;
}

describe('a card payment with an absorbed fee', () => {
  beforeEach(() => {
    // $100.00 charged, $3.20 card fee absorbed by the business; made 2026-03-03 15:30 UTC.
    world.service.payments.set(
      'pay_card',
      paymentRecord({ id: 'pay_card', amountInCents: 10_000, platformFeeInCents: 320 }),
    );
  });

  it('books the payment (on no link: a sale of its own) and its fee, with the lines and balances of the mapping table', async () => {
    const result = await sync('pay_card');

    expect(result).toEqual({
      paymentId: 'pay_card',
      status: 'SUCCEEDED',
      methodType: 'Card',
      paymentLinkId: null,
      customerId: null,
      amountInCents: 10_000,
      madeAt: '2026-03-03T15:30:00.000Z',
      posted: ['sale:pay_card', 'payment-fee:pay_card'],
      reversed: [],
    });
    const booked = await world.ledger.entriesFor({ paymentId: 'pay_card' });
    expect(booked.map(entryShape)).toEqual([
      {
        key: 'sale:pay_card',
        date: '2026-03-03',
        lines: [
          [ProcessorClearing, 10_000],
          [Revenue, -10_000],
        ],
        reverses: null,
      },
      {
        key: 'payment-fee:pay_card',
        date: '2026-03-03',
        lines: [
          [ProcessingFees, 320],
          [ProcessorClearing, -320],
        ],
        reverses: null,
      },
    ]);
    expect(await world.balances(ProcessorClearing, AccountsReceivable, Revenue, ProcessingFees)).toEqual({
      [ProcessorClearing]: 9_680,
      [AccountsReceivable]: 0,
      [Revenue]: -10_000,
      [ProcessingFees]: 320,
    });
    expect((await world.ledger.trialBalance()).balanced).toBe(true);
  });

  it('books once when the activity runs twice (a retry, a duplicate event)', async () => {
    await sync('pay_card');
    const second = await sync('pay_card');

    expect(second.posted).toEqual([]);
    expect(second.reversed).toEqual([]);
    expect((await world.ledger.allEntries()).map((e) => e.key)).toEqual([
      'sale:pay_card',
      'payment-fee:pay_card',
    ]);
    expect(await world.ledger.balanceOf(ProcessorClearing)).toBe(9_680);
  });

  it('books a refund made later, and only the refund', async () => {
    await sync('pay_card');
    world.service.payments.set(
      'pay_card',
      paymentRecord({
        id: 'pay_card',
        status: 'REFUNDED',
        amountInCents: 10_000,
        platformFeeInCents: 320,
        refunds: [{ id: 're_1', amountCents: 2_500, refundDate: '2026-03-10T09:00:00.000Z', voided: false }],
      }),
    );

    const result = await sync('pay_card');

    expect(result.status).toBe('REFUNDED');
    expect(result.posted).toEqual(['refund:re_1']);
    expect((await world.ledger.get('refund:re_1'))?.lines.map((l) => [l.account, l.amountCents])).toEqual([
      [Refunds, 2_500],
      [ProcessorClearing, -2_500],
    ]);
    // 10000 - 320 - 2500 left at the service.
    expect(await world.ledger.balanceOf(ProcessorClearing)).toBe(7_180);
    expect(await world.ledger.balanceOf(Refunds)).toBe(2_500);
  });
});

describe('an ACH payment', () => {
  it("is booked while PENDING, and reversed on today's date once the service says FAILED (a return)", async () => {
    world.service.payments.set(
      'pay_ach',
      paymentRecord({ id: 'pay_ach', status: 'PENDING', amountInCents: 25_000, paymentMethod: achMethod }),
    );
    const pending = await sync('pay_ach');
    expect(pending.methodType).toBe('ACH');
    expect(pending.posted).toEqual(['sale:pay_ach']);
    expect(await world.ledger.balanceOf(ProcessorClearing)).toBe(25_000);

    world.service.payments.set(
      'pay_ach',
      paymentRecord({ id: 'pay_ach', status: 'FAILED', amountInCents: 25_000, paymentMethod: achMethod }),
    );
    const failed = await sync('pay_ach');

    expect(failed.status).toBe('FAILED');
    expect(failed.posted).toEqual([]);
    expect(failed.reversed).toEqual(['sale:pay_ach']);
    const booked = await world.ledger.entriesFor({ paymentId: 'pay_ach' });
    expect(booked.map(entryShape)).toEqual([
      {
        key: 'sale:pay_ach',
        date: '2026-03-03',
        lines: [
          [ProcessorClearing, 25_000],
          [Revenue, -25_000],
        ],
        reverses: null,
      },
      {
        key: 'reversal:sale:pay_ach',
        date: TODAY,
        lines: [
          [ProcessorClearing, -25_000],
          [Revenue, 25_000],
        ],
        reverses: 'sale:pay_ach',
      },
    ]);
    expect(await world.ledger.isReversed('sale:pay_ach')).toBe(true);
    expect(await world.balances(ProcessorClearing, Revenue)).toEqual({
      [ProcessorClearing]: 0,
      [Revenue]: 0,
    });

    // A later sync of the same FAILED payment changes nothing.
    const again = await sync('pay_ach');
    expect(again.reversed).toEqual([]);
    expect(await world.ledger.allEntries()).toHaveLength(2);
  });
});

describe('a card payment the payer paid the fee of, then disputed (FAILED: a chargeback)', () => {
  // 100.00 on no link (a sale), 103.20 charged: the whole fee of 3.20 passed to the payer.
  const card = (status: string) =>
    paymentRecord({
      id: 'pay_cb',
      status,
      amountInCents: 10_000,
      chargedAmountInCents: 10_320,
      platformFeeInCents: 0,
      fees: [{ type: 'CREDIT_CARD_FEE', amountInCents: 320 }],
    });

  it('followed step by step or seen only disputed: the sale and surcharge reversed today, the fee kept', async () => {
    world.service.payments.set('pay_cb', card('SUCCEEDED'));
    const made = await sync('pay_cb');
    expect(made.posted).toEqual(['sale:pay_cb', 'payment-surcharge:pay_cb', 'surcharge-fee:pay_cb']);
    expect(await world.ledger.balanceOf(ProcessorClearing)).toBe(10_000);

    world.service.payments.set('pay_cb', card('FAILED'));
    const disputed = await sync('pay_cb');
    expect(disputed.reversed).toEqual(['sale:pay_cb', 'payment-surcharge:pay_cb']);
    const kept = { [ProcessorClearing]: -320, [Revenue]: 0, [ProcessingFees]: 320, [SurchargeIncome]: 0 };
    expect(await world.balances(ProcessorClearing, Revenue, ProcessingFees, SurchargeIncome)).toEqual(kept);
    const stepByStep = (await world.ledger.entriesFor({ paymentId: 'pay_cb' })).map(entryShape);
    world.close();

    world = activityWorld();
    world.service.payments.set('pay_cb', card('FAILED'));
    const firstLook = await sync('pay_cb');
    expect(firstLook.posted).toEqual(['sale:pay_cb', 'payment-surcharge:pay_cb', 'surcharge-fee:pay_cb']);
    expect(firstLook.reversed).toEqual(['sale:pay_cb', 'payment-surcharge:pay_cb']);
    expect((await world.ledger.entriesFor({ paymentId: 'pay_cb' })).map(entryShape)).toEqual(stepByStep);
    expect(await world.balances(ProcessorClearing, Revenue, ProcessingFees, SurchargeIncome)).toEqual(kept);
  });
});

describe("a payment's reversal is dated by the service, and its history does not depend on when booksync looked", () => {
  const pending = () =>
    paymentRecord({ id: 'pay_r', status: 'PENDING', amountInCents: 25_000, paymentMethod: achMethod });
  const failed = () =>
    paymentRecord({ id: 'pay_r', status: 'FAILED', amountInCents: 25_000, paymentMethod: achMethod });
  const returnEvent = { category: 'payment.failed', createdAt: '2026-04-01T03:50:00.000Z' };

  function syncIn(timeZone: string, events: SyncPaymentInput['events']) {
    const { syncPayment } = createPaymentActivities({ ...world.deps, timeZone });
    return runActivity(env, syncPayment, {
      paymentId: 'pay_r',
      eventIds: ['evt_r'],
      workflowId: 'payment-pay_r',
      ...(events ? { events } : {}),
    });
  }

  it("an ACH return at 23:50 on 31 March in New York, synced on another day, is dated 31 March (the event's created_at in BOOKS_TIME_ZONE)", async () => {
    world.service.payments.set('pay_r', pending());
    await syncIn('America/New_York', [{ category: 'payment.made', createdAt: '2026-03-03T15:30:00.000Z' }]);
    world.service.payments.set('pay_r', failed());
    const result = await syncIn('America/New_York', [
      { category: 'payment.made', createdAt: '2026-03-03T15:30:00.000Z' },
      returnEvent,
    ]);
    expect(result.reversed).toEqual(['sale:pay_r']);
    const reversal = await world.ledger.get('reversal:sale:pay_r');
    // In UTC the same event is already 1 April, and the sync ran on TODAY: the zone of the books decides.
    expect(reversal?.date).toBe('2026-03-31');
  });

  it('seen only in its final state (FAILED), it books the same entries, keys and dates as followed step by step', async () => {
    world.service.payments.set('pay_r', pending());
    await syncIn('UTC', [{ category: 'payment.made', createdAt: '2026-03-03T15:30:00.000Z' }]);
    world.service.payments.set('pay_r', failed());
    await syncIn('UTC', [returnEvent]);
    const stepByStep = (await world.ledger.entriesFor({ paymentId: 'pay_r' })).map(entryShape);
    world.close();

    world = activityWorld();
    world.service.payments.set('pay_r', failed());
    const late = await syncIn('UTC', [returnEvent]);
    expect(late.posted).toEqual(['sale:pay_r']);
    expect(late.reversed).toEqual(['sale:pay_r']);
    const seenLate = (await world.ledger.entriesFor({ paymentId: 'pay_r' })).map(entryShape);
    expect(seenLate).toEqual(stepByStep);
    expect(seenLate.map((e) => [e.key, e.date])).toEqual([
      ['sale:pay_r', '2026-03-03'],
      ['reversal:sale:pay_r', '2026-04-01'],
    ]);
    // Synced again (the return window's last look, a reconciliation): nothing more.
    const again = await syncIn('UTC', undefined);
    expect([again.posted, again.reversed]).toEqual([[], []]);
    expect(await world.ledger.allEntries()).toHaveLength(2);
  });

  it("a card charge cancelled before settlement (voided refund), seen late, books the sale and fee and their reversals on the void event's day", async () => {
    world.service.payments.set(
      'pay_r',
      paymentRecord({
        id: 'pay_r',
        amountInCents: 10_000,
        platformFeeInCents: 320,
        refunds: [{ id: 're_v', amountCents: 10_000, refundDate: '2026-03-04T09:00:00.000Z', voided: true }],
      }),
    );
    const result = await syncIn('UTC', [
      { category: 'payment.voided', createdAt: '2026-03-04T09:00:05.000Z' },
    ]);
    expect(result.posted).toEqual(['sale:pay_r', 'payment-fee:pay_r']);
    expect([...result.reversed].sort()).toEqual(['payment-fee:pay_r', 'sale:pay_r']);
    const booked = (await world.ledger.entriesFor({ paymentId: 'pay_r' })).map((e) => [e.key, e.date]);
    expect(booked).toEqual(
      expect.arrayContaining([
        ['sale:pay_r', '2026-03-03'],
        ['payment-fee:pay_r', '2026-03-03'],
        ['reversal:sale:pay_r', '2026-03-04'],
        ['reversal:payment-fee:pay_r', '2026-03-04'],
      ]),
    );
    expect(await world.balances(ProcessorClearing, Revenue, ProcessingFees)).toEqual({
      [ProcessorClearing]: 0,
      [Revenue]: 0,
      [ProcessingFees]: 0,
    });
  });

  it('without its event (reconciliation), a return is dated the day booksync saw it: the payment record carries no time for it', async () => {
    world.service.payments.set('pay_r', failed());
    await syncIn('UTC', undefined);
    expect((await world.ledger.get('reversal:sale:pay_r'))?.date).toBe(TODAY);
  });
});

/** A $100.00 link of customer cus_9, paid in full by one card payment with the given fee. */
function paymentOnLink(linkId: string, paymentId: string, feeCents: number) {
  world.service.links.set(
    linkId,
    linkRecord({ id: linkId, requestedAmountCents: 10_000, customerId: 'cus_9' }),
  );
  world.service.payments.set(
    paymentId,
    paymentRecord({
      id: paymentId,
      amountInCents: 10_000,
      platformFeeInCents: feeCents,
      paymentLinkId: linkId,
    }),
  );
}

describe('a payment on a payment link', () => {
  it("books the link's invoice first (dated today), so the payment settles the receivable", async () => {
    paymentOnLink('pl_1', 'pay_link', 0);

    const result = await sync('pay_link');

    expect(result.paymentLinkId).toBe('pl_1');
    expect(result.customerId).toBe('cus_9');
    expect(result.posted).toEqual(['payment:pay_link']);
    const all = await world.ledger.allEntries();
    expect(all.map(entryShape)).toEqual([
      {
        key: 'invoice:pl_1',
        date: TODAY,
        lines: [
          [AccountsReceivable, 10_000],
          [Revenue, -10_000],
        ],
        reverses: null,
      },
      {
        key: 'payment:pay_link',
        date: '2026-03-03',
        lines: [
          [ProcessorClearing, 10_000],
          [AccountsReceivable, -10_000],
        ],
        reverses: null,
      },
    ]);
    expect(all[1]?.links).toEqual({ paymentId: 'pay_link', paymentLinkId: 'pl_1' });
    expect(await world.balances(AccountsReceivable, Revenue, ProcessorClearing)).toEqual({
      [AccountsReceivable]: 0,
      [Revenue]: -10_000,
      [ProcessorClearing]: 10_000,
    });
    // The link was fetched once, after the payment named it.
    expect(world.service.calls.map(([method, id]) => `${method} ${id}`)).toEqual([
      'getPayment pay_link',
      'getPaymentLink pl_1',
    ]);
  });
});

describe("one ledger transaction for a payment's entries", () => {
  beforeEach(() => {
    paymentOnLink('pl_2', 'pay_2', 320);
  });

  it('writes the invoice, the payment and its fee together: one postMany, no post', async () => {
    const post = vi.spyOn(world.ledger, 'post');
    const postMany = vi.spyOn(world.ledger, 'postMany');
    const result = await sync('pay_2');
    expect(result.posted).toEqual(['payment:pay_2', 'payment-fee:pay_2']);
    expect(post).not.toHaveBeenCalled();
    expect(postMany).toHaveBeenCalledTimes(1);
    expect(postMany.mock.calls[0]?.[0].map((e) => e.key)).toEqual([
      'invoice:pl_2',
      'payment:pay_2',
      'payment-fee:pay_2',
    ]);
    expect(await world.balances(AccountsReceivable, ProcessingFees)).toEqual({
      [AccountsReceivable]: 0,
      [ProcessingFees]: 320,
    });
  });

  it('another flow booked the invoice with other contents meanwhile: books again on what it wrote, all of it', async () => {
    // Between this sync's reads and its write, a flow that fetched the link before its amount changed books
    // the invoice at $90.00.
    const postMany = world.ledger.postMany.bind(world.ledger);
    vi.spyOn(world.ledger, 'postMany').mockImplementationOnce(async (entries) => {
      const invoice = entries.find((e) => e.key === 'invoice:pl_2');
      if (invoice)
        await world.ledger.post({
          ...invoice,
          lines: invoice.lines.map((l) => ({ ...l, amountCents: Math.sign(l.amountCents) * 9_000 })),
        });
      return postMany(entries);
    });
    const result = await sync('pay_2');
    expect(result.posted).toEqual(['payment:pay_2', 'payment-fee:pay_2']);
    const keys = (await world.ledger.allEntries()).map((e) => e.key);
    expect(keys).toEqual(['invoice:pl_2', 'invoice-adjustment:pl_2:1', 'payment:pay_2', 'payment-fee:pay_2']);
    // Owed $90.00, adjusted to the link's $100.00, paid $100.00.
    expect(await world.balances(AccountsReceivable, Revenue)).toEqual({
      [AccountsReceivable]: 0,
      [Revenue]: -10_000,
    });
  });
});

describe('payments on a reusable link (every sale is revenue exactly once)', () => {
  it('each is a sale of its own: no invoice, Accounts Receivable 0, Revenue the sum; a refund reopens nothing', async () => {
    world.service.links.set(
      'pl_shop',
      linkRecord({ id: 'pl_shop', requestedAmountCents: 2_500, customerId: 'cus_5', reusable: true }),
    );
    for (const n of [1, 2, 3]) {
      world.service.payments.set(
        `pay_shop${n}`,
        paymentRecord({ id: `pay_shop${n}`, amountInCents: 2_500, paymentLinkId: 'pl_shop' }),
      );
    }
    for (const n of [1, 2, 3]) {
      const result = await sync(`pay_shop${n}`);
      expect(result.posted).toEqual([`sale:pay_shop${n}`]);
      expect(result.customerId).toBe('cus_5');
    }
    expect((await world.ledger.get('sale:pay_shop1'))?.lines.map((l) => [l.account, l.amountCents])).toEqual([
      [ProcessorClearing, 2_500],
      [Revenue, -2_500],
    ]);
    expect(await world.balances(AccountsReceivable, Revenue, ProcessorClearing)).toEqual({
      [AccountsReceivable]: 0,
      [Revenue]: -7_500,
      [ProcessorClearing]: 7_500,
    });

    world.service.payments.set(
      'pay_shop2',
      paymentRecord({
        id: 'pay_shop2',
        status: 'REFUNDED',
        amountInCents: 2_500,
        paymentLinkId: 'pl_shop',
        refunds: [
          { id: 're_shop2', amountCents: 2_500, refundDate: '2026-03-10T09:00:00.000Z', voided: false },
        ],
      }),
    );
    expect((await sync('pay_shop2')).posted).toEqual(['refund:re_shop2']);
    expect(await world.balances(AccountsReceivable, Revenue, Refunds, ProcessorClearing)).toEqual({
      [AccountsReceivable]: 0,
      [Revenue]: -7_500,
      [Refunds]: 2_500,
      [ProcessorClearing]: 5_000,
    });
    expect((await world.ledger.allEntries()).map((e) => e.key)).not.toContain('invoice:pl_shop');
  });

  it('a payment booked by an earlier release as payment: (crediting A/R) is reversed today and booked as sale:', async () => {
    world.service.links.set(
      'pl_shop',
      linkRecord({ id: 'pl_shop', requestedAmountCents: 2_500, reusable: true }),
    );
    world.service.payments.set(
      'pay_old',
      paymentRecord({ id: 'pay_old', amountInCents: 2_500, paymentLinkId: 'pl_shop' }),
    );
    await world.ledger.post({
      key: 'payment:pay_old',
      date: '2026-03-03',
      description: 'Payment pay_old received',
      lines: [
        { account: ProcessorClearing, amountCents: 2_500 },
        { account: AccountsReceivable, amountCents: -2_500 },
      ],
      links: { paymentId: 'pay_old', paymentLinkId: 'pl_shop' },
    });

    const result = await sync('pay_old');

    expect(result.reversed).toEqual(['payment:pay_old']);
    expect(result.posted).toEqual(['sale:pay_old']);
    expect((await world.ledger.get('reversal:payment:pay_old'))?.date).toBe(TODAY);
    expect(await world.balances(AccountsReceivable, Revenue, ProcessorClearing)).toEqual({
      [AccountsReceivable]: 0,
      [Revenue]: -2_500,
      [ProcessorClearing]: 2_500,
    });
  });
});

describe('failures, as the activity hands them to Temporal', () => {
  it('a 404 from the service is a non-retryable ServiceNotFoundError, and nothing is booked', async () => {
    world.service.fail('getPayment', fromResponse(404, '{"error":"payment not found"}'));

    const failure = await failureOf(sync('pay_gone'));

    expect(failure.type).toBe('ServiceNotFoundError');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toBe('payment not found');
    expect(failure.details).toEqual([{ status: 404, code: null }]);
    expect(await world.ledger.allEntries()).toEqual([]);
  });

  it('a 409 is a non-retryable ServiceConflictError carrying the service code', async () => {
    world.service.fail('getPayment', fromResponse(409, '{"error":"shared account","code":"SHARED_ACCOUNT"}'));

    const failure = await failureOf(sync('pay_conflict'));

    expect(failure.type).toBe('ServiceConflictError');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.details).toEqual([{ status: 409, code: 'SHARED_ACCOUNT' }]);
  });

  it('a 503 is a retryable ServiceServerError, and the retry after it books the payment', async () => {
    world.service.payments.set('pay_later', paymentRecord({ id: 'pay_later', amountInCents: 4_200 }));
    world.service.fail('getPayment', fromResponse(503, 'upstream busy'));

    const failure = await failureOf(sync('pay_later'));

    expect(failure.type).toBe('ServiceServerError');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.details).toEqual([{ status: 503, code: null }]);
    expect(await world.ledger.allEntries()).toEqual([]);

    world.service.heal('getPayment');
    expect((await sync('pay_later')).posted).toEqual(['sale:pay_later']);
    expect(await world.ledger.balanceOf(ProcessorClearing)).toBe(4_200);
  });

  it('a payment link the service no longer finds fails the payment sync before anything is booked', async () => {
    world.service.payments.set(
      'pay_orphan',
      paymentRecord({ id: 'pay_orphan', paymentLinkId: 'pl_missing' }),
    );
    world.service.fail('getPaymentLink', fromResponse(404, '{"error":"payment link not found"}'));

    const failure = await failureOf(sync('pay_orphan'));

    expect(failure.type).toBe('ServiceNotFoundError');
    expect(failure.nonRetryable).toBe(true);
    expect(await world.ledger.allEntries()).toEqual([]);
  });

  it('a status booksync cannot map is a non-retryable UnmappableStateError that books nothing', async () => {
    world.service.payments.set('pay_odd', paymentRecord({ id: 'pay_odd', status: 'DISPUTED' }));

    const failure = await failureOf(sync('pay_odd'));

    expect(failure.type).toBe('UnmappableStateError');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('unknown status DISPUTED');
    expect(await world.ledger.allEntries()).toEqual([]);
  });
});
