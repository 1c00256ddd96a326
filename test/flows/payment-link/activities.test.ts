import { fromResponse } from '@booksync/service-contract/errors';
import type { ExternalPayment, PaymentLink } from '@booksync/service-contract/schemas/index';
import { ApplicationFailure } from '@temporalio/common';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPaymentLinkActivities } from '../../../src/flows/payment-link/activities.js';
import { Accounts } from '../../../src/ledger/chart-of-accounts.js';
import {
  type ActivityWorld,
  activityWorld,
  entryShape,
  linkRecord,
  quietActivityEnvironment,
  runActivity,
  TODAY,
} from '../fakes.js';

// The payment-link activities through MockActivityEnvironment over a fake service and a real in-memory
// ledger: syncPaymentLink's entries and balances worked out by hand, and a write's hand-off to the service.

const { AccountsReceivable, Revenue, ChecksToDeposit, FeeIncome, OperatingBank, DiscountsAndWriteOffs } =
  Accounts;

let world: ActivityWorld;

beforeEach(() => {
  world = activityWorld();
});
afterEach(() => world.close());

function externalPayment(overrides: Partial<ExternalPayment> & Pick<ExternalPayment, 'id'>): ExternalPayment {
  return {
    amountCents: 3_000,
    paidAt: '2026-03-04',
    voided: false,
    externalReferenceId: null,
    serviceBankingTransferId: null,
    ...overrides,
  };
}

/** An invoice of 10000 with a 500 debit memo, a 3000 external check, and a 2000 applied check deposit. */
function invoiceLink(overrides: Partial<PaymentLink> = {}): PaymentLink {
  return linkRecord({
    id: 'pl_x',
    requestedAmountCents: 10_500,
    debitMemoAmountCents: 500,
    completedAmountCents: 5_000,
    externalPayments: [
      externalPayment({ id: 'ep_1', externalReferenceId: 'booksync:cmd-1' }),
      externalPayment({ id: 'ep_dep', amountCents: 2_000, serviceBankingTransferId: 'tr_1' }),
    ],
    debitMemos: [
      {
        id: 'dm_1',
        amountCents: 500,
        description: 'late fee',
        voided: false,
        createdAt: '2026-03-02T08:00:00.000Z',
        externalReferenceId: null,
      },
    ],
    ...overrides,
  });
}

function syncLink(reason = 'sync command') {
  const { syncPaymentLink } = createPaymentLinkActivities(world.deps);
  return runActivity(quietActivityEnvironment(), syncPaymentLink, {
    paymentLinkId: 'pl_x',
    reason,
    commandIds: ['cmd-1'],
  });
}

