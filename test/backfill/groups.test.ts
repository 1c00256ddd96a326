import type {
  CheckDeposit,
  Disbursement,
  Payment,
  PaymentLink,
} from '@booksync/service-contract/schemas/index';
import { describe, expect, it } from 'vitest';
import {
  type BackfillWindow,
  checkDepositVerdict,
  disbursementVerdict,
  linkVerdict,
  paymentVerdict,
} from '../../src/flows/backfill/groups.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { dayBefore, openingEntry } from '../../src/ledger/opening-balances.js';

// What a backfill since 2026-03-01 does with each group, computed by hand. Card fee decision “Fees”: 2.9% + 30 cents,
// absorbed (platformFeeInCents). The books open on March 1st; today is April 20th.

const window: BackfillWindow = { opensOn: '2026-03-01', asOf: '2026-04-20' };
const at = (day: string) => Date.parse(`${day}T12:00:00Z`);

const payment = (id: string, over: Partial<Record<string, unknown>> = {}) =>
  ({
    id,
    status: 'SUCCEEDED',
    amountInCents: 10_000,
    platformFeeInCents: 320,
    paymentLinkId: 'pl_1',
    paymentMethod: { type: 'Card' },
    createdAt: at('2026-02-10'),
    refunds: [],
    ...over,
  }) as unknown as Payment;

const link = (over: Partial<Record<string, unknown>> = {}) =>
  ({
    id: 'pl_1',
    requestedAmountCents: 10_000,
    completedAmountCents: 10_000,
    debitMemoAmountCents: 0,
    reusable: false,
    payments: [payment('pay_1')],
    externalPayments: [],
    debitMemos: [],
    ...over,
  }) as unknown as PaymentLink;

const disbursement = (over: Partial<Record<string, unknown>> = {}) =>
  ({
    id: 'dis_1',
    status: 'SUCCEEDED',
    amountInCents: 9_680,
    createdAt: '2026-02-11',
    paidAt: '2026-02-13',
    ...over,
  }) as unknown as Disbursement;

