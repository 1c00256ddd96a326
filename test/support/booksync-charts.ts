import { type AccountMapping, defaultAccountCodes } from '../../src/targets/account-mapping.js';

// booksync's default chart as a QuickBooks company and a Xero organisation hold it once set up: each role's
// account under booksync's default code, for a test about something else than set-up. The doubles themselves
// start as the vendor's own new company; these are handed to them as a company's existing accounts.

const quickBooksAccounts: Record<
  keyof AccountMapping,
  { Name: string; AccountType: string; AccountSubType?: string }
> = {
  OperatingBank: { Name: 'Operating Bank', AccountType: 'Bank' },
  ProcessorClearing: {
    Name: 'Undeposited Funds',
    AccountType: 'Other Current Asset',
    AccountSubType: 'UndepositedFunds',
  },
  PayoutsInTransit: { Name: 'Payouts In Transit', AccountType: 'Other Current Asset' },
  ChecksToDeposit: { Name: 'Checks To Deposit', AccountType: 'Other Current Asset' },
  AccountsReceivable: { Name: 'Accounts Receivable (A/R)', AccountType: 'Accounts Receivable' },
  AccountsPayable: { Name: 'Accounts Payable (A/P)', AccountType: 'Accounts Payable' },
  // A BillPayment pays from a Bank account, so the outgoing-payments clearing is a bank-type account.
  OutgoingPaymentsClearing: { Name: 'Outgoing Payments Clearing', AccountType: 'Bank' },
  UnappliedCash: { Name: 'Unapplied Cash', AccountType: 'Other Current Liability' },
  OpeningBalances: { Name: 'Opening Balance Equity', AccountType: 'Equity' },
  Revenue: { Name: 'Sales', AccountType: 'Income' },
  Refunds: { Name: 'Refunds', AccountType: 'Income' },
  FeeIncome: { Name: 'Fee Income', AccountType: 'Income' },
  // Contra revenue: QBO's own Income subtype for discounts and refunds given.
  DiscountsAndWriteOffs: {
    Name: 'Discounts and Write-offs',
    AccountType: 'Income',
    AccountSubType: 'DiscountsRefundsGiven',
  },
  ProcessingFees: { Name: 'Processing Fees', AccountType: 'Expense' },
  BankCharges: { Name: 'Bank Charges', AccountType: 'Expense' },
  BillExpenses: { Name: 'Bill Expenses', AccountType: 'Expense' },
  SurchargeIncome: { Name: 'Surcharge Income', AccountType: 'Income' },
  DisputeFees: { Name: 'Dispute Fees', AccountType: 'Expense' },
  ReturnFees: { Name: 'Return Fees', AccountType: 'Expense' },
  BadDebt: { Name: 'Bad Debt', AccountType: 'Expense', AccountSubType: 'BadDebts' },
  PayoutBank: { Name: 'Payout Bank', AccountType: 'Bank' },
};

const xeroAccounts: Record<
  keyof AccountMapping,
  { Name: string; Type: string; SystemAccount?: string; Class: string; EnablePaymentsToAccount?: boolean }
> = {
  OperatingBank: { Name: 'Operating Bank', Type: 'BANK', Class: 'ASSET' },
  ProcessorClearing: { Name: 'Processor Clearing', Type: 'BANK', Class: 'ASSET' },
  PayoutsInTransit: { Name: 'Payouts In Transit', Type: 'BANK', Class: 'ASSET' },
  ChecksToDeposit: { Name: 'Checks To Deposit', Type: 'BANK', Class: 'ASSET' },
  AccountsReceivable: {
    Name: 'Accounts Receivable',
    Type: 'CURRENT',
    SystemAccount: 'DEBTORS',
    Class: 'ASSET',
  },
  AccountsPayable: {
    Name: 'Accounts Payable',
    Type: 'CURRLIAB',
    SystemAccount: 'CREDITORS',
    Class: 'LIABILITY',
  },
  OutgoingPaymentsClearing: { Name: 'Outgoing Payments Clearing', Type: 'BANK', Class: 'ASSET' },
  UnappliedCash: {
    Name: 'Unapplied Cash',
    Type: 'CURRLIAB',
    Class: 'LIABILITY',
    EnablePaymentsToAccount: true,
  },
  OpeningBalances: { Name: 'Opening Balances', Type: 'EQUITY', Class: 'EQUITY' },
  Revenue: { Name: 'Sales', Type: 'REVENUE', Class: 'REVENUE' },
  Refunds: { Name: 'Refunds', Type: 'REVENUE', Class: 'REVENUE' },
  FeeIncome: { Name: 'Fee Income', Type: 'OTHERINCOME', Class: 'REVENUE' },
  DiscountsAndWriteOffs: { Name: 'Discounts and Write-offs', Type: 'REVENUE', Class: 'REVENUE' },
  ProcessingFees: { Name: 'Processing Fees', Type: 'EXPENSE', Class: 'EXPENSE' },
  BankCharges: { Name: 'Bank Charges', Type: 'EXPENSE', Class: 'EXPENSE' },
  BillExpenses: { Name: 'Bill Expenses', Type: 'EXPENSE', Class: 'EXPENSE' },
  SurchargeIncome: { Name: 'Surcharge Income', Type: 'REVENUE', Class: 'REVENUE' },
  DisputeFees: { Name: 'Dispute Fees', Type: 'EXPENSE', Class: 'EXPENSE' },
  ReturnFees: { Name: 'Return Fees', Type: 'EXPENSE', Class: 'EXPENSE' },
  BadDebt: { Name: 'Bad Debt', Type: 'EXPENSE', Class: 'EXPENSE' },
  PayoutBank: { Name: 'Payout Bank', Type: 'BANK', Class: 'ASSET' },
};

/** booksync's default accounts in a QuickBooks company (`QuickBooksDouble.createRealm`'s `chart`). */
export const quickBooksBooksyncChart: readonly Record<string, unknown>[] = Object.entries(
  defaultAccountCodes,
).map(([role, code]) => ({ ...quickBooksAccounts[role as keyof AccountMapping], AcctNum: code }));

/** booksync's default accounts in a Xero organisation (`XeroDouble.createTenant`'s `chart`). */
export const xeroBooksyncChart: readonly Record<string, unknown>[] = Object.entries(defaultAccountCodes).map(
  ([role, code]) => {
    const seed = xeroAccounts[role as keyof AccountMapping];
    return {
      Code: code,
      Name: seed.Name,
      Type: seed.Type,
      Class: seed.Class,
      ...(seed.SystemAccount ? { SystemAccount: seed.SystemAccount } : {}),
      ...(seed.Type === 'BANK' ? { BankAccountType: 'BANK', BankAccountNumber: `00-${code}` } : {}),
      EnablePaymentsToAccount: seed.EnablePaymentsToAccount ?? false,
    };
  },
);
