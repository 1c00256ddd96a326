import type { AccountRole } from '../account-mapping.js';

// What the Xero account of each role must be, from what the adapter writes on it (documents.ts, reversals.ts,
// money-parts.ts) and Xero's rules for those documents (xero_accounting.yaml; packages/vendor-doubles/src/xero/README.md):
// - money moves between the processor's balance, payouts in transit, checks to deposit, the operating bank and
//   outgoing payments as BankTransfers, which join two BANK accounts; sales, fees and refunds are
//   BankTransactions, whose BankAccount is a BANK account; payments are received into and bills paid from
//   them (a Payment's Account is a BANK account or one with payments enabled);
// - invoices, credit notes and payments post to the organisation's receivable and payable, Xero's system
//   accounts (SystemAccount DEBTORS, CREDITORS: Type CURRENT, CURRLIAB), whatever account is mapped;
// - a deposited check's credit pays invoices from Unapplied Cash as a Payment (a manual journal cannot touch
//   the receivable), so that liability needs "Enable payments to this account";
// - every other role is a line of an invoice, credit note, bill, bank transaction or manual journal, which
//   Xero refuses on a system account (README, journal-system-account) and takes on an account of its class.
// One table for verify() (a role mapped to an account of another type stops start-up, before Xero refuses
// its documents one by one) and for `booksync targets setup xero` (a new account takes the first type).

/** An account of Xero's chart as verify() and the setup read it (GET Accounts, the SDK's camelCase). */
export interface XeroChartAccount {
  accountID: string;
  /** Empty when the account has none (Xero's bank accounts may have no code). */
  code: string;
  name: string;
  type: string;
  status: string;
  enablePaymentsToAccount: boolean;
  /** DEBTORS, CREDITORS, GST, ...; empty for an account of the business's own. */
  systemAccount: string;
}

export interface RoleAccountType {
  /** Xero's AccountTypes the role's documents accept; a new account of the role takes the first. */
  types: readonly string[];
  /** The system account the role's account is (the receivable, the payable); none: not a system account. */
  systemAccount?: 'DEBTORS' | 'CREDITORS';
  /** Payments must reach it: a BANK account, or one with EnablePaymentsToAccount. */
  payments?: boolean;
  /** What the adapter writes on it that requires the type. */
  because: string;
}

const bank = (because: string): RoleAccountType => ({ types: ['BANK'], payments: true, because });
const income = ['REVENUE', 'SALES', 'OTHERINCOME'] as const;
const expense = ['EXPENSE', 'OVERHEADS', 'DIRECTCOSTS'] as const;

export const xeroRoleAccountTypes: Readonly<Record<AccountRole, RoleAccountType>> = {
  OperatingBank: bank('payouts and cleared checks are BankTransfers into it'),
  ProcessorClearing: bank(
    'payments are received into it, sales, fees and refunds are BankTransactions on it, payouts BankTransfers from it',
  ),
  PayoutsInTransit: bank('a payout is a BankTransfer into it, then out of it to the operating bank'),
  ChecksToDeposit: bank(
    'a deposited check is a BankTransaction into it, applied checks Payments into it, the cleared check a BankTransfer out of it',
  ),
  AccountsReceivable: {
    types: ['CURRENT'],
    systemAccount: 'DEBTORS',
    because: "invoices, credit notes and payments post to the organisation's Accounts Receivable",
  },
  AccountsPayable: {
    types: ['CURRLIAB'],
    systemAccount: 'CREDITORS',
    because: "bills and bill payments post to the organisation's Accounts Payable",
  },
  OutgoingPaymentsClearing: bank('bill payments are Payments from it, cashed ones BankTransfers out of it'),
  UnappliedCash: {
    types: ['CURRLIAB', 'LIABILITY'],
    payments: true,
    because: "a customer's credit not yet applied is a liability, applied to invoices by Payments from it",
  },
  OpeningBalances: { types: ['EQUITY'], because: 'opening balances are equity' },
  Revenue: { types: income, because: 'sales are revenue' },
  Refunds: { types: income, because: 'refunds reduce revenue' },
  FeeIncome: { types: income, because: 'fees charged are revenue' },
  DiscountsAndWriteOffs: { types: income, because: 'discounts and write-offs reduce revenue' },
  ProcessingFees: { types: expense, because: 'processing fees are an expense' },
  BankCharges: { types: expense, because: 'bank charges are an expense' },
  BillExpenses: { types: expense, because: "vendors' bills are expenses" },
  SurchargeIncome: { types: income, because: 'surcharges paid by customers are revenue' },
  DisputeFees: { types: expense, because: 'dispute fees are an expense' },
  ReturnFees: { types: expense, because: 'return fees are an expense' },
  BadDebt: { types: expense, because: 'receivables written off are an expense' },
  PayoutBank: bank('payouts are BankTransfers into it, as into the operating bank'),
};

/** What the role requires, as a person reads it: `CURRENT (system account DEBTORS)`, `CURRLIAB with payments enabled`. */
export function requiredXeroType(role: AccountRole): string {
  const { types, systemAccount, payments } = xeroRoleAccountTypes[role];
  const type = types.join(' or ');
  if (systemAccount) return `${type} (system account ${systemAccount})`;
  if (payments && !types.includes('BANK')) return `${type} with "Enable payments to this account"`;
  return `${type}, not a system account`;
}

/** The account's type as a person reads it: `BANK`, `CURRENT (system account DEBTORS)`, `CURRLIAB (payments enabled)`. */
export function xeroTypeOf(account: XeroChartAccount): string {
  if (account.systemAccount) return `${account.type} (system account ${account.systemAccount})`;
  if (account.enablePaymentsToAccount && account.type !== 'BANK') return `${account.type} (payments enabled)`;
  return account.type;
}

/** A role mapped to an account of another type than the role requires. */
export interface XeroTypeMismatch {
  role: AccountRole;
  account: XeroChartAccount;
  required: string;
}

/** Whether the account's Type (and system account, or none) is one the role accepts. */
export function typeFits(role: AccountRole, account: XeroChartAccount): boolean {
  const { types, systemAccount } = xeroRoleAccountTypes[role];
  return types.includes(account.type) && (account.systemAccount || undefined) === systemAccount;
}

/** Whether payments can reach the account where the role needs them to. */
export function paymentsReach(role: AccountRole, account: XeroChartAccount): boolean {
  return !xeroRoleAccountTypes[role].payments || account.type === 'BANK' || account.enablePaymentsToAccount;
}

/** Whether the role accepts the account: its type, and payments where they must reach it. */
export const fitsRole = (role: AccountRole, account: XeroChartAccount): boolean =>
  typeFits(role, account) && paymentsReach(role, account);

/** The mismatch of the role's account type, null when the role accepts its type (payments aside). */
export function xeroTypeMismatch(role: AccountRole, account: XeroChartAccount): XeroTypeMismatch | null {
  return typeFits(role, account) ? null : { role, account, required: requiredXeroType(role) };
}

/** One line: the role, the account's code, its type, and the type the role requires. */
export function xeroMismatchLine({ role, account, required }: XeroTypeMismatch): string {
  return `account ${role} (code ${account.code}, ${account.name}) is ${xeroTypeOf(account)} in Xero; ${role} requires ${required}`;
}
