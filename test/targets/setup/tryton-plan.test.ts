import { describe, expect, it } from 'vitest';
import {
  type AccountRole,
  accountRoles,
  defaultAccountCodes,
  parseAccountMapping,
} from '../../../src/targets/account-mapping.js';
import { hasConflicts, mappingValue, planLines, toCreate } from '../../../src/targets/setup/plan.js';
import {
  accountProblems,
  type TrytonAccountType,
  type TrytonChartAccount,
} from '../../../src/targets/tryton/account-types.js';
import { accountValues, planTrytonSetup, type TrytonChart } from '../../../src/targets/tryton/setup-plan.js';

// The plan of `booksync targets setup tryton`: each role's account found by code, by booksync's name or as
// Tryton's chart template has it, else to be created with a type of the company fitting the role; a
// conflict when the role's code or name is on an account of the wrong kind.

const type = (id: number, name: string, statement: string, flags: Partial<TrytonAccountType> = {}) =>
  ({
    id,
    name,
    statement,
    receivable: false,
    payable: false,
    revenue: false,
    expense: false,
    stock: false,
    assets: false,
    ...flags,
  }) as TrytonAccountType;

// booksync's chart as scripts/tryton/setup-database.py makes it (the chart every other Tryton test uses).
const booksyncTypes = {
  cash: type(3, 'Cash', 'balance', { assets: true }),
  current: type(4, 'Current Assets', 'balance', { assets: true }),
  receivable: type(5, 'Receivable', 'balance', { assets: true, receivable: true }),
  payable: type(6, 'Payable', 'balance', { payable: true }),
  liability: type(7, 'Current Liabilities', 'balance'),
  equity: type(8, 'Equity', 'balance'),
  revenue: type(9, 'Revenue', 'income', { revenue: true }),
  expense: type(10, 'Expense', 'income', { expense: true }),
};
const booksyncKinds: Record<AccountRole, keyof typeof booksyncTypes> = {
  OperatingBank: 'cash',
  ProcessorClearing: 'current',
  PayoutsInTransit: 'current',
  ChecksToDeposit: 'current',
  AccountsReceivable: 'receivable',
  AccountsPayable: 'payable',
  OutgoingPaymentsClearing: 'liability',
  UnappliedCash: 'liability',
  OpeningBalances: 'equity',
  Revenue: 'revenue',
  Refunds: 'revenue',
  FeeIncome: 'revenue',
  DiscountsAndWriteOffs: 'revenue',
  ProcessingFees: 'expense',
  BankCharges: 'expense',
  BillExpenses: 'expense',
  SurchargeIncome: 'revenue',
  DisputeFees: 'expense',
  ReturnFees: 'expense',
  BadDebt: 'expense',
  PayoutBank: 'cash',
};

const account = (
  id: number,
  code: string | null,
  name: string,
  accountType: TrytonAccountType | null,
  extra: Partial<TrytonChartAccount> = {},
): TrytonChartAccount => ({
  id,
  code,
  name,
  type: accountType,
  reconcile: false,
  party_required: false,
  closed: false,
  parent: 1,
  ...extra,
});

function booksyncChart(): TrytonChart {
  const accounts = [
    account(1, null, 'Chart of Accounts', null, { parent: null }),
    ...accountRoles.map((role, i) => {
      const kind = booksyncKinds[role];
      const party = kind === 'receivable' || kind === 'payable';
      return account(10 + i, defaultAccountCodes[role], role, booksyncTypes[kind], {
        reconcile: party,
        party_required: party,
      });
    }),
  ];
  return { accounts, types: Object.values(booksyncTypes) };
}

// A few of Tryton's own chart (Universal Chart of Accounts) as the Create Chart wizard makes it.
const universalTypes = {
  currentAssets: type(21, 'Current Assets', 'balance'),
  receivable: type(22, 'Accounts receivable', 'balance', { receivable: true, assets: true }),
  cash: type(23, 'Cash and Cash Equivalents', 'balance'),
  stock: type(24, 'Inventories', 'balance', { stock: true }),
  payable: type(25, 'Accounts payable', 'balance', { payable: true }),
  financial: type(26, 'Financial liabilities (excluding provisions and accounts payables)', 'balance'),
  equity: type(27, 'Issued capital and reserves attributable to equity holders', 'balance'),
  revenue: type(28, 'Revenue', 'income', { revenue: true }),
  costOfSales: type(29, 'Cost of Sales', 'income', { expense: true }),
};
function universalChart(): TrytonChart {
  const t = universalTypes;
  return {
    types: Object.values(t),
    accounts: [
      account(100, null, 'Universal Chart of Accounts', null, { parent: null }),
      account(101, '1.1.0', 'Cash And Financial Assets', null, { parent: 100 }),
      account(102, '1.1.1', 'Cash and Cash Equivalents', t.cash, { parent: 101 }),
      account(103, '1.2.1', 'Accounts, Notes And Loans Receivable', t.receivable, {
        reconcile: true,
        party_required: true,
        parent: 100,
      }),
      account(104, '2.1.1', 'Trade Payables', t.payable, {
        reconcile: true,
        party_required: true,
        parent: 100,
      }),
      account(105, '4.0.0', 'Revenue', null, { parent: 100 }),
      account(106, '4.1.1', 'Goods', t.revenue, { parent: 105 }),
      account(107, '5.2.1', 'Cost Of Sales', t.costOfSales, { parent: 100 }),
    ],
  };
}

