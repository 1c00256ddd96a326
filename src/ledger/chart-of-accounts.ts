// The chart of accounts of the embedded ledger (design overview, "Accounting model"). Accounts are named
// by their hledger names, so an export needs no translation table and a journal reads like the books.

export type AccountType = 'asset' | 'liability' | 'equity' | 'income' | 'expense';

export const Accounts = {
  OperatingBank: 'assets:bank:operating',
  ProcessorClearing: 'assets:processor-clearing',
  PayoutsInTransit: 'assets:payouts-in-transit',
  ChecksToDeposit: 'assets:checks-to-deposit',
  AccountsReceivable: 'assets:receivable',
  AccountsPayable: 'liabilities:payable',
  OutgoingPaymentsClearing: 'liabilities:outgoing-payments-clearing',
  OpeningBalances: 'equity:opening-balances',
  Revenue: 'revenue:sales',
  Refunds: 'revenue:refunds',
  FeeIncome: 'revenue:fees',
  ProcessingFees: 'expenses:processing-fees',
  BankCharges: 'expenses:bank-charges',
  BillExpenses: 'expenses:bills',
  // Last, not beside Revenue: a role's place in this list is its index in accountRoles, which numbers the
  // sandbox tests' accounts (xero-sandbox BSnn), so a role added later keeps every earlier role's number.
  DiscountsAndWriteOffs: 'revenue:discounts-write-offs',
  UnappliedCash: 'liabilities:unapplied-cash',
  SurchargeIncome: 'revenue:surcharges',
  DisputeFees: 'expenses:dispute-fees',
  ReturnFees: 'expenses:return-fees',
  BadDebt: 'expenses:bad-debt',
  PayoutBank: 'assets:bank:payouts',
} as const;

export type AccountName = (typeof Accounts)[keyof typeof Accounts];

export interface AccountDefinition {
  name: AccountName;
  title: string;
  type: AccountType;
  /** Why the account exists, as the design's chart of accounts says. */
  role: string;
}

export const chartOfAccounts: readonly AccountDefinition[] = [
  {
    name: Accounts.OperatingBank,
    title: 'Operating Bank',
    type: 'asset',
    role: "the business's bank account",
  },
  {
    name: Accounts.ProcessorClearing,
    title: 'Processor Clearing',
    type: 'asset',
    role: 'money the service holds for the business (undeposited funds)',
  },
  {
    name: Accounts.PayoutsInTransit,
    title: 'Payouts In Transit',
    type: 'asset',
    role: 'disbursed, not yet in the bank',
  },
  {
    name: Accounts.PayoutBank,
    title: 'Payout Bank',
    type: 'asset',
    role: 'the bank account payouts land in when the disbursement names another account than the operating bank',
  },
  {
    name: Accounts.ChecksToDeposit,
    title: 'Checks To Deposit',
    type: 'asset',
    role: 'external checks and applied check deposits not yet cleared',
  },
  {
    name: Accounts.AccountsReceivable,
    title: 'Accounts Receivable',
    type: 'asset',
    role: 'what customers owe, by invoice (payment link)',
  },
  {
    name: Accounts.AccountsPayable,
    title: 'Accounts Payable',
    type: 'liability',
    role: 'what the business owes vendors',
  },
  {
    name: Accounts.OutgoingPaymentsClearing,
    title: 'Outgoing Payments Clearing',
    type: 'liability',
    role: 'bill payments sent, not yet cashed',
  },
  {
    name: Accounts.UnappliedCash,
    title: 'Unapplied Cash',
    type: 'liability',
    role: "deposited checks' money not yet applied to an invoice (the customer's credit)",
  },
  {
    name: Accounts.OpeningBalances,
    title: 'Opening Balances',
    type: 'equity',
    role: 'what existed before booksync started (backfill)',
  },
  {
    name: Accounts.Revenue,
    title: 'Revenue',
    type: 'income',
    role: 'invoices (payment links), their own amount',
  },
  { name: Accounts.Refunds, title: 'Refunds', type: 'income', role: 'refunds to payers (contra revenue)' },
  { name: Accounts.FeeIncome, title: 'Fee Income', type: 'income', role: 'debit memos charged to customers' },
  {
    name: Accounts.SurchargeIncome,
    title: 'Surcharge Income',
    type: 'income',
    role: "the part of a card payment's processing fee the payer paid on top of the invoice (a surcharge)",
  },
  // Income type, debited: contra revenue, so the ledger's income statement shows sales net of what was
  // forgiven, and Revenue keeps what was invoiced. A business that books write-offs as an expense (bad debt)
  // maps the role to an expense account of its target's chart; the ledger's own books stay as they are.
  {
    name: Accounts.DiscountsAndWriteOffs,
    title: 'Discounts and Write-offs',
    type: 'income',
    role: 'invoices lowered after they were issued: a discount, a write-off (contra revenue)',
  },
  {
    name: Accounts.ProcessingFees,
    title: 'Processing Fees',
    type: 'expense',
    role: 'card fees the business absorbs',
  },
  {
    name: Accounts.DisputeFees,
    title: 'Dispute Fees',
    type: 'expense',
    role: "the processor's fees for a disputed card payment (a chargeback)",
  },
  {
    name: Accounts.ReturnFees,
    title: 'Return Fees',
    type: 'expense',
    role: "the processor's fees for a returned ACH payment",
  },
  {
    name: Accounts.BadDebt,
    title: 'Bad Debt',
    type: 'expense',
    role: 'receivables written off as uncollectible (credit losses, ASC 326)',
  },
  { name: Accounts.BankCharges, title: 'Bank Charges', type: 'expense', role: 'charges from the bank' },
  {
    name: Accounts.BillExpenses,
    title: 'Bill Expenses',
    type: 'expense',
    role: 'vendor bills, booked when booksync learns of the bill',
  },
];

const byName = new Map<string, AccountDefinition>(chartOfAccounts.map((a) => [a.name, a]));

export function isAccountName(name: string): name is AccountName {
  return byName.has(name);
}

export function accountDefinition(name: AccountName): AccountDefinition {
  const found = byName.get(name);
  if (!found) throw new Error(`unknown account ${name}`);
  return found;
}
