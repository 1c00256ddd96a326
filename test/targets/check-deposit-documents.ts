import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import {
  type CheckDepositForBooks,
  checkDepositEntries,
  checkDepositEntryKinds,
  earlierCheckBooking,
} from '../../src/ledger/mapping/index.js';
import { syncEntries } from '../../src/ledger/sync.js';
import type { AccountRole } from '../../src/targets/account-mapping.js';
import { documentFor } from '../../src/targets/documents.js';
import type { TargetDocument } from '../../src/targets/target-port.js';

// A deposited check booked whole, as every target receives it: the documents come from a
// real ledger (the mapping, the sync, documentFor), so each target test pushes what booksync would push.
//
//   03-01 invoices A 1,000.00 and B 500.00 (two customers' links)
//   03-02 check of 1,500.00 deposited (Checks To Deposit / Unapplied Cash)
//   03-03 1,000.00 of it applied to A
//   03-05 the check cleared: the bank gets 1,500.00
//   03-09 500.00 applied to B, after the check cleared
//   returned(): the same up to 03-05, then the bank returns the check on 03-12: every entry reversed.

export interface CheckDepositScenario {
  run: string;
  links: { A: string; B: string };
  /** Every document in posting order. */
  documents: TargetDocument[];
}

/** The ledger's balances the target must show at the end, per role (every other role 0). */
export const appliedWholeBalances: Partial<Record<AccountRole, number>> = {
  OperatingBank: 1_500_00,
  ChecksToDeposit: 0,
  UnappliedCash: 0,
  AccountsReceivable: 0,
  Revenue: -1_500_00,
};

export const returnedBalances: Partial<Record<AccountRole, number>> = {
  OperatingBank: 0,
  ChecksToDeposit: 0,
  UnappliedCash: 0,
  AccountsReceivable: 1_500_00,
  Revenue: -1_500_00,
};

/**
 * `firstApplicationCents`: what the 03-03 application puts on A (1,000.00 by default; less leaves A partly
 * owed and that much more of the check unapplied at the end).
 */
export async function checkDepositScenario(
  outcome: 'applied-after-clearing' | 'returned',
  { firstApplicationCents = 1_000_00 }: { firstApplicationCents?: number } = {},
) {
  const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const links = { A: `plA_${run}`, B: `plB_${run}` };
  const customers: Record<string, { serviceId: string; name: string; email: string | null }> = {};
  const ledger = EmbeddedLedger.open();
  try {
    for (const [name, link, cents] of [
      ['A', links.A, 1_000_00],
      ['B', links.B, 500_00],
    ] as const) {
      const customerId = `cus_${name}_${run}`;
      customers[customerId] = { serviceId: customerId, name: `Check ${name} ${run}`, email: null };
      await ledger.post({
        key: `invoice:${link}`,
        date: '2026-03-01',
        description: `Invoice ${link}`,
        lines: [
          { account: Accounts.AccountsReceivable, amountCents: cents },
          { account: Accounts.Revenue, amountCents: -cents },
        ],
        links: { paymentLinkId: link, customerId },
      });
    }
    const depositId = `cd_${run}`;
    const application = (id: string, cents: number, paidAt: string) => ({
      id: `${id}_${run}`,
      amountCents: cents,
      paidAt,
      voided: false,
      serviceBankingTransferId: 'tr_1',
    });
    const linkOf: Record<string, string> = {
      [`ep1_${run}`]: links.A,
      [`ep2_${run}`]: links.B,
    };
    const processing: CheckDepositForBooks = {
      id: depositId,
      status: 'PROCESSING',
      amountCents: 1_500_00,
      createdAt: '2026-03-02T15:00:00.000Z',
      clearedAt: null,
      applications: [application('ep1', firstApplicationCents, '2026-03-03')],
    };
    const cleared = { ...processing, status: 'CLEARED', clearedAt: '2026-03-05T15:00:00.000Z' };
    const states: { deposit: CheckDepositForBooks; date: string }[] = [
      { deposit: processing, date: '2026-03-03' },
      { deposit: cleared, date: '2026-03-05' },
      outcome === 'returned'
        ? { deposit: { ...cleared, status: 'RETURNED', applications: [] }, date: '2026-03-12' }
        : {
            deposit: {
              ...cleared,
              applications: [...cleared.applications, application('ep2', 500_00, '2026-03-09')],
            },
            date: '2026-03-09',
          },
    ];
    for (const { deposit, date } of states) {
      const booked = await ledger.entriesFor({ checkDepositId: depositId });
      await syncEntries(
        ledger,
        checkDepositEntries(deposit, (id) => linkOf[id], 'UTC', earlierCheckBooking(depositId, booked)),
        { checkDepositId: depositId },
        { kinds: checkDepositEntryKinds, date, reason: `check deposit ${deposit.status}` },
      );
    }
    const documents: TargetDocument[] = [];
    for (const entry of await ledger.allEntries()) {
      documents.push(
        await documentFor(
          entry,
          {
            paymentLink: async (id) => ({
              name: `CHK-${id.slice(2, 3)}-${run}`,
              customerId: id === links.A ? `cus_A_${run}` : `cus_B_${run}`,
            }),
            customer: async (id) => {
              const found = customers[id];
              if (!found) throw new Error(`no customer ${id}`);
              return found;
            },
            vendor: async () => {
              throw new Error('no vendor in this scenario');
            },
            bill: async () => {
              throw new Error('no bill in this scenario');
            },
            payout: async () => ({ paymentIds: [] }),
          },
          { get: (key) => ledger.get(key), entriesFor: (filter) => ledger.entriesFor(filter) },
        ),
      );
    }
    const balances: Partial<Record<AccountRole, number>> = {};
    for (const [role, account] of [
      ['OperatingBank', Accounts.OperatingBank],
      ['ChecksToDeposit', Accounts.ChecksToDeposit],
      ['UnappliedCash', Accounts.UnappliedCash],
      ['AccountsReceivable', Accounts.AccountsReceivable],
      ['Revenue', Accounts.Revenue],
    ] as const) {
      balances[role] = await ledger.balanceOf(account);
    }
    return { run, links, documents, ledgerBalances: balances };
  } finally {
    ledger.close();
  }
}