const stepOf = (plan: ReturnType<typeof planTrytonSetup>, role: string) =>
  plan.steps.find((s) => s.role === role);

describe('Tryton account kinds per role', () => {
  it("accepts booksync's own chart for every role", () => {
    const { accounts } = booksyncChart();
    for (const role of accountRoles) {
      const mapped = accounts.find((a) => a.code === defaultAccountCodes[role]) as TrytonChartAccount;
      expect([role, accountProblems(role, mapped)]).toEqual([role, []]);
    }
  });

  it('says what is wrong: the type, reconcile and party, closed', () => {
    const t = booksyncTypes;
    expect(accountProblems('Revenue', account(1, '5', 'Rent', t.expense))).toEqual([
      'its type Expense (income; expense) does not fit',
    ]);
    expect(accountProblems('AccountsReceivable', account(1, '5', 'AR', t.receivable))).toEqual([
      'it is not reconciled',
      'it requires no party',
    ]);
    expect(
      accountProblems(
        'UnappliedCash',
        account(1, '5', 'Old', t.liability, { closed: true, party_required: true }),
      ),
    ).toEqual(['it is closed', 'it requires a party']);
    expect(accountProblems('OperatingBank', account(1, '5', 'Heading', null))).toEqual(['it has no type']);
    // A balance-sheet role's account has a type of the balance statement without a receivable flag.
    expect(accountProblems('ProcessorClearing', account(1, '5', 'Clearing', t.revenue))).toHaveLength(1);
    expect(accountProblems('ProcessorClearing', account(1, '5', 'Clearing', t.receivable))).toHaveLength(1);
  });
});

