import { demoChart } from '@booksync/vendor-doubles/xero/demo-chart';
import { describe, expect, it } from 'vitest';
import {
  accountRoles,
  defaultAccountCodes,
  parseAccountMapping,
} from '../../../src/targets/account-mapping.js';
import { hasConflicts, mappingValue, planLines, toCreate } from '../../../src/targets/setup/plan.js';
import type { XeroChartAccount } from '../../../src/targets/xero/account-types.js';
import { planXeroSetup } from '../../../src/targets/xero/setup-plan.js';

// The plan of `booksync targets setup xero`: each role's account found by code, by Xero's system account
// (receivable, payable), by name in the chart, or to be created with the type the role needs, or a conflict.

const account = (a: Partial<XeroChartAccount> & { code: string; name: string; type: string }) => ({
  accountID: `id-${a.code || a.name}`,
  status: 'ACTIVE',
  enablePaymentsToAccount: false,
  systemAccount: '',
  ...a,
});
const demo = (): XeroChartAccount[] =>
  demoChart.map((a) =>
    account({ code: a.Code, name: a.Name, type: a.Type, systemAccount: a.SystemAccount ?? '' }),
  );
const stepOf = (plan: ReturnType<typeof planXeroSetup>, role: string) =>
  plan.steps.find((s) => s.role === role);

/** The chart once the plan's new accounts exist, as Xero would hold them. */
const withCreated = (chart: XeroChartAccount[], plan: ReturnType<typeof planXeroSetup>) => [
  ...chart,
  ...toCreate(plan).map((s) =>
    account({
      code: s.fields.Code as string,
      name: s.fields.Name as string,
      type: s.fields.Type as string,
      enablePaymentsToAccount: s.fields.EnablePaymentsToAccount === 'true',
    }),
  ),
];

