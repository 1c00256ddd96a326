import { type AccountMapping, type AccountRole, accountRoles } from '../account-mapping.js';
import type { PlannedAccount, RoleStep, SetupPlan } from '../setup/plan.js';
import {
  accountProblems,
  describeAccount,
  describeType,
  partyKind,
  requiredKind,
  type TrytonAccountType,
  type TrytonChartAccount,
  trytonRoleKinds,
  typeFits,
} from './account-types.js';

// `booksync targets setup tryton`: each role's account in a Tryton company's chart, found (1) by the code the
// mapping in force gives the role (what verify() looks up), (2) by the name booksync gives the role's account,
// (3) by the code and name of the account Tryton's own chart template (the `account` module's Universal Chart
// of Accounts, what the Create Chart wizard makes) has for the role. Else it is to be created under the
// mapping's code, with an account type of the company fitting the role (account-types.ts), reconcile and
// party required for receivable and payable, under the parent the accounts of that type already have.
// Conflicts: the role's code on an account of the wrong kind (verify() would refuse it), the code held by
// several accounts, or booksync's name on an account that can hold lines but of the wrong kind. A heading
// of the chart (no type) holding booksync's name is passed over: Tryton's own chart has headings named
// Revenue and Equity.

interface RoleSetup {
  /** The name booksync gives the role's account. */
  name: string;
  /** The account Tryton's chart template has for the role (Universal Chart of Accounts, English). */
  inTrytonChart?: { code: string; name: string };
}

export const trytonRoleSetup: Readonly<Record<AccountRole, RoleSetup>> = {
  OperatingBank: {
    name: 'Operating Bank',
    inTrytonChart: { code: '1.1.1', name: 'Cash and Cash Equivalents' },
  },
  ProcessorClearing: { name: 'Processor Clearing' },
  PayoutsInTransit: { name: 'Payouts In Transit' },
  ChecksToDeposit: { name: 'Checks To Deposit' },
  AccountsReceivable: {
    name: 'Accounts Receivable',
    inTrytonChart: { code: '1.2.1', name: 'Accounts, Notes And Loans Receivable' },
  },
  AccountsPayable: { name: 'Accounts Payable', inTrytonChart: { code: '2.1.1', name: 'Trade Payables' } },
  OutgoingPaymentsClearing: { name: 'Outgoing Payments Clearing' },
  UnappliedCash: { name: 'Unapplied Cash' },
  OpeningBalances: { name: 'Opening Balances' },
  Revenue: { name: 'Revenue' },
  Refunds: { name: 'Refunds' },
  FeeIncome: { name: 'Fee Income' },
  DiscountsAndWriteOffs: { name: 'Discounts and Write-offs' },
  ProcessingFees: { name: 'Processing Fees' },
  BankCharges: { name: 'Bank Charges' },
  BillExpenses: { name: 'Bill Expenses' },
  SurchargeIncome: { name: 'Surcharge Income' },
  DisputeFees: { name: 'Dispute Fees' },
  ReturnFees: { name: 'Return Fees' },
  BadDebt: { name: 'Bad Debt' },
  PayoutBank: { name: 'Payout Bank' },
};

/** The company's chart as the planner reads it. */
export interface TrytonChart {
  accounts: readonly TrytonChartAccount[];
  types: readonly TrytonAccountType[];
}

/** The plan, and what stops it that no account can fix (no type of the company fits a role). */
export interface TrytonSetupPlan extends SetupPlan {
  problems: string[];
}

/** The values account.account's create takes for a planned account (its step's fields, as text). */
export function accountValues(fields: Readonly<Record<string, string>>): Record<string, unknown> {
  return {
    code: fields.code,
    name: fields.name,
    type: Number(fields.type),
    reconcile: fields.reconcile === 'true',
    party_required: fields.party_required === 'true',
    ...(fields.parent ? { parent: Number(fields.parent) } : {}),
  };
}

function planned(account: TrytonChartAccount): PlannedAccount {
  return {
    id: String(account.id),
    code: account.code ?? `id ${account.id}`,
    name: account.name,
    type: describeAccount(account),
  };
}

const fits = (role: AccountRole, account: TrytonChartAccount) => accountProblems(role, account).length === 0;