describe('syncPaymentLink', () => {
  it('books the invoice, the live external payment and the debit memo, and leaves the applied deposit alone', async () => {
    world.service.links.set('pl_x', invoiceLink());

    const result = await syncLink();

    expect((await world.ledger.allEntries()).map(entryShape)).toEqual([
      {
        // Dated no later than the first money on the link (here its applied check, 2 March), not the day
        // booksync learns of it (TODAY, 20 March): the receivable is owed before it is paid.
        key: 'invoice:pl_x',
        date: '2026-03-02',
        lines: [
          [AccountsReceivable, 10_000],
          [Revenue, -10_000],
        ],
        reverses: null,
      },
      {
        key: 'external-payment:ep_1',
        date: '2026-03-04',
        lines: [
          [ChecksToDeposit, 3_000],
          [AccountsReceivable, -3_000],
        ],
        reverses: null,
      },
      {
        key: 'debit-memo:dm_1',
        date: '2026-03-02',
        lines: [
          [AccountsReceivable, 500],
          [FeeIncome, -500],
        ],
        reverses: null,
      },
    ]);
    expect(await world.balances(AccountsReceivable, Revenue, ChecksToDeposit, FeeIncome)).toEqual({
      [AccountsReceivable]: 7_500,
      [Revenue]: -10_000,
      [ChecksToDeposit]: 3_000,
      [FeeIncome]: -500,
    });
    expect(result).toMatchObject({
      paymentLinkId: 'pl_x',
      status: 'ACTIVE',
      requestedAmountCents: 10_500,
      completedAmountCents: 5_000,
      debitMemoAmountCents: 500,
      customerId: 'cus_1',
      posted: ['external-payment:ep_1', 'debit-memo:dm_1'],
      reversed: [],
      booked: [
        { key: 'external-payment:ep_1', status: 'live', amountCents: 3_000 },
        { key: 'debit-memo:dm_1', status: 'live', amountCents: 500 },
      ],
    });
    expect(result.externalPayments).toEqual([
      {
        id: 'ep_1',
        amountCents: 3_000,
        date: '2026-03-04',
        externalReferenceId: 'booksync:cmd-1',
        appliesCheckDeposit: false,
      },
      {
        id: 'ep_dep',
        amountCents: 2_000,
        date: '2026-03-04',
        externalReferenceId: null,
        appliesCheckDeposit: true,
      },
    ]);

    // Twice: nothing more.
    const again = await syncLink();
    expect([again.posted, again.reversed]).toEqual([[], []]);
    expect(await world.ledger.allEntries()).toHaveLength(3);
  });

  it("reverses an external payment the link no longer lists (voided at the service), on today's date", async () => {
    world.service.links.set('pl_x', invoiceLink());
    await syncLink();
    world.service.links.set(
      'pl_x',
      invoiceLink({ externalPayments: invoiceLink().externalPayments.filter((p) => p.id !== 'ep_1') }),
    );

    const result = await syncLink('voidExternalPayment');

    expect(result.reversed).toEqual(['external-payment:ep_1']);
    expect(result.posted).toEqual([]);
    const reversal = await world.ledger.get('reversal:external-payment:ep_1');
    expect(reversal && entryShape(reversal)).toEqual({
      key: 'reversal:external-payment:ep_1',
      date: TODAY,
      lines: [
        [ChecksToDeposit, -3_000],
        [AccountsReceivable, 3_000],
      ],
      reverses: 'external-payment:ep_1',
    });
    expect(reversal?.description).toContain('voidExternalPayment: no longer on payment link pl_x');
    expect(result.booked).toEqual([
      { key: 'external-payment:ep_1', status: 'reversed', amountCents: 3_000 },
      { key: 'debit-memo:dm_1', status: 'live', amountCents: 500 },
      { key: 'reversal:external-payment:ep_1', status: 'reversal', amountCents: 3_000 },
    ]);
    expect(await world.balances(AccountsReceivable, ChecksToDeposit)).toEqual({
      [AccountsReceivable]: 10_500,
      [ChecksToDeposit]: 0,
    });
  });

  it('books external payments straight to Operating Bank when the deployment says so', async () => {
    world.close();
    world = activityWorld({ externalPaymentAccount: 'operating-bank' });
    world.service.links.set('pl_x', invoiceLink());

    await syncLink();

    expect(await world.balances(OperatingBank, ChecksToDeposit)).toEqual({
      [OperatingBank]: 3_000,
      [ChecksToDeposit]: 0,
    });
  });
});

describe('recordLinkExternalPayment', () => {
  it('hands the command to the service with its reference and answers the record; the books wait for the sync', async () => {
    world.service.writeAnswers.recordExternalPayment = {
      externalPayment: externalPayment({
        id: 'ep_new',
        amountCents: 1_200,
        externalReferenceId: 'booksync:cmd-9',
      }),
      paymentLink: invoiceLink({ status: 'PAID' }),
    };
    const { recordLinkExternalPayment } = createPaymentLinkActivities(world.deps);

    const result = await runActivity(quietActivityEnvironment(), recordLinkExternalPayment, {
      paymentLinkId: 'pl_x',
      commandId: 'cmd-9',
      amountCents: 1_200,
      paidAt: '2026-03-06',
      externalReferenceId: 'booksync:cmd-9',
    });

    expect(result).toEqual({ recordId: 'ep_new', amountCents: 1_200, linkStatus: 'PAID' });
    expect(world.service.calls).toEqual([
      [
        'recordExternalPayment',
        'pl_x',
        { amountCents: 1_200, paidAt: '2026-03-06', externalReferenceId: 'booksync:cmd-9' },
      ],
    ]);
    expect(await world.ledger.allEntries()).toEqual([]);
  });

  it('a 409 REFERENCE_CONFLICT is a non-retryable ServiceConflictError with the code in its details', async () => {
    world.service.fail(
      'recordExternalPayment',
      fromResponse(409, '{"error":"reference used with other contents","code":"REFERENCE_CONFLICT"}'),
    );
    const { recordLinkExternalPayment } = createPaymentLinkActivities(world.deps);

    const error = await runActivity(quietActivityEnvironment(), recordLinkExternalPayment, {
      paymentLinkId: 'pl_x',
      commandId: 'cmd-10',
      amountCents: 1_200,
      paidAt: '2026-03-06',
      externalReferenceId: 'booksync:cmd-10',
    }).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(ApplicationFailure);
    const failure = error as ApplicationFailure;
    expect(failure.type).toBe('ServiceConflictError');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.details).toEqual([{ status: 409, code: 'REFERENCE_CONFLICT' }]);
  });
});

