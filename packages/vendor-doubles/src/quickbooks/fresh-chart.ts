// The chart of a new QuickBooks Online company (and the shape of the sandbox's sample company): QBO's usual
// accounts, without account numbers (Settings → Advanced → "Enable account numbers" is off in a new company),
// Undeposited Funds the system account of subtype UndepositedFunds. None of booksync's own accounts.

export const freshChart: readonly { Name: string; AccountType: string; AccountSubType: string }[] = [
  { Name: 'Checking', AccountType: 'Bank', AccountSubType: 'Checking' },
  { Name: 'Savings', AccountType: 'Bank', AccountSubType: 'Savings' },
  { Name: 'Undeposited Funds', AccountType: 'Other Current Asset', AccountSubType: 'UndepositedFunds' },
  { Name: 'Inventory Asset', AccountType: 'Other Current Asset', AccountSubType: 'Inventory' },
  { Name: 'Uncategorized Asset', AccountType: 'Other Current Asset', AccountSubType: 'OtherCurrentAssets' },
  {
    Name: 'Accounts Receivable (A/R)',
    AccountType: 'Accounts Receivable',
    AccountSubType: 'AccountsReceivable',
  },
  { Name: 'Accounts Payable (A/P)', AccountType: 'Accounts Payable', AccountSubType: 'AccountsPayable' },
  { Name: 'Opening Balance Equity', AccountType: 'Equity', AccountSubType: 'OpeningBalanceEquity' },
  { Name: 'Retained Earnings', AccountType: 'Equity', AccountSubType: 'RetainedEarnings' },
  { Name: 'Sales of Product Income', AccountType: 'Income', AccountSubType: 'SalesOfProductIncome' },
  { Name: 'Services', AccountType: 'Income', AccountSubType: 'ServiceFeeIncome' },
  { Name: 'Discounts given', AccountType: 'Income', AccountSubType: 'DiscountsRefundsGiven' },
  { Name: 'Uncategorized Income', AccountType: 'Income', AccountSubType: 'ServiceFeeIncome' },
  { Name: 'Bank Charges', AccountType: 'Expense', AccountSubType: 'BankCharges' },
  { Name: 'Uncategorized Expense', AccountType: 'Expense', AccountSubType: 'OtherMiscellaneousServiceCost' },
];