describe('backfill groups', () => {
  it('a link paid by card before the opening is settled: 100.00 less the 3.20 fee is at the service', () => {
    expect(linkVerdict(link(), window, { timeZone: 'UTC' })).toEqual({
      import: false,
      inFlight: { [Accounts.ProcessorClearing]: 9_680 },
    });
  });

  it('a reusable link paid before the opening is settled: its payments are sales, nothing is owed', () => {
    const sale = (id: string) => payment(id, { amountInCents: 2_500, platformFeeInCents: 103 });
    const shop = link({
      reusable: true,
      requestedAmountCents: 2_500,
      completedAmountCents: 7_500,
      payments: [sale('pay_1'), sale('pay_2'), sale('pay_3')],
    });
    expect(linkVerdict(shop, window, { timeZone: 'UTC' })).toEqual({
      import: false,
      inFlight: { [Accounts.ProcessorClearing]: 3 * (2_500 - 103) },
    });
    expect(paymentVerdict(payment('pay_walk', { paymentLinkId: null }), window, 'UTC')).toEqual({
      import: false,
      inFlight: { [Accounts.ProcessorClearing]: 9_680 },
    });
  });

  it('a refund before the opening is in the same money in flight: 96.80 - 25.00', () => {
    const refunded = payment('pay_1', {
      refunds: [{ id: 're_1', amountCents: 2_500, refundDate: '2026-02-15T10:00:00Z', voided: false }],
    });
    const v = linkVerdict(link({ payments: [refunded], completedAmountCents: 7_500 }), window, {
      timeZone: 'UTC',
    });
    // The service reopened the invoice by 25.00 (decision “completedAmountCents”): owed when the books open,
    // so an opening document of 25.00, and the money still at the service (96.80 - 25.00) in flight.
    expect(v).toEqual({
      import: 'opening',
      why: 'payment link pl_1 owed 2500 cents when the books opened',
      inFlight: { [Accounts.ProcessorClearing]: 9_680 - 2_500 },
    });
  });

  it('imports a link when money moved on it from the opening on, or it is still owed', () => {
    const late = link({ payments: [payment('pay_1', { createdAt: at('2026-03-01') })] });
    expect(linkVerdict(late, window, { timeZone: 'UTC' })).toEqual({
      import: true,
      why: 'money moved on payment link pl_1 on 2026-03-01',
    });
    // First money from the opening day on and still owed: this period's sale, imported.
    const owedLate = link({
      payments: [payment('pay_1', { createdAt: at('2026-03-01'), amountInCents: 4_000 })],
      completedAmountCents: 4_000,
    });
    expect(linkVerdict(owedLate, window, { timeZone: 'UTC' })).toMatchObject({ import: true });
  });

  it('a link owed when the books open with no money on it before is an opening document of what it owed', () => {
    const owed = link({ payments: [], completedAmountCents: 0 });
    expect(linkVerdict(owed, window, { timeZone: 'UTC' })).toEqual({
      import: 'opening',
      why: 'payment link pl_1 owed 10000 cents when the books opened',
      inFlight: {},
    });
    // Part-paid before the opening: the opening document is the remainder, the payment's money in flight.
    const part = link({
      payments: [payment('pay_1', { amountInCents: 3_000, platformFeeInCents: 117 })],
      completedAmountCents: 3_000,
    });
    expect(linkVerdict(part, window, { timeZone: 'UTC' })).toEqual({
      import: 'opening',
      why: 'payment link pl_1 owed 7000 cents when the books opened',
      inFlight: { [Accounts.ProcessorClearing]: 3_000 - 117 },
    });
  });

  it('a refund dated from the opening on makes the group import (its entry is dated then)', () => {
    const refunded = payment('pay_1', {
      refunds: [{ id: 're_2', amountCents: 1_000, refundDate: '2026-03-02T10:00:00Z', voided: false }],
    });
    // The service says the link is owed 10.00 again: that alone imports it.
    const v = linkVerdict(link({ payments: [refunded], completedAmountCents: 9_000 }), window, {
      timeZone: 'UTC',
    });
    expect(v.import).toBe(true);
  });

  it('imports an ACH payment still inside its 60-day return window, settles one past it', () => {
    const inWindow = payment('pay_a', {
      paymentLinkId: null,
      paymentMethod: { type: 'ACH' },
      createdAt: at('2026-02-25'),
    });
    expect(paymentVerdict(inWindow, window, 'UTC')).toEqual({
      import: true,
      why: 'ACH payment pay_a can still be returned',
    });
    const past = payment('pay_b', {
      paymentLinkId: null,
      paymentMethod: { type: 'ACH' },
      platformFeeInCents: 0,
      createdAt: at('2026-01-05'),
    });
    expect(paymentVerdict(past, window, 'UTC')).toEqual({
      import: false,
      inFlight: { [Accounts.ProcessorClearing]: 10_000 },
    });
    expect(
      paymentVerdict(payment('pay_c', { status: 'PENDING', paymentLinkId: null }), window, 'UTC').import,
    ).toBe(true);
    // A returned ACH payment moved nothing.
    const returned = {
      status: 'FAILED',
      paymentLinkId: null,
      paymentMethod: { type: 'ACH' },
      platformFeeInCents: 0,
    };
    expect(paymentVerdict(payment('pay_d', returned), window, 'UTC')).toEqual({
      import: false,
      inFlight: {},
    });
    // A disputed card payment (a chargeback): the processor kept its fee out of the clearing balance.
    expect(
      paymentVerdict(payment('pay_e', { status: 'FAILED', paymentLinkId: null }), window, 'UTC'),
    ).toEqual({
      import: false,
      inFlight: { [Accounts.ProcessorClearing]: -320 },
    });
  });

  it('a payout paid before the opening took its money out of clearing; one on its way is imported', () => {
    expect(disbursementVerdict(disbursement(), window)).toEqual({
      import: false,
      inFlight: { [Accounts.ProcessorClearing]: -9_680, [Accounts.PayoutsInTransit]: 0 },
    });
    expect(disbursementVerdict(disbursement({ status: 'PENDING', paidAt: null }), window).import).toBe(true);
    expect(disbursementVerdict(disbursement({ paidAt: '2026-03-02' }), window)).toEqual({
      import: true,
      why: 'disbursement-paid:dis_1 is dated 2026-03-02',
    });
  });

  it('imports a deposit that applied money, and links paid by one', () => {
    const deposit = {
      id: 'cd_1',
      status: 'CLEARED',
      amountCents: 15_000,
      createdAt: '2026-01-20T12:00:00.000Z',
      clearedAt: '2026-01-22T12:00:00.000Z',
      applications: [{ id: 'ep_1' }],
    } as unknown as CheckDeposit;
    expect(checkDepositVerdict(deposit, window, 'UTC').import).toBe(true);
    // Cleared before the opening with nothing applied: the whole check is the customers' credit, carried
    // in Unapplied Cash by the opening entry so an application after the opening has it to draw on.
    expect(checkDepositVerdict({ ...deposit, applications: [] }, window, 'UTC')).toEqual({
      import: false,
      inFlight: { [Accounts.ChecksToDeposit]: 0, [Accounts.UnappliedCash]: -15_000 },
    });
    expect(
      checkDepositVerdict({ ...deposit, applications: [], status: 'PROCESSING' }, window, 'UTC'),
    ).toEqual({
      import: true,
      why: 'check deposit cd_1 is PROCESSING',
    });
    expect(checkDepositVerdict({ ...deposit, status: 'RETURNED' }, window, 'UTC').import).toBe(false);
    const byCheck = link({
      payments: [],
      externalPayments: [
        {
          id: 'ep_1',
          amountCents: 10_000,
          paidAt: '2026-02-01',
          voided: false,
          serviceBankingTransferId: 'tr_1',
        },
      ],
    });
    expect(linkVerdict(byCheck, window, { timeZone: 'UTC' })).toEqual({
      import: true,
      why: 'payment link pl_1 was paid by a deposited check',
    });
  });

  it('the opening entry: the money in flight against Opening Balances, the day before the books open', () => {
    // Settled link (96.80 at the service) and a paid payout of it (-96.80), and another link's 48.25.
    const entry = openingEntry('2026-03-01', {
      [Accounts.ProcessorClearing]: 9_680 - 9_680 + 4_825,
      [Accounts.PayoutsInTransit]: 0,
      [Accounts.ChecksToDeposit]: 1_500,
    });
    expect(entry).toEqual({
      key: 'opening-balances:2026-03-01',
      date: '2026-02-28',
      description: 'Opening balances: money in flight when the books open on 2026-03-01',
      lines: [
        { account: Accounts.ProcessorClearing, amountCents: 4_825 },
        { account: Accounts.ChecksToDeposit, amountCents: 1_500 },
        { account: Accounts.OpeningBalances, amountCents: -6_325 },
      ],
      links: {},
    });
    expect(openingEntry('2026-03-01', { [Accounts.ProcessorClearing]: 0 })).toBeNull();
    expect(dayBefore('2026-03-01')).toBe('2026-02-28');
    expect(dayBefore('2028-03-01')).toBe('2028-02-29');
  });
});
