import { freshChart } from '@booksync/vendor-doubles/quickbooks/fresh-chart';
import { describe, expect, it } from 'vitest';
import {
  accountRoles,
  defaultAccountCodes,
  parseAccountMapping,
} from '../../../src/targets/account-mapping.js';
import type { ChartAccount } from '../../../src/targets/quickbooks/account-types.js';
import { planQuickBooksSetup, quickBooksRoleSetup } from '../../../src/targets/quickbooks/setup-plan.js';
import { hasConflicts, mappingValue, planLines, toCreate } from '../../../src/targets/setup/plan.js';

// The plan of `booksync targets setup quickbooks`: each role's account found by number (or id), name or
// subtype in the chart, or to be created with the type the role needs, or a conflict in the way.

const fresh = (): ChartAccount[] => freshChart.map((a, i) => ({ ...a, Id: String(i + 1) }));
const stepOf = (plan: ReturnType<typeof planQuickBooksSetup>, role: string) =>
  plan.steps.find((s) => s.role === role);

describe('planQuickBooksSetup', () => {
  it("matches a chart numbered with the mapping's codes by number, and maps them by number", () => {
    const chart: ChartAccount[] = accountRoles.map((role, i) => {
      const setup = quickBooksRoleSetup[role];
      const { fields } = toCreate(planQuickBooksSetup([], defaultAccountCodes)).find((s) => s.role === role)!;
      return { Id: String(100 + i), Name: setup.name, AcctNum: defaultAccountCodes[role], ...fields };
    });
    const plan = planQuickBooksSetup(chart, defaultAccountCodes);
    expect(plan.steps.map((s) => s.kind)).toEqual(accountRoles.map(() => 'matched'));
    const revenue = chart.find((a) => a.AcctNum === '4000')?.Id;
    expect(stepOf(plan, 'Revenue')).toMatchObject({
      why: 'number 4000',
      account: { code: '4000', id: revenue },
    });
    expect(parseAccountMapping(mappingValue(plan) as string)).toEqual(defaultAccountCodes);
  });

  it('on a new company without numbers: matches by name and subtype, plans the rest with their types', () => {
    const plan = planQuickBooksSetup(fresh(), defaultAccountCodes);
    expect(hasConflicts(plan)).toBe(false);
    expect(stepOf(plan, 'ProcessorClearing')).toMatchObject({
      kind: 'matched',
      why: 'named Undeposited Funds',
      account: { id: '3', code: '3', type: 'Other Current Asset (subtype UndepositedFunds)' },
    });
    expect(stepOf(plan, 'DiscountsAndWriteOffs')).toMatchObject({
      kind: 'matched',
      why: 'named Discounts given',
    });
    expect(stepOf(plan, 'AccountsReceivable')).toMatchObject({ kind: 'matched', account: { id: '6' } });
    expect(stepOf(plan, 'OpeningBalances')).toMatchObject({ kind: 'matched', account: { id: '8' } });
    expect(stepOf(plan, 'BankCharges')).toMatchObject({ kind: 'matched', account: { id: '14' } });
    // A bank account is never guessed: the business's Checking is not taken for the operating bank.
    expect(stepOf(plan, 'OperatingBank')).toMatchObject({
      kind: 'create',
      fields: { Name: 'Operating Bank', AccountType: 'Bank', AccountSubType: 'Checking' },
    });
    expect(stepOf(plan, 'UnappliedCash')).toMatchObject({
      kind: 'create',
      fields: { AccountType: 'Other Current Liability', AccountSubType: 'OtherCurrentLiabilities' },
    });
    expect(
      toCreate(plan)
        .map((s) => s.role)
        .sort(),
    ).toEqual([
      'BadDebt',
      'BillExpenses',
      'ChecksToDeposit',
      'DisputeFees',
      'FeeIncome',
      'OperatingBank',
      'OutgoingPaymentsClearing',
      'PayoutBank',
      'PayoutsInTransit',
      'ProcessingFees',
      'Refunds',
      'ReturnFees',
      'Revenue',
      'SurchargeIncome',
      'UnappliedCash',
    ]);
    expect(stepOf(plan, 'PayoutBank')).toMatchObject({
      kind: 'create',
      fields: { Name: 'Payout Bank', AccountType: 'Bank', AccountSubType: 'Checking' },
    });
    expect(stepOf(plan, 'SurchargeIncome')).toMatchObject({
      kind: 'create',
      fields: { Name: 'Surcharge Income', AccountType: 'Income' },
    });
    expect(stepOf(plan, 'BadDebt')).toMatchObject({
      kind: 'create',
      fields: { Name: 'Bad Debt', AccountType: 'Expense', AccountSubType: 'BadDebts' },
    });
    expect(mappingValue(plan)).toBeNull();
  });

  it('once the planned accounts exist, plans nothing more and maps every role by id', () => {
    const chart = fresh();
    for (const step of toCreate(planQuickBooksSetup(chart, defaultAccountCodes)))
      chart.push({ Id: String(chart.length + 1), ...step.fields });
    const plan = planQuickBooksSetup(chart, defaultAccountCodes);
    expect(plan.steps.every((s) => s.kind === 'matched')).toBe(true);
    const mapping = parseAccountMapping(mappingValue(plan) as string);
    expect(mapping.ProcessorClearing).toBe('3');
    expect(chart.find((a) => a.Id === mapping.Revenue)?.Name).toBe('Sales');
    // Planned again under the mapping written: each role by its id, the same mapping.
    const again = planQuickBooksSetup(chart, mapping);
    expect(stepOf(again, 'Revenue')).toMatchObject({ why: `id ${mapping.Revenue}` });
    expect(mappingValue(again)).toBe(mappingValue(plan));
  });

  it("names the conflicts: the role's number or name on an account of another type", () => {
    const chart: ChartAccount[] = [
      { Id: '1', Name: 'Rent', AcctNum: '1010', AccountType: 'Expense', AccountSubType: 'Rent' },
      { Id: '2', Name: 'Undeposited Funds', AccountType: 'Bank', AccountSubType: 'Checking' },
    ];
    const plan = planQuickBooksSetup(chart, defaultAccountCodes);
    expect(hasConflicts(plan)).toBe(true);
    expect(stepOf(plan, 'OperatingBank')).toMatchObject({
      kind: 'conflict',
      account: { name: 'Rent', type: 'Expense (subtype Rent)' },
      required: 'Bank',
    });
    const lines = planLines(plan).join('\n');
    expect(lines).toContain(
      'ProcessorClearing        CONFLICT  Undeposited Funds (2) is Bank (subtype Checking), named Undeposited Funds; ProcessorClearing requires Other Current Asset (subtype UndepositedFunds)',
    );
  });

  it('matches by subtype only the one account of it, never one another role took', () => {
    const chart: ChartAccount[] = [
      {
        Id: '7',
        Name: 'Clearing (UF)',
        AccountType: 'Other Current Asset',
        AccountSubType: 'UndepositedFunds',
      },
      { Id: '8', Name: 'Fees A', AccountType: 'Expense', AccountSubType: 'BankCharges' },
      { Id: '9', Name: 'Fees B', AccountType: 'Expense', AccountSubType: 'BankCharges' },
    ];
    const plan = planQuickBooksSetup(chart, { ...defaultAccountCodes, ProcessingFees: '8' });
    expect(stepOf(plan, 'ProcessorClearing')).toMatchObject({
      kind: 'matched',
      account: { id: '7' },
      why: "the company's one account of subtype UndepositedFunds",
    });
    // Fees A is ProcessingFees' (by id): Fees B is then the one BankCharges account left.
    expect(stepOf(plan, 'ProcessingFees')).toMatchObject({ kind: 'matched', why: 'id 8' });
    expect(stepOf(plan, 'BankCharges')).toMatchObject({ kind: 'matched', account: { id: '9' } });
    const two = planQuickBooksSetup(chart, defaultAccountCodes);
    expect(stepOf(two, 'BankCharges')).toMatchObject({ kind: 'create' });
  });

  it("refuses an id that is another account's number: the directory would find that account instead", () => {
    const chart: ChartAccount[] = [
      {
        Id: '5',
        Name: 'Undeposited Funds',
        AccountType: 'Other Current Asset',
        AccountSubType: 'UndepositedFunds',
      },
      { Id: '6', Name: 'Petty', AcctNum: '5', AccountType: 'Bank', AccountSubType: 'CashOnHand' },
    ];
    const step = stepOf(planQuickBooksSetup(chart, defaultAccountCodes), 'ProcessorClearing');
    expect(step).toMatchObject({ kind: 'conflict' });
    expect(step?.kind === 'conflict' && step.why).toContain("its id 5 is another account's number");
  });
});