/** The company's types a new account of the role may take, the role's preferred names first. */
export function typesFor(role: AccountRole, types: readonly TrytonAccountType[]): TrytonAccountType[] {
  const { kind, preferTypes } = trytonRoleKinds[role];
  const fitting = types.filter((t) => typeFits(kind, t));
  const rank = (t: TrytonAccountType) => {
    const i = preferTypes.findIndex((pattern) => pattern.test(t.name));
    return i === -1 ? preferTypes.length : i;
  };
  return fitting
    .map((t, i) => ({ t, i }))
    .sort((a, b) => rank(a.t) - rank(b.t) || a.i - b.i)
    .map((x) => x.t);
}

/** The parent of a new account of `type`: where the chart keeps accounts of that type, else its root. */
function parentFor(type: TrytonAccountType, accounts: readonly TrytonChartAccount[]): number | null {
  const sibling = accounts.find((a) => a.type?.id === type.id && a.parent !== null);
  if (sibling) return sibling.parent;
  return accounts.find((a) => a.parent === null)?.id ?? null;
}

function stepFor(
  role: AccountRole,
  code: string,
  chart: TrytonChart,
  taken: ReadonlySet<number>,
  codesPlanned: ReadonlySet<string>,
): RoleStep | { role: AccountRole; problem: string } {
  const setup = trytonRoleSetup[role];
  const required = requiredKind(role);
  const step = (account: TrytonChartAccount, why: string): RoleStep => {
    if (!fits(role, account))
      return {
        role,
        kind: 'conflict',
        account: planned(account),
        why: `${why}, ${accountProblems(role, account).join(', ')}`,
        required,
      };
    if (account.code === null)
      return {
        role,
        kind: 'conflict',
        account: planned(account),
        why: `${why}, but it has no code for TARGET_ACCOUNTS to name it by (give it one)`,
        required,
      };
    return { role, kind: 'matched', account: planned(account), why };
  };

  const byCode = chart.accounts.filter((a) => a.code === code);
  if (byCode.length > 1)
    return {
      role,
      kind: 'conflict',
      account: planned(byCode[0] as TrytonChartAccount),
      why: `code ${code} is held by ${byCode.length} accounts (Tryton finds either)`,
      required,
    };
  if (byCode[0]) return step(byCode[0], `code ${code}`);

  const free = chart.accounts.filter((a) => !taken.has(a.id));
  const named = free.filter((a) => a.name === setup.name && a.type !== null);
  const namedFit = named.find((a) => fits(role, a) && a.code !== null);
  if (namedFit) return step(namedFit, `named ${setup.name}`);
  if (named[0]) return step(named[0], `named ${setup.name}`);
  const own = setup.inTrytonChart;
  const template = own && free.find((a) => a.code === own.code && a.name === own.name && fits(role, a));
  if (template) return step(template, "Tryton's chart template's account for it");

  const type = typesFor(role, chart.types)[0];
  if (!type)
    return {
      role,
      problem: `${role}: no account type of the company fits (${required}); add one in Tryton (Financial > Configuration > Account Types) and run again`,
    };
  const newCode = [code, `${code}-${role}`].find(
    (c) => !codesPlanned.has(c) && !chart.accounts.some((a) => a.code === c),
  ) as string;
  const party = partyKind(trytonRoleKinds[role].kind);
  const parent = parentFor(type, chart.accounts);
  return {
    role,
    kind: 'create',
    name: setup.name,
    type: `code ${newCode}, type ${describeType(type)}${party ? ', reconcile, party required' : ''}`,
    fields: {
      code: newCode,
      name: setup.name,
      type: String(type.id),
      reconcile: String(party),
      party_required: String(party),
      parent: parent === null ? '' : String(parent),
    },
  };
}

/** The plan for a Tryton company's chart under the mapping in force. */
export function planTrytonSetup(chart: TrytonChart, mapping: AccountMapping): TrytonSetupPlan {
  const taken = new Set<number>();
  const codesPlanned = new Set<string>();
  const steps: RoleStep[] = [];
  const problems: string[] = [];
  for (const role of accountRoles) {
    const step = stepFor(role, mapping[role], chart, taken, codesPlanned);
    if ('problem' in step) {
      problems.push(step.problem);
      continue;
    }
    if (step.kind === 'create') codesPlanned.add(step.fields.code as string);
    else taken.add(Number(step.account.id));
    steps.push(step);
  }
  return { target: 'tryton', steps, problems };
}
