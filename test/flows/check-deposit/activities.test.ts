import type { CheckDeposit, ExternalPayment } from '@booksync/service-contract/schemas/index';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { syncCheckDepositBooks } from '../../../src/flows/check-deposit/activities.js';
import { Accounts } from '../../../src/ledger/chart-of-accounts.js';
import { type ActivityWorld, activityWorld } from '../fakes.js';

// A deposited check booked whole, through the activity's sync over a real in-memory
// ledger: the bank gets the whole check, what is not applied yet is the customers' credit (Unapplied Cash),
// an application after the check cleared only moves that credit to the invoice, and a return undoes it all.

const { OperatingBank, ChecksToDeposit, UnappliedCash, AccountsReceivable } = Accounts;
const accounts = [OperatingBank, ChecksToDeposit, UnappliedCash, AccountsReceivable] as const;

let world: ActivityWorld;
beforeEach(() => {
  world = activityWorld();
});
afterEach(() => world.close());

function application(id: string, amountCents: number, paidAt: string): ExternalPayment {
  return {
    id,
    amountCents,
    paidAt,
    voided: false,
    externalReferenceId: `booksync:${id}`,
    serviceBankingTransferId: 'tr_1',
  };
}

function deposit(overrides: Partial<CheckDeposit> = {}): CheckDeposit {
  return {
    id: 'cd_1',
    transferId: 'tr_1',
    amountCents: 150_000,
    unappliedAmountCents: 50_000,
    status: 'PROCESSING',
    applications: [application('ep_1', 100_000, '2026-03-03')],
    memo: null,
    createdAt: '2026-03-02T15:00:00.000Z',
    clearedAt: null,
    returnedAt: null,
    ...overrides,
  };
}

const linkOf = { ep_1: 'pl_1', ep_2: 'pl_2' };
const sync = (d: CheckDeposit) => syncCheckDepositBooks(world.deps, d, linkOf, 'test');

const cleared = deposit({ status: 'CLEARED', clearedAt: '2026-03-05T15:00:00.000Z' });
const appliedAfterClearing = deposit({
  status: 'CLEARED',
  clearedAt: '2026-03-05T15:00:00.000Z',
  unappliedAmountCents: 0,
  applications: [application('ep_1', 100_000, '2026-03-03'), application('ep_2', 50_000, '2026-03-09')],
});

describe('a 150,000 check, 100,000 applied, cleared, then 50,000 applied after clearing', () => {
  it('books the whole check: the bank gets 150,000, the unapplied 50,000 is the customers’ credit', async () => {
    await sync(deposit());
    expect(await world.balances(...accounts)).toEqual({
      [OperatingBank]: 0,
      [ChecksToDeposit]: 150_000,
      [UnappliedCash]: -50_000,
      [AccountsReceivable]: -100_000,
    });
    const { result } = await sync(cleared);
    expect(result.posted).toEqual(['check-cleared:cd_1']);
    expect(await world.balances(...accounts)).toEqual({
      [OperatingBank]: 150_000,
      [ChecksToDeposit]: 0,
      [UnappliedCash]: -50_000,
      [AccountsReceivable]: -100_000,
    });
  });

  it('an application after the check cleared moves the credit to the invoice, no conflict', async () => {
    await sync(deposit());
    await sync(cleared);
    const { result } = await sync(appliedAfterClearing);
    expect(result).toMatchObject({ posted: ['check-application:ep_2'], reversed: [] });
    expect(await world.balances(...accounts)).toEqual({
      [OperatingBank]: 150_000,
      [ChecksToDeposit]: 0,
      [UnappliedCash]: 0,
      [AccountsReceivable]: -150_000,
    });
    // A sync that finds nothing new books nothing.
    expect((await sync(appliedAfterClearing)).result).toMatchObject({ posted: [], reversed: [] });
    const deposited = await world.ledger.get('check-deposited:cd_1');
    expect(deposited?.date).toBe('2026-03-02');
  });

  it('a returned check reverses every entry: everything back where it was', async () => {
    await sync(deposit());
    await sync(cleared);
    await sync(appliedAfterClearing);
    const { result } = await sync(
      deposit({
        status: 'RETURNED',
        clearedAt: '2026-03-05T15:00:00.000Z',
        returnedAt: '2026-03-12T15:00:00.000Z',
        unappliedAmountCents: 0,
        applications: [],
      }),
    );
    expect(result.reversed.sort()).toEqual([
      'check-application:ep_1',
      'check-application:ep_2',
      'check-cleared:cd_1',
      'check-deposited:cd_1',
    ]);
    expect(await world.balances(...accounts)).toEqual({
      [OperatingBank]: 0,
      [ChecksToDeposit]: 0,
      [UnappliedCash]: 0,
      [AccountsReceivable]: 0,
    });
    expect((await world.ledger.get('reversal:check-deposited:cd_1'))?.date).toBe('2026-03-12');
  });

  it('seen only returned (cleared on 5 March, returned on 12 March), it books the check, its clearing and their reversals, as followed step by step', async () => {
    const returned = deposit({
      status: 'RETURNED',
      clearedAt: '2026-03-05T15:00:00.000Z',
      returnedAt: '2026-03-12T15:00:00.000Z',
      unappliedAmountCents: 0,
      applications: [],
    });
    await sync(deposit({ applications: [] }));
    await sync(deposit({ status: 'CLEARED', clearedAt: '2026-03-05T15:00:00.000Z', applications: [] }));
    await sync(returned);
    const shape = async () =>
      (await world.ledger.entriesFor({ checkDepositId: 'cd_1' })).map((e) => [e.key, e.date, e.lines]);
    const stepByStep = await shape();
    world.close();

    world = activityWorld();
    const { result } = await sync(returned);
    expect(result.posted.sort()).toEqual(['check-cleared:cd_1', 'check-deposited:cd_1']);
    expect(result.reversed.sort()).toEqual(['check-cleared:cd_1', 'check-deposited:cd_1']);
    expect(await shape()).toEqual(stepByStep);
    expect((await shape()).map(([key, date]) => `${key} ${date}`)).toEqual([
      'check-deposited:cd_1 2026-03-02',
      'check-cleared:cd_1 2026-03-05',
      'reversal:check-deposited:cd_1 2026-03-12',
      'reversal:check-cleared:cd_1 2026-03-12',
    ]);
    expect(await world.balances(...accounts)).toEqual({
      [OperatingBank]: 0,
      [ChecksToDeposit]: 0,
      [UnappliedCash]: 0,
      [AccountsReceivable]: 0,
    });
  });

  it('a return after the deposit month closed reverses in the open period, the closed month untouched', async () => {
    await sync(deposit());
    await world.ledger.closeBooks('2026-03-31', { reason: 'March closed', forced: false });
    await sync(
      deposit({
        status: 'RETURNED',
        returnedAt: '2026-03-12T15:00:00.000Z',
        unappliedAmountCents: 0,
        applications: [],
      }),
    );
    const reversal = await world.ledger.get('reversal:check-deposited:cd_1');
    expect(reversal?.date).toBe('2026-04-01');
    expect((await world.ledger.get('check-deposited:cd_1'))?.date).toBe('2026-03-02');
    expect(await world.balances(...accounts)).toEqual({
      [OperatingBank]: 0,
      [ChecksToDeposit]: 0,
      [UnappliedCash]: 0,
      [AccountsReceivable]: 0,
    });
  });
});

