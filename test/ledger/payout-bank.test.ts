import type { Disbursement } from '@booksync/service-contract/schemas/index';
import { describe, expect, it } from 'vitest';
import { loadSettings, SettingsError } from '../../src/config/settings.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import type { BookedEntry } from '../../src/ledger/entry.js';
import {
  type DisbursementForBooks,
  disbursementEntries,
  payoutBankOf,
} from '../../src/ledger/mapping/index.js';
import { payoutBooks } from '../../src/payouts/payout-books.js';
import { resyncDiff } from '../../src/resync/plan.js';
import { sumOfLines } from './fixtures.js';

// A payout lands in the bank account its disbursement names: in Payout Bank when that account's last four
// digits are among PAYOUT_BANK_ACCOUNTS, in Operating Bank otherwise; the entries' keys are the same either way.

const paid: DisbursementForBooks = {
  id: 'dis_1',
  status: 'SUCCEEDED',
  amountInCents: 7_180,
  createdAt: '2026-01-10',
  paidAt: '2026-01-12',
  accountNumberLastFour: '4321',
};

/** "key: Dr X / Cr Y amount" of each two-line entry. */
const drCr = (entries: ReturnType<typeof disbursementEntries>) =>
  entries.map((e) => {
    expect(sumOfLines(e)).toBe(0);
    const dr = e.lines.find((l) => l.amountCents > 0);
    const cr = e.lines.find((l) => l.amountCents < 0);
    return `${e.key}: Dr ${dr?.account} / Cr ${cr?.account} ${dr?.amountCents}`;
  });

describe('a paid payout’s bank account', () => {
  it('to an account PAYOUT_BANK_ACCOUNTS names: Dr Payout Bank / Cr Payouts In Transit, same keys', () => {
    expect(drCr(disbursementEntries(paid, { payoutBankAccounts: ['8765', '4321'] }))).toEqual([
      `disbursement-pending:dis_1: Dr ${Accounts.PayoutsInTransit} / Cr ${Accounts.ProcessorClearing} 7180`,
      `disbursement-paid:dis_1: Dr ${Accounts.PayoutBank} / Cr ${Accounts.PayoutsInTransit} 7180`,
    ]);
  });

  it('to any other account, or with none named: Dr Operating Bank / Cr Payouts In Transit, as always', () => {
    const operating = [
      `disbursement-pending:dis_1: Dr ${Accounts.PayoutsInTransit} / Cr ${Accounts.ProcessorClearing} 7180`,
      `disbursement-paid:dis_1: Dr ${Accounts.OperatingBank} / Cr ${Accounts.PayoutsInTransit} 7180`,
    ];
    expect(drCr(disbursementEntries(paid, { payoutBankAccounts: ['8765'] }))).toEqual(operating);
    expect(drCr(disbursementEntries(paid, { payoutBankAccounts: [] }))).toEqual(operating);
    expect(drCr(disbursementEntries(paid))).toEqual(operating);
    const { accountNumberLastFour: _, ...unnamed } = paid;
    expect(drCr(disbursementEntries(unnamed, { payoutBankAccounts: ['4321'] }))).toEqual(operating);
  });

  it('pending and failed payouts are booked as before, whatever the account', () => {
    const options = { payoutBankAccounts: ['4321'] };
    expect(drCr(disbursementEntries({ ...paid, status: 'PENDING', paidAt: null }, options))).toEqual([
      `disbursement-pending:dis_1: Dr ${Accounts.PayoutsInTransit} / Cr ${Accounts.ProcessorClearing} 7180`,
    ]);
    expect(disbursementEntries({ ...paid, status: 'FAILED' }, options)).toEqual([]);
    expect(payoutBankOf({ accountNumberLastFour: '4321' }, options)).toBe(Accounts.PayoutBank);
    expect(payoutBankOf({ accountNumberLastFour: '4321' })).toBe(Accounts.OperatingBank);
  });

  it('the payout report counts a payout received in Payout Bank as at the bank', () => {
    const booked = disbursementEntries(paid, { payoutBankAccounts: ['4321'] }).map(
      (e) => ({ ...e, reverses: null, reversedBy: null }) as unknown as BookedEntry,
    );
    expect(payoutBooks(booked)).toEqual({ inTransitCents: 0, bankCents: 7_180 });
  });

  it('a resync with the same setting changes nothing; with another, the paid entry is booked again', () => {
    const booked = disbursementEntries(paid, { payoutBankAccounts: ['4321'] }).map(
      (e, i) =>
        ({
          ...e,
          id: i + 1,
          links: e.links ?? {},
          reverses: null,
          reversedBy: null,
          contentHash: '',
          createdAt: `${e.date}T00:00:00Z`,
        }) as unknown as BookedEntry,
    );
    const state = {
      links: [],
      payments: [],
      disbursements: [{ ...paid, bankName: 'Payout Bank', paymentIds: [] } as unknown as Disbursement],
      checkDeposits: [],
      bills: [],
      billPayments: [],
      entries: booked,
    };
    const same = resyncDiff(state, { since: null, timeZone: 'UTC', payoutBankAccounts: ['4321'] });
    expect(same.toReverse).toEqual([]);
    expect(same.toPost).toEqual([]);
    const other = resyncDiff(state, { since: null, timeZone: 'UTC' });
    expect(other.toReverse.map((r) => r.key)).toEqual(['disbursement-paid:dis_1']);
    expect(other.toPost.map((e) => e.key)).toEqual(['disbursement-paid:dis_1#2']);
  });
});

describe('PAYOUT_BANK_ACCOUNTS', () => {
  it('is the last four digits of each account, comma-separated; unset or empty names none', () => {
    expect(loadSettings({ PAYOUT_BANK_ACCOUNTS: '4321, 8765' }).PAYOUT_BANK_ACCOUNTS).toEqual([
      '4321',
      '8765',
    ]);
    expect(loadSettings({ PAYOUT_BANK_ACCOUNTS: ' , ' }).PAYOUT_BANK_ACCOUNTS).toEqual([]);
    expect(loadSettings({ PAYOUT_BANK_ACCOUNTS: '' }).PAYOUT_BANK_ACCOUNTS ?? []).toEqual([]);
    expect(loadSettings({}).PAYOUT_BANK_ACCOUNTS).toBeUndefined();
  });

  it('refuses an item that is not 4 digits, naming it', () => {
    for (const [value, item] of [
      ['4321,12345', '12345'],
      ['432', '432'],
      ['43a1', '43a1'],
      ['****4321', '****4321'],
    ] as const) {
      expect(() => loadSettings({ PAYOUT_BANK_ACCOUNTS: value })).toThrow(SettingsError);
      expect(() => loadSettings({ PAYOUT_BANK_ACCOUNTS: value })).toThrow(
        `PAYOUT_BANK_ACCOUNTS: "${item}" is not the last four digits of a bank account (4 digits each, comma-separated, e.g. 4321,8765), got "${value}"`,
      );
    }
  });
});
