import { type AccountMapping, type AccountRole, accountRoles } from '../account-mapping.js';
import type { PlannedAccount, RoleStep, SetupPlan } from '../setup/plan.js';
import { accountTypeMismatch, type ChartAccount, requiredType, roleAccountTypes } from './account-types.js';

// `booksync targets setup quickbooks`: each role's account in a QBO company's chart, found (1) by the number
// or id the mapping in force gives the role (what verify() looks up), (2) by the name booksync gives the
// role's account, or a name QBO's own charts give it, (3) by the subtype only that role's account has
// (Undeposited Funds for ProcessorClearing), when the chart has exactly one of it. Else it is to be created,
// with the AccountType the role's documents need (account-types.ts) and a subtype QBO files it under.
// An account found by the role's number, or holding the name a new account would take, but of another type
// is a conflict: QBO refuses a second account of that name, and the role's documents that account.

interface RoleSetup {
  /** The new account's Name, matched first. */
  name: string;
  /** Names QBO's own charts (a new company, the sample company) give an account fit for the role. */
  alsoNamed?: readonly string[];
  /** A subtype only the role's account has in a chart: the one account of it is the role's. */
  matchSubType?: string;
  /** The new account's AccountSubType (the role's required subtype when it has one). */
  subType: string;
}

export const quickBooksRoleSetup: Readonly<Record<AccountRole, RoleSetup>> = {
  OperatingBank: { name: 'Operating Bank', subType: 'Checking' },
  ProcessorClearing: {
    name: 'Undeposited Funds',
    matchSubType: 'UndepositedFunds',
    subType: 'UndepositedFunds',
  },
  PayoutsInTransit: { name: 'Payouts In Transit', subType: 'OtherCurrentAssets' },
  ChecksToDeposit: { name: 'Checks To Deposit', subType: 'OtherCurrentAssets' },
  AccountsReceivable: {
    name: 'Accounts Receivable (A/R)',
    matchSubType: 'AccountsReceivable',
    subType: 'AccountsReceivable',
  },
  AccountsPayable: {
    name: 'Accounts Payable (A/P)',
    matchSubType: 'AccountsPayable',
    subType: 'AccountsPayable',
  },
  OutgoingPaymentsClearing: { name: 'Outgoing Payments Clearing', subType: 'Checking' },
  UnappliedCash: { name: 'Unapplied Cash', subType: 'OtherCurrentLiabilities' },
  OpeningBalances: {
    name: 'Opening Balance Equity',
    matchSubType: 'OpeningBalanceEquity',
    subType: 'OpeningBalanceEquity',
  },
  Revenue: { name: 'Sales', subType: 'SalesOfProductIncome' },
  Refunds: { name: 'Refunds', subType: 'DiscountsRefundsGiven' },
  FeeIncome: { name: 'Fee Income', subType: 'ServiceFeeIncome' },
  DiscountsAndWriteOffs: {
    name: 'Discounts and Write-offs',
    alsoNamed: ['Discounts given'],
    matchSubType: 'DiscountsRefundsGiven',
    subType: 'DiscountsRefundsGiven',
  },
  ProcessingFees: { name: 'Processing Fees', subType: 'OtherMiscellaneousServiceCost' },
  BankCharges: {
    name: 'Bank Charges',
    alsoNamed: ['Bank Charges & Fees'],
    matchSubType: 'BankCharges',
    subType: 'BankCharges',
  },
  BillExpenses: { name: 'Bill Expenses', subType: 'OtherMiscellaneousServiceCost' },
  SurchargeIncome: { name: 'Surcharge Income', subType: 'ServiceFeeIncome' },
  DisputeFees: { name: 'Dispute Fees', subType: 'OtherMiscellaneousServiceCost' },
  ReturnFees: { name: 'Return Fees', subType: 'OtherMiscellaneousServiceCost' },
  BadDebt: { name: 'Bad Debt', alsoNamed: ['Bad Debts'], matchSubType: 'BadDebts', subType: 'BadDebts' },
  PayoutBank: { name: 'Payout Bank', subType: 'Checking' },
};

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/**
 * What TARGET_ACCOUNTS names the account by: its number (AcctNum) when it has one, else its Id. The directory
 * tries a code as a number before an id, so an Id that is another account's number cannot name it (null).
 */
export function mappingCode(account: ChartAccount, chart: readonly ChartAccount[]): string | null {
  const number = text(account.AcctNum);
  if (number) return number;
  return chart.some((a) => a !== account && text(a.AcctNum) === account.Id) ? null : account.Id;
}

function planned(account: ChartAccount, chart: readonly ChartAccount[]): PlannedAccount {
  const sub = text(account.AccountSubType);
  return {
    id: account.Id,
    code: mappingCode(account, chart) ?? `id ${account.Id}`,
    name: String(account.Name ?? ''),
    type: `${String(account.AccountType ?? '')}${sub ? ` (subtype ${sub})` : ''}`,
  };
}

const fits = (role: AccountRole, account: ChartAccount) => accountTypeMismatch(role, account) === null;

/** The role's step in `chart`, `taken` holding the ids other roles matched by name or subtype. */
function stepFor(
  role: AccountRole,
  code: string,
  chart: readonly ChartAccount[],
  taken: ReadonlySet<string>,
): RoleStep {
  const setup = quickBooksRoleSetup[role];
  const required = requiredType(role);
  const step = (account: ChartAccount, why: string): RoleStep => {
    if (!fits(role, account))
      return { role, kind: 'conflict', account: planned(account, chart), why, required };
    if (mappingCode(account, chart) === null)
      return {
        role,
        kind: 'conflict',
        account: planned(account, chart),
        why: `${why}, but its id ${account.Id} is another account's number (give it a number)`,
        required,
      };
    return { role, kind: 'matched', account: planned(account, chart), why };
  };

  const byNumber = chart.find((a) => text(a.AcctNum) === code);
  if (byNumber) return step(byNumber, `number ${code}`);
  const byId = chart.find((a) => a.Id === code);
  if (byId) return step(byId, `id ${code}`);

  // The name a new account would take is the role's account, or in the way when of another type.
  const named = chart.find((a) => a.Name === setup.name);
  if (named) return step(named, `named ${setup.name}`);
  const free = chart.filter((a) => !taken.has(a.Id));
  for (const name of setup.alsoNamed ?? []) {
    const also = free.find((a) => a.Name === name && fits(role, a));
    if (also) return step(also, `named ${name}`);
  }
  const ofSubType = setup.matchSubType
    ? free.filter((a) => a.AccountSubType === setup.matchSubType && fits(role, a))
    : [];
  if (ofSubType.length === 1 && ofSubType[0])
    return step(ofSubType[0], `the company's one account of subtype ${setup.matchSubType}`);

  const type = roleAccountTypes[role].types[0] as string;
  return {
    role,
    kind: 'create',
    name: setup.name,
    type: `${type} (subtype ${setup.subType})`,
    fields: { Name: setup.name, AccountType: type, AccountSubType: setup.subType },
  };
}

/** The plan for a QBO company's chart (active accounts) under the mapping in force. */
export function planQuickBooksSetup(chart: readonly ChartAccount[], mapping: AccountMapping): SetupPlan {
  const taken = new Set<string>();
  const steps = accountRoles.map((role) => {
    const step = stepFor(role, mapping[role], chart, taken);
    if (step.kind !== 'create') taken.add(step.account.id);
    return step;
  });
  return { target: 'quickbooks', steps };
}
