import type { AccountRole } from '../account-mapping.js';
import type { TrytonRpc } from './json-rpc.js';

// What the Tryton account of each role must be for the documents booksync writes on it (trytond 8.2,
// `account` and `account_invoice` modules):
// - a customer invoice's account is of a type flagged receivable, a supplier invoice's payable
//   (account.invoice `account` domain); booksync reconciles their lines (reconcile) and puts the party on
//   them, and Tryton wants a party on a line exactly when its account requires one (account.move.line
//   check_account): receivable and payable accounts have reconcile and party_required;
// - a customer invoice line's account is of a type flagged revenue, a supplier invoice line's expense
//   (account.invoice.line _account_domain): booksync's income roles are revenue accounts (refunds and
//   write-offs too: they are credit notes' lines), its cost roles expense accounts;
// - the other roles are balance-sheet accounts (money on its way, a customer's unapplied credit, opening
//   balances) on lines without a party: a type of the balance statement, none of the receivable, payable,
//   revenue, expense or stock flags, and no party required;
// - every role's account has a type (an account without one is a heading of the chart: no line may post on
//   it) and is not closed.
// verify() checks the mapped accounts against this table; `targets setup tryton` creates missing accounts
// from it (setup-plan.ts).

/** An account type of the company (account.account.type) with the flags booksync reads. */
export interface TrytonAccountType {
  id: number;
  name: string;
  /** `balance`, `income`, `off-balance`, or null (a heading of the types' tree). */
  statement: string | null;
  receivable: boolean;
  payable: boolean;
  revenue: boolean;
  expense: boolean;
  stock: boolean;
  assets: boolean;
}

/** An account of the company's chart (account.account), its type read with it. */
export interface TrytonChartAccount {
  id: number;
  code: string | null;
  name: string;
  type: TrytonAccountType | null;
  reconcile: boolean;
  party_required: boolean;
  closed: boolean;
  parent: number | null;
}

export type TrytonAccountKind = 'balance' | 'receivable' | 'payable' | 'revenue' | 'expense';

export interface RoleAccountKind {
  kind: TrytonAccountKind;
  /** Which of the company's fitting types a new account of the role takes first, by the type's name. */
  preferTypes: readonly RegExp[];
  /** Why, in booksync's documents. */
  because: string;
}

const cash: RoleAccountKind = {
  kind: 'balance',
  preferTypes: [/^cash$/i, /cash/i, /bank/i],
  because: "the business's bank account",
};
const clearing = (because: string): RoleAccountKind => ({
  kind: 'balance',
  preferTypes: [/^current assets$/i, /cash/i],
  because,
});
const liability = (because: string): RoleAccountKind => ({
  kind: 'balance',
  preferTypes: [/^current liabilities$/i, /liabilit/i],
  because,
});
const revenue = (because: string): RoleAccountKind => ({ kind: 'revenue', preferTypes: [], because });
const expense = (because: string): RoleAccountKind => ({ kind: 'expense', preferTypes: [], because });

export const trytonRoleKinds: Readonly<Record<AccountRole, RoleAccountKind>> = {
  OperatingBank: cash,
  ProcessorClearing: clearing('payments wait in it for their payout'),
  PayoutsInTransit: clearing('a payout waits in it until the bank receives it'),
  ChecksToDeposit: clearing('a check waits in it until it clears'),
  AccountsReceivable: {
    kind: 'receivable',
    preferTypes: [],
    because: "customer invoices' account, reconciled with their payments per party",
  },
  AccountsPayable: {
    kind: 'payable',
    preferTypes: [],
    because: "supplier invoices' account, reconciled with their payments per party",
  },
  OutgoingPaymentsClearing: liability('a bill payment sent waits in it until it is paid out'),
  UnappliedCash: liability("a customer's money not yet applied is owed to the customer"),
  OpeningBalances: {
    kind: 'balance',
    preferTypes: [/^equity$/i, /equity/i],
    because: 'opening balances are equity',
  },
  Revenue: revenue("customer invoices' lines"),
  Refunds: revenue('lines of the invoices a refund reopens'),
  FeeIncome: revenue('fees charged are income'),
  DiscountsAndWriteOffs: revenue('lines of the credit notes that lower an invoice'),
  ProcessingFees: expense('processing fees are an expense'),
  BankCharges: expense('bank charges are an expense'),
  BillExpenses: expense("supplier invoices' lines"),
  SurchargeIncome: revenue('surcharges paid by customers are income'),
  DisputeFees: expense('dispute fees are an expense'),
  ReturnFees: expense('return fees are an expense'),
  BadDebt: expense('receivables written off are an expense'),
  PayoutBank: cash,
};