describe('planTrytonSetup', () => {
  it("matches booksync's chart by code and maps it by the same codes", () => {
    const chart = booksyncChart();
    const plan = planTrytonSetup(chart, defaultAccountCodes);
    expect(plan.steps.map((s) => s.kind)).toEqual(accountRoles.map(() => 'matched'));
    expect(plan.problems).toEqual([]);
    const revenue = String(chart.accounts.find((a) => a.code === '4000')?.id);
    expect(stepOf(plan, 'Revenue')).toMatchObject({
      why: 'code 4000',
      account: { id: revenue, code: '4000' },
    });
    expect(parseAccountMapping(mappingValue(plan) as string)).toEqual(defaultAccountCodes);
  });

  it("on Tryton's own chart: matches its template's accounts, creates the rest with fitting types", () => {
    const chart = universalChart();
    const plan = planTrytonSetup(chart, defaultAccountCodes);
    expect(hasConflicts(plan)).toBe(false);
    expect(stepOf(plan, 'OperatingBank')).toMatchObject({ kind: 'matched', account: { code: '1.1.1' } });
    expect(stepOf(plan, 'AccountsReceivable')).toMatchObject({ kind: 'matched', account: { code: '1.2.1' } });
    expect(stepOf(plan, 'AccountsPayable')).toMatchObject({ kind: 'matched', account: { code: '2.1.1' } });
    // The heading named Revenue (no type) is not the role's account, nor in its way.
    const revenue = stepOf(plan, 'Revenue');
    expect(revenue).toMatchObject({ kind: 'create', fields: { code: '4000', name: 'Revenue', type: '28' } });
    // Under the accounts of its type, else the chart's root.
    expect(revenue?.kind === 'create' && revenue.fields.parent).toBe('105');
    expect(stepOf(plan, 'ProcessorClearing')).toMatchObject({ fields: { type: '21', parent: '100' } });
    expect(stepOf(plan, 'OutgoingPaymentsClearing')).toMatchObject({ fields: { type: '26' } });
    expect(stepOf(plan, 'OpeningBalances')).toMatchObject({ fields: { type: '27' } });
    expect(stepOf(plan, 'BillExpenses')).toMatchObject({ fields: { type: '29', party_required: 'false' } });
    expect(stepOf(plan, 'SurchargeIncome')).toMatchObject({
      kind: 'create',
      fields: { code: '4040', name: 'Surcharge Income', type: '28' },
    });
    expect(stepOf(plan, 'BadDebt')).toMatchObject({ kind: 'create', fields: { code: '6050', type: '29' } });
    expect(stepOf(plan, 'PayoutBank')).toMatchObject({
      kind: 'create',
      fields: { code: '1050', type: '23' },
    });
    expect(toCreate(plan)).toHaveLength(18);
    expect(mappingValue(plan)).toBeNull();
  });

  it('creates receivable and payable accounts reconciled with a party required', () => {
    const { types } = universalChart();
    const plan = planTrytonSetup({ accounts: [], types }, defaultAccountCodes);
    const receivable = stepOf(plan, 'AccountsReceivable');
    expect(receivable).toMatchObject({
      kind: 'create',
      fields: { code: '1200', type: '22', reconcile: 'true', party_required: 'true', parent: '' },
    });
    expect(accountValues(receivable?.kind === 'create' ? receivable.fields : {})).toEqual({
      code: '1200',
      name: 'Accounts Receivable',
      type: 22,
      reconcile: true,
      party_required: true,
    });
    expect(planLines(plan).join('\n')).toContain(
      'AccountsReceivable       to create Accounts Receivable (code 1200, type Accounts receivable (balance; receivable, assets), reconcile, party required)',
    );
  });

  it('once the planned accounts exist, plans nothing more and maps the same codes', () => {
    const chart = universalChart();
    const accounts = [...chart.accounts];
    for (const step of toCreate(planTrytonSetup(chart, defaultAccountCodes))) {
      const values = accountValues(step.fields);
      const t = chart.types.find((x) => x.id === values.type) ?? null;
      accounts.push(
        account(accounts.length + 200, step.fields.code as string, step.name, t, {
          reconcile: values.reconcile as boolean,
          party_required: values.party_required as boolean,
        }),
      );
    }
    const plan = planTrytonSetup({ ...chart, accounts }, defaultAccountCodes);
    expect(plan.steps.every((s) => s.kind === 'matched')).toBe(true);
    const mapping = parseAccountMapping(mappingValue(plan) as string);
    expect(mapping).toMatchObject({ OperatingBank: '1.1.1', Revenue: '4000', UnappliedCash: '2020' });
    const again = planTrytonSetup({ ...chart, accounts }, mapping);
    expect(stepOf(again, 'OperatingBank')).toMatchObject({ why: 'code 1.1.1' });
    expect(mappingValue(again)).toBe(mappingValue(plan));
  });

  it("names the conflicts: the role's code or booksync's name on an account of the wrong kind", () => {
    const chart = universalChart();
    const accounts = [
      ...chart.accounts,
      account(300, '4000', 'Sales', universalTypes.costOfSales),
      account(301, '7', 'Unapplied Cash', universalTypes.revenue),
      account(302, '6010', 'Bank Charges A', universalTypes.costOfSales),
      account(303, '6010', 'Bank Charges B', universalTypes.costOfSales),
    ];
    const plan = planTrytonSetup({ ...chart, accounts }, defaultAccountCodes);
    expect(hasConflicts(plan)).toBe(true);
    expect(stepOf(plan, 'Revenue')).toMatchObject({
      kind: 'conflict',
      account: { name: 'Sales', code: '4000' },
      required: 'a type flagged revenue, no party required',
    });
    expect(stepOf(plan, 'BankCharges')).toMatchObject({ kind: 'conflict' });
    const lines = planLines(plan).join('\n');
    expect(lines).toContain(
      'UnappliedCash            CONFLICT  Unapplied Cash (7) is type Revenue (income; revenue), named Unapplied Cash, its type Revenue (income; revenue) does not fit; UnappliedCash requires a type of the balance statement',
    );
    expect(lines).toContain('code 6010 is held by 2 accounts');
  });

  it('matches by name an account that fits, and refuses one without a code', () => {
    const chart = universalChart();
    const accounts = [
      ...chart.accounts,
      account(400, '2.9', 'Unapplied Cash', universalTypes.financial),
      account(401, null, 'Processor Clearing', universalTypes.currentAssets),
    ];
    const plan = planTrytonSetup({ ...chart, accounts }, defaultAccountCodes);
    expect(stepOf(plan, 'UnappliedCash')).toMatchObject({
      kind: 'matched',
      why: 'named Unapplied Cash',
      account: { code: '2.9' },
    });
    const clearing = stepOf(plan, 'ProcessorClearing');
    expect(clearing).toMatchObject({ kind: 'conflict' });
    expect(clearing?.kind === 'conflict' && clearing.why).toContain('it has no code');
  });

  it('says when no type of the company fits a role', () => {
    const chart = universalChart();
    const types = chart.types.filter((t) => !t.payable);
    const plan = planTrytonSetup({ accounts: [], types }, defaultAccountCodes);
    expect(plan.problems).toEqual([
      expect.stringMatching(/^AccountsPayable: no account type of the company fits/),
    ]);
    expect(stepOf(plan, 'AccountsPayable')).toBeUndefined();
  });
});