/**
 * The previous release booked a check's applied part only: each application Dr Checks To Deposit / Cr A/R,
 * cleared = the applied total. Those entries are posted here as that release posted them.
 */
async function bookedByPreviousRelease(clearedCents: number | null) {
  await world.ledger.post({
    key: 'check-application:ep_1',
    date: '2026-03-03',
    description: 'Check deposit cd_1 applied to payment link pl_1',
    lines: [
      { account: ChecksToDeposit, amountCents: 100_000 },
      { account: AccountsReceivable, amountCents: -100_000 },
    ],
    links: { checkDepositId: 'cd_1', externalPaymentId: 'ep_1', paymentLinkId: 'pl_1' },
  });
  if (clearedCents === null) return;
  await world.ledger.post({
    key: 'check-cleared:cd_1',
    date: '2026-03-05',
    description: 'Check deposit cd_1 cleared',
    lines: [
      { account: OperatingBank, amountCents: clearedCents },
      { account: ChecksToDeposit, amountCents: -clearedCents },
    ],
    links: { checkDepositId: 'cd_1' },
  });
}

describe('deposits booked by the previous release', () => {
  it('a cleared one keeps its entries and gets the rest of the check, then an application after clearing', async () => {
    await bookedByPreviousRelease(100_000);
    const first = await sync(cleared);
    // Nothing reversed and reposted: the rest is booked beside what was.
    expect(first.result.reversed).toEqual([]);
    expect(first.result.posted.sort()).toEqual(['check-cleared:cd_1:rest', 'check-deposited:cd_1']);
    expect(first.result.unchanged.sort()).toEqual(['check-application:ep_1', 'check-cleared:cd_1']);
    expect(await world.balances(...accounts)).toEqual({
      [OperatingBank]: 150_000,
      [ChecksToDeposit]: 0,
      [UnappliedCash]: -50_000,
      [AccountsReceivable]: -100_000,
    });
    const after = await sync(appliedAfterClearing);
    expect(after.result).toMatchObject({ posted: ['check-application:ep_2'], reversed: [] });
    expect(await world.balances(...accounts)).toEqual({
      [OperatingBank]: 150_000,
      [ChecksToDeposit]: 0,
      [UnappliedCash]: 0,
      [AccountsReceivable]: -150_000,
    });
    expect((await sync(appliedAfterClearing)).result).toMatchObject({ posted: [], reversed: [] });
  });

  it('a processing one clears whole; voiding its old application gives that part back to Unapplied Cash', async () => {
    await bookedByPreviousRelease(null);
    await sync(deposit());
    expect((await world.ledger.get('check-deposited:cd_1'))?.lines[0]?.amountCents).toBe(50_000);
    const voided = await sync(deposit({ applications: [], unappliedAmountCents: 150_000 }));
    expect(voided.result).toMatchObject({
      posted: ['check-deposited:cd_1:ep_1'],
      reversed: ['check-application:ep_1'],
    });
    expect(await world.balances(...accounts)).toEqual({
      [OperatingBank]: 0,
      [ChecksToDeposit]: 150_000,
      [UnappliedCash]: -150_000,
      [AccountsReceivable]: 0,
    });
    await sync({ ...cleared, applications: [], unappliedAmountCents: 150_000 });
    expect(await world.balances(...accounts)).toMatchObject({
      [OperatingBank]: 150_000,
      [ChecksToDeposit]: 0,
    });
  });

  it('a returned one reverses the old entries and the top-ups alike', async () => {
    await bookedByPreviousRelease(100_000);
    await sync(cleared);
    await sync(deposit({ status: 'RETURNED', returnedAt: '2026-03-12T15:00:00.000Z', applications: [] }));
    expect(await world.balances(...accounts)).toEqual({
      [OperatingBank]: 0,
      [ChecksToDeposit]: 0,
      [UnappliedCash]: 0,
      [AccountsReceivable]: 0,
    });
  });
});