describe('syncPaymentLink: a lowered invoice (write-offs)', () => {
  const plain = (requestedAmountCents: number) =>
    linkRecord({ id: 'pl_x', requestedAmountCents, completedAmountCents: 0 });

  it('10,000 lowered to 8,000 books Dr Discounts and Write-offs / Cr A/R; its reversal takes it back off that account', async () => {
    world.service.links.set('pl_x', plain(10_000));
    await syncLink();
    world.service.links.set('pl_x', plain(8_000));
    const result = await syncLink('amount lowered');
    expect(result.posted).toEqual([]);
    const lowered = await world.ledger.get('invoice-adjustment:pl_x:1');
    expect(lowered && entryShape(lowered)).toEqual({
      key: 'invoice-adjustment:pl_x:1',
      date: TODAY,
      lines: [
        [AccountsReceivable, -2_000],
        [DiscountsAndWriteOffs, 2_000],
      ],
      reverses: null,
    });
    expect(await world.balances(AccountsReceivable, Revenue, DiscountsAndWriteOffs)).toEqual({
      [AccountsReceivable]: 8_000,
      [Revenue]: -10_000,
      [DiscountsAndWriteOffs]: 2_000,
    });
    await world.ledger.reverse('invoice-adjustment:pl_x:1', { reason: 'lowered by mistake', date: TODAY });
    expect(await world.balances(AccountsReceivable, Revenue, DiscountsAndWriteOffs)).toEqual({
      [AccountsReceivable]: 10_000,
      [Revenue]: -10_000,
      [DiscountsAndWriteOffs]: 0,
    });
  });

  it('a lowering an earlier release booked on Revenue stays: the next sync books nothing, its reversal is on Revenue', async () => {
    world.service.links.set('pl_x', plain(10_000));
    await syncLink();
    // The earlier release's entry for the same lowering, already in the books.
    await world.ledger.post({
      key: 'invoice-adjustment:pl_x:1',
      date: '2026-03-10',
      description: 'Invoice for payment link pl_x: amount lowered to 8000 cents',
      lines: [
        { account: AccountsReceivable, amountCents: -2_000 },
        { account: Revenue, amountCents: 2_000 },
      ],
      links: { paymentLinkId: 'pl_x', customerId: 'cus_1' },
    });
    world.service.links.set('pl_x', plain(8_000));
    const before = await world.ledger.allEntries();
    await syncLink('after the upgrade');
    expect((await world.ledger.allEntries()).map(entryShape)).toEqual(before.map(entryShape));
    expect(await world.balances(AccountsReceivable, Revenue, DiscountsAndWriteOffs)).toEqual({
      [AccountsReceivable]: 8_000,
      [Revenue]: -8_000,
      [DiscountsAndWriteOffs]: 0,
    });
    const reversal = await world.ledger.reverse('invoice-adjustment:pl_x:1', {
      reason: 'undone',
      date: TODAY,
    });
    expect(entryShape(reversal.entry).lines).toEqual([
      [AccountsReceivable, 2_000],
      [Revenue, -2_000],
    ]);
  });
});