describe('planXeroSetup', () => {
  it("on Xero's demo company: the system accounts and Xero's names matched, the rest planned with booksync's codes", () => {
    const plan = planXeroSetup(demo(), defaultAccountCodes);
    expect(hasConflicts(plan)).toBe(false);
    expect(stepOf(plan, 'AccountsReceivable')).toMatchObject({
      kind: 'matched',
      why: "Xero's DEBTORS system account",
      account: { code: '610', type: 'CURRENT (system account DEBTORS)' },
    });
    expect(stepOf(plan, 'AccountsPayable')).toMatchObject({ kind: 'matched', account: { code: '800' } });
    expect(stepOf(plan, 'Revenue')).toMatchObject({
      kind: 'matched',
      why: 'named Sales',
      account: { code: '200' },
    });
    expect(stepOf(plan, 'BankCharges')).toMatchObject({
      kind: 'matched',
      why: 'named Bank Fees',
      account: { code: '404' },
    });
    expect(stepOf(plan, 'BillExpenses')).toMatchObject({ kind: 'matched', account: { code: '429' } });
    // The business's bank account is never taken for a clearing account nor the operating bank.
    expect(stepOf(plan, 'OperatingBank')).toMatchObject({
      kind: 'create',
      fields: { Code: '1010', Name: 'Operating Bank', Type: 'BANK', BankAccountNumber: '0900001010' },
    });
    expect(stepOf(plan, 'UnappliedCash')).toMatchObject({
      kind: 'create',
      fields: { Code: '2020', Type: 'CURRLIAB', EnablePaymentsToAccount: 'true' },
    });
    expect(stepOf(plan, 'OpeningBalances')).toMatchObject({ kind: 'create', fields: { Type: 'EQUITY' } });
    expect(stepOf(plan, 'ProcessingFees')).toMatchObject({ kind: 'create', fields: { Type: 'EXPENSE' } });
    expect(
      toCreate(plan)
        .map((s) => s.role)
        .sort(),
    ).toEqual([
      'BadDebt',
      'ChecksToDeposit',
      'DiscountsAndWriteOffs',
      'DisputeFees',
      'FeeIncome',
      'OpeningBalances',
      'OperatingBank',
      'OutgoingPaymentsClearing',
      'PayoutBank',
      'PayoutsInTransit',
      'ProcessingFees',
      'ProcessorClearing',
      'Refunds',
      'ReturnFees',
      'SurchargeIncome',
      'UnappliedCash',
    ]);
    expect(stepOf(plan, 'PayoutBank')).toMatchObject({
      kind: 'create',
      fields: { Code: '1050', Name: 'Payout Bank', Type: 'BANK', BankAccountNumber: '0900001050' },
    });
    expect(stepOf(plan, 'SurchargeIncome')).toMatchObject({
      kind: 'create',
      fields: { Code: '4040', Type: 'REVENUE' },
    });
    expect(stepOf(plan, 'DisputeFees')).toMatchObject({
      kind: 'create',
      fields: { Code: '6030', Type: 'EXPENSE' },
    });
    expect(mappingValue(plan)).toBeNull();
    expect(planLines(plan)).toContain('OperatingBank            to create Operating Bank (BANK, code 1010)');
  });

  it('once the planned accounts exist, plans nothing more and maps every role by code', () => {
    const first = planXeroSetup(demo(), defaultAccountCodes);
    const chart = withCreated(demo(), first);
    const created = Object.fromEntries(toCreate(first).map((s) => [s.role, s.fields.Code as string]));
    // With the mapping the first run wrote, and with the defaults still in force: the same accounts.
    for (const mapping of [
      parseAccountMapping(mappingValue(first, created) as string),
      defaultAccountCodes,
    ]) {
      const plan = planXeroSetup(chart, mapping);
      expect(plan.steps.map((s) => s.kind)).toEqual(accountRoles.map(() => 'matched'));
      expect(parseAccountMapping(mappingValue(plan) as string)).toMatchObject({
        ...created,
        AccountsReceivable: '610',
        AccountsPayable: '800',
        Revenue: '200',
        BankCharges: '404',
        BillExpenses: '429',
      });
    }
  });

  it('takes the next free code when the mapping’s code is an archived account’s', () => {
    const chart = [...demo(), account({ code: '1010', name: 'Old Bank', type: 'BANK', status: 'ARCHIVED' })];
    expect(stepOf(planXeroSetup(chart, defaultAccountCodes), 'OperatingBank')).toMatchObject({
      kind: 'create',
      fields: { Code: '1011' },
    });
  });

  it('names a conflict: the role’s code or name on an account of the wrong type, or without payments', () => {
    const chart = [
      ...demo(),
      account({ code: '1020', name: 'Stripe Balance', type: 'CURRENT' }),
      account({ code: '7000', name: 'Operating Bank', type: 'EXPENSE' }),
      account({ code: '2100', name: 'Unapplied Cash', type: 'CURRLIAB' }),
    ];
    const plan = planXeroSetup(chart, { ...defaultAccountCodes, AccountsReceivable: '630' });
    expect(hasConflicts(plan)).toBe(true);
    expect(stepOf(plan, 'ProcessorClearing')).toMatchObject({
      kind: 'conflict',
      why: 'code 1020',
      required: 'BANK, not a system account',
    });
    expect(stepOf(plan, 'OperatingBank')).toMatchObject({ kind: 'conflict', why: 'named Operating Bank' });
    expect(stepOf(plan, 'UnappliedCash')).toMatchObject({
      kind: 'conflict',
      why: 'named Unapplied Cash, but payments are not enabled on it (tick "Enable payments to this account")',
    });
    // The mapping's code names the organisation's inventory, not its receivable.
    expect(stepOf(plan, 'AccountsReceivable')).toMatchObject({
      kind: 'conflict',
      account: { code: '630', type: 'CURRENT' },
      required: 'CURRENT (system account DEBTORS)',
    });
    expect(planLines(plan)).toContain(
      'ProcessorClearing        CONFLICT  Stripe Balance (1020) is CURRENT, code 1020; ProcessorClearing requires BANK, not a system account',
    );
  });

  it('a bank account without a code is named, not mapped: TARGET_ACCOUNTS names accounts by code', () => {
    const chart = [...demo(), account({ code: '', name: 'Processor Clearing', type: 'BANK' })];
    expect(stepOf(planXeroSetup(chart, defaultAccountCodes), 'ProcessorClearing')).toMatchObject({
      kind: 'conflict',
      why: 'named Processor Clearing, but it has no code for TARGET_ACCOUNTS to name it by (give it one)',
    });
  });
});