const flags = ['receivable', 'payable', 'revenue', 'expense', 'stock'] as const;

/** Whether a type fits the kind (its flags and statement), whatever the account's own fields. */
export function typeFits(kind: TrytonAccountKind, type: TrytonAccountType): boolean {
  if (kind === 'balance') return type.statement === 'balance' && flags.every((flag) => !type[flag]);
  return type[kind];
}

/** Whether an account of the kind is reconciled and requires a party. */
export const partyKind = (kind: TrytonAccountKind): boolean => kind === 'receivable' || kind === 'payable';

/** What the role requires, as a person reads it. */
export function requiredKind(role: AccountRole): string {
  const { kind } = trytonRoleKinds[role];
  if (kind === 'balance')
    return 'a type of the balance statement without the receivable, payable, revenue, expense or stock flag, no party required';
  if (partyKind(kind)) return `a type flagged ${kind}, reconcile and party required`;
  return `a type flagged ${kind}, no party required`;
}

/** What is wrong with the account for the role: empty when it fits. */
export function accountProblems(role: AccountRole, account: TrytonChartAccount): string[] {
  const { kind } = trytonRoleKinds[role];
  const problems: string[] = [];
  if (!account.type) problems.push('it has no type');
  else if (!typeFits(kind, account.type))
    problems.push(`its type ${describeType(account.type)} does not fit`);
  if (account.closed) problems.push('it is closed');
  if (partyKind(kind)) {
    if (!account.reconcile) problems.push('it is not reconciled');
    if (!account.party_required) problems.push('it requires no party');
  } else if (account.party_required) problems.push('it requires a party');
  return problems;
}

/** A type with its statement and flags: `Receivable (balance; receivable, assets)`. */
export function describeType(type: TrytonAccountType): string {
  const set = [...flags, 'assets' as const].filter((flag) => type[flag]);
  return `${type.name} (${type.statement ?? 'no statement'}${set.length > 0 ? `; ${set.join(', ')}` : ''})`;
}

/** An account's kind as a person reads it: `type Cash (balance), reconcile, party required, closed`. */
export function describeAccount(account: TrytonChartAccount): string {
  return [
    account.type ? `type ${describeType(account.type)}` : 'no type (a heading of the chart)',
    ...(account.reconcile ? ['reconcile'] : []),
    ...(account.party_required ? ['party required'] : []),
    ...(account.closed ? ['closed'] : []),
  ].join(', ');
}

/** One line for verify(): the role, the account, what it is and what the role requires. */
export function mismatchLine(role: AccountRole, account: TrytonChartAccount): string {
  return `${role}: Tryton account ${account.code ?? ''} ${account.name} is ${describeAccount(account)} (${accountProblems(role, account).join('; ')}); ${role} requires ${requiredKind(role)}`;
}

const typeFields = ['name', 'statement', ...flags, 'assets'];
const accountFields = ['code', 'name', 'type', 'reconcile', 'party_required', 'closed', 'parent'];

interface AccountRow {
  id: number;
  code: string | null;
  name: string;
  type: number | null;
  reconcile: boolean;
  party_required: boolean;
  closed: boolean;
  parent: number | null;
}

/** The company's account types (account.account.type), in Tryton's order. */
export async function readAccountTypes(rpc: TrytonRpc): Promise<TrytonAccountType[]> {
  const rows = await rpc.searchRead<Record<string, unknown> & { id: number }>(
    'account.account.type',
    [],
    typeFields,
  );
  return rows.map((row) => ({
    id: row.id,
    name: String(row.name ?? ''),
    statement: typeof row.statement === 'string' && row.statement !== '' ? row.statement : null,
    receivable: row.receivable === true,
    payable: row.payable === true,
    revenue: row.revenue === true,
    expense: row.expense === true,
    stock: row.stock === true,
    assets: row.assets === true,
  }));
}

/** The company's accounts matching `domain` (all of them by default), each with its type. */
export async function readChartAccounts(
  rpc: TrytonRpc,
  domain: unknown[] = [],
  types?: readonly TrytonAccountType[],
): Promise<TrytonChartAccount[]> {
  const rows = await rpc.searchRead<AccountRow>('account.account', domain, accountFields);
  const byId = new Map((types ?? (await readAccountTypes(rpc))).map((t) => [t.id, t]));
  return rows.map((row) => ({
    id: row.id,
    code: typeof row.code === 'string' && row.code !== '' ? row.code : null,
    name: String(row.name ?? ''),
    type: row.type === null ? null : (byId.get(row.type) ?? null),
    reconcile: row.reconcile === true,
    party_required: row.party_required === true,
    closed: row.closed === true,
    parent: typeof row.parent === 'number' ? row.parent : null,
  }));
}
