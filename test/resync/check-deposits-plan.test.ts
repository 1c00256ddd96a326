import type { CheckDeposit, PaymentLink } from '@booksync/service-contract/schemas/index';
import { describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import type { BookedEntry } from '../../src/ledger/entry.js';
import { resyncDiff } from '../../src/resync/plan.js';

// The resync's diff for check deposits booked whole, pure: a deposit the previous release
// booked (its application Dr Checks To Deposit, cleared = the applied total) is not reversed and rebooked;
// the diff only adds what completes the whole check. A deposit booked whole is unchanged.

let id = 0;
function booked(
  key: string,
  date: string,
  lines: [string, number][],
  links: BookedEntry['links'],
): BookedEntry {
  id++;
  return {
    id,
    key,
    date,
    description: key.startsWith('check-application')
      ? 'Check deposit cd_1 applied to payment link pl_1'
      : 'Check deposit cd_1 cleared',
    lines: lines.map(([account, amountCents]) => ({ account, amountCents })) as BookedEntry['lines'],
    links,
    reverses: null,
    reversedBy: null,
    contentHash: `${id}`.padStart(64, '0'),
    createdAt: '2026-03-05T16:00:00.000Z',
  };
}

const deposit: CheckDeposit = {
  id: 'cd_1',
  transferId: 'tr_1',
  amountCents: 150_000,
  unappliedAmountCents: 50_000,
  status: 'CLEARED',
  applications: [
    {
      id: 'ep_1',
      amountCents: 100_000,
      paidAt: '2026-03-03',
      voided: false,
      externalReferenceId: null,
      serviceBankingTransferId: 'tr_1',
    },
  ],
  memo: null,
  createdAt: '2026-03-02T15:00:00.000Z',
  clearedAt: '2026-03-05T15:00:00.000Z',
  returnedAt: null,
};

const sources = (entries: BookedEntry[]) => ({
  links: [],
  payments: [],
  disbursements: [],
  checkDeposits: [deposit],
  bills: [],
  billPayments: [],
  entries,
});

describe('resync of check deposits', () => {
  it('a deposit the previous release booked keeps its entries and gets only the rest of the check', () => {
    const diff = resyncDiff(
      sources([
        booked(
          'check-application:ep_1',
          '2026-03-03',
          [
            [Accounts.ChecksToDeposit, 100_000],
            [Accounts.AccountsReceivable, -100_000],
          ],
          { checkDepositId: 'cd_1', externalPaymentId: 'ep_1', paymentLinkId: 'pl_1' },
        ),
        booked(
          'check-cleared:cd_1',
          '2026-03-05',
          [
            [Accounts.OperatingBank, 100_000],
            [Accounts.ChecksToDeposit, -100_000],
          ],
          { checkDepositId: 'cd_1' },
        ),
      ]),
      { timeZone: 'UTC', since: null },
    );
    expect(diff.toReverse).toEqual([]);
    expect(diff.unchanged).toBe(2);
    expect(diff.toPost.map((e) => [e.key, e.date, e.lines.map((l) => [l.account, l.amountCents])])).toEqual([
      [
        'check-deposited:cd_1',
        '2026-03-02',
        [
          [Accounts.ChecksToDeposit, 50_000],
          [Accounts.UnappliedCash, -50_000],
        ],
      ],
      [
        'check-cleared:cd_1:rest',
        '2026-03-05',
        [
          [Accounts.OperatingBank, 50_000],
          [Accounts.ChecksToDeposit, -50_000],
        ],
      ],
    ]);
  });

  it('nothing booked yet: the whole check, its application from Unapplied Cash, the whole check cleared', () => {
    // The application's link comes from the link's own list (no entry names it yet).
    const link = {
      id: 'pl_1',
      customerId: null,
      reusable: false,
      payments: [],
      externalPayments: deposit.applications,
      debitMemos: [],
    } as unknown as PaymentLink;
    const diff = resyncDiff({ ...sources([]), links: [link] }, { timeZone: 'UTC', since: null });
    expect(diff.unmappable).toEqual([]);
    expect(diff.toPost.map((e) => [e.key, e.lines[0]?.account, e.lines[0]?.amountCents])).toEqual([
      ['check-deposited:cd_1', Accounts.ChecksToDeposit, 150_000],
      ['check-application:ep_1', Accounts.UnappliedCash, 100_000],
      ['check-cleared:cd_1', Accounts.OperatingBank, 150_000],
    ]);
  });
});
