import type { AccountRole } from '../account-mapping.js';
import { TargetConfigurationError } from '../errors.js';

// What the QuickBooks account of each role must be: the AccountType (and AccountSubType where it matters) the
// documents booksync writes on it need, from QBO's own rules (Intuit's entity references, Finance.xsd). One
// table for verify() (a role mapped to an account of another type stops start-up, before QBO refuses its
// documents one by one) and for creating a company's accounts (the first type, with `newSubType`).

/** Finance.xsd AccountTypeEnum: the types an account of a role may have. */
export const qboAccountTypes = [
  'Bank',
  'Accounts Receivable',
  'Other Current Asset',
  'Fixed Asset',
  'Other Asset',
  'Accounts Payable',
  'Credit Card',
  'Other Current Liability',
  'Long Term Liability',
  'Equity',
  'Income',
  'Cost of Goods Sold',
  'Expense',
  'Other Income',
  'Other Expense',
] as const;

export type QboAccountType = (typeof qboAccountTypes)[number];

export interface RoleAccountType {
  /** The AccountTypes the role's documents accept; a new account of the role takes the first. */
  types: readonly QboAccountType[];
  /** The AccountSubType (Finance.xsd AccountSubTypeEnum) the role's account must have, where one matters. */
  subType?: string;
  /** The AccountSubType a new account of the role takes when none is required. */
  newSubType?: string;
  /** The QBO rule the type comes from. */
  because: string;
}

const income: readonly QboAccountType[] = ['Income', 'Other Income'];
const expense: readonly QboAccountType[] = ['Expense', 'Other Expense', 'Cost of Goods Sold'];

export const roleAccountTypes: Readonly<Record<AccountRole, RoleAccountType>> = {
  OperatingBank: {
    types: ['Bank'],
    because: "the business's bank account: payouts and cleared checks are deposited into it",
  },
  ProcessorClearing: {
    types: ['Other Current Asset'],
    subType: 'UndepositedFunds',
    because:
      "payments and sales receipts are deposited to it and a payout's Deposit links them out of it, as QuickBooks' bank deposit takes received money out of Undeposited Funds",
  },
  PayoutsInTransit: {
    types: ['Other Current Asset', 'Bank'],
    because: 'a Deposit goes into a Bank or Other Current Asset account (Deposit.DepositToAccountRef)',
  },
  ChecksToDeposit: {
    types: ['Other Current Asset', 'Bank'],
    because:
      'a Payment is deposited to an asset account and a Deposit goes into a Bank or Other Current Asset account (DepositToAccountRef)',
  },
  AccountsReceivable: {
    types: ['Accounts Receivable'],
    because: 'invoices, credit memos and payments post to Accounts Receivable',
  },
  AccountsPayable: {
    types: ['Accounts Payable'],
    because: 'bills and bill payments post to Accounts Payable',
  },
  OutgoingPaymentsClearing: {
    types: ['Bank'],
    because: 'a BillPayment by check pays from a Bank account (CheckPayment.BankAccountRef)',
  },
  UnappliedCash: {
    types: ['Other Current Liability'],
    because: "a customer's credit not yet applied is owed to the customer: a liability",
  },
  OpeningBalances: {
    types: ['Equity'],
    because: 'opening balances are equity',
  },
  Revenue: { types: income, because: 'sales are income' },
  Refunds: { types: income, because: 'refunds reduce income' },
  FeeIncome: { types: income, because: 'fees charged are income' },
  DiscountsAndWriteOffs: {
    types: income,
    newSubType: 'DiscountsRefundsGiven',
    because: 'discounts and write-offs reduce income',
  },
  ProcessingFees: { types: expense, because: 'processing fees are an expense' },
  BankCharges: { types: expense, because: 'bank charges are an expense' },
  BillExpenses: { types: expense, because: "vendors' bills are expenses" },
  SurchargeIncome: { types: income, because: 'surcharges paid by customers are income' },
  DisputeFees: { types: expense, because: 'dispute fees are an expense' },
  ReturnFees: { types: expense, because: 'return fees are an expense' },
  BadDebt: { types: expense, newSubType: 'BadDebts', because: 'receivables written off are an expense' },
  PayoutBank: { types: ['Bank'], because: 'payouts are deposited into it, as into the operating bank' },
};

/** What the role requires, as a person reads it: `Other Current Asset (subtype UndepositedFunds)`. */
export function requiredType(role: AccountRole): string {
  const { types, subType } = roleAccountTypes[role];
  return `${types.join(' or ')}${subType ? ` (subtype ${subType})` : ''}`;
}

/** An account of QBO's chart as verify() reads it. */
export interface ChartAccount {
  Id: string;
  Name?: unknown;
  AcctNum?: unknown;
  AccountType?: unknown;
  AccountSubType?: unknown;
}

/** A role mapped to an account of another type than the role requires. */
export interface AccountTypeMismatch {
  role: AccountRole;
  account: { id: string; number: string | null; name: string; type: string; subType: string | null };
  required: string;
}

/** The mismatch of the role's account, null when its type (and subtype) is one the role accepts. */
export function accountTypeMismatch(role: AccountRole, account: ChartAccount): AccountTypeMismatch | null {
  const { types, subType } = roleAccountTypes[role];
  const type = String(account.AccountType ?? '');
  const sub = typeof account.AccountSubType === 'string' ? account.AccountSubType : null;
  if ((types as readonly string[]).includes(type) && (!subType || sub === subType)) return null;
  return {
    role,
    account: {
      id: account.Id,
      number: typeof account.AcctNum === 'string' ? account.AcctNum : null,
      name: String(account.Name ?? ''),
      type,
      subType: sub,
    },
    required: requiredType(role),
  };
}

/** One line: the role, the account, its type, and the type the role requires. */
export function mismatchLine({ role, account, required }: AccountTypeMismatch): string {
  const named = `${account.number ? `number ${account.number}, ` : ''}id ${account.id}`;
  const type = `${account.type}${account.subType ? ` (subtype ${account.subType})` : ''}`;
  return `${role}: QuickBooks account ${account.name} (${named}) is ${type}; ${role} requires ${required}`;
}

/**
 * Roles mapped to accounts of the wrong type: a configuration problem (start-up stops, as for a missing
 * account), told apart from the others by its class and its mismatches.
 */
export class AccountTypeError extends TargetConfigurationError {
  readonly mismatches: readonly AccountTypeMismatch[];
  constructor(target: string, problems: readonly string[], mismatches: readonly AccountTypeMismatch[]) {
    super(target, problems);
    this.mismatches = mismatches;
  }
}
