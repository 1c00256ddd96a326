// The chart of Xero's demo company, as a new organisation starts with Xero's default chart (README.md, "The
// demo company's chart", for the source of each account): Xero's own codes, its receivable and payable the
// DEBTORS and CREDITORS system accounts. None of booksync's accounts.

export interface DemoAccount {
  Code: string;
  Name: string;
  Type: string;
  Class: string;
  SystemAccount?: string;
  BankAccountNumber?: string;
}

export const demoChart: readonly DemoAccount[] = [
  {
    Code: '090',
    Name: 'Business Bank Account',
    Type: 'BANK',
    Class: 'ASSET',
    BankAccountNumber: '0901234567',
  },
  {
    Code: '091',
    Name: 'Business Savings Account',
    Type: 'BANK',
    Class: 'ASSET',
    BankAccountNumber: '0209087654321050',
  },
  { Code: '200', Name: 'Sales', Type: 'REVENUE', Class: 'REVENUE' },
  { Code: '260', Name: 'Other Revenue', Type: 'REVENUE', Class: 'REVENUE' },
  { Code: '270', Name: 'Interest Income', Type: 'REVENUE', Class: 'REVENUE' },
  { Code: '310', Name: 'Cost of Goods Sold', Type: 'DIRECTCOSTS', Class: 'EXPENSE' },
  { Code: '400', Name: 'Advertising', Type: 'OVERHEADS', Class: 'EXPENSE' },
  { Code: '404', Name: 'Bank Fees', Type: 'OVERHEADS', Class: 'EXPENSE' },
  { Code: '429', Name: 'General Expenses', Type: 'OVERHEADS', Class: 'EXPENSE' },
  { Code: '610', Name: 'Accounts Receivable', Type: 'CURRENT', Class: 'ASSET', SystemAccount: 'DEBTORS' },
  { Code: '630', Name: 'Inventory', Type: 'CURRENT', Class: 'ASSET' },
  { Code: '800', Name: 'Accounts Payable', Type: 'CURRLIAB', Class: 'LIABILITY', SystemAccount: 'CREDITORS' },
  { Code: '820', Name: 'GST', Type: 'CURRLIAB', Class: 'LIABILITY', SystemAccount: 'GST' },
  {
    Code: '960',
    Name: 'Retained Earnings',
    Type: 'EQUITY',
    Class: 'EQUITY',
    SystemAccount: 'RETAINEDEARNINGS',
  },
  { Code: '970', Name: 'Owner A Funds Introduced', Type: 'EQUITY', Class: 'EQUITY' },
];

/** The Class Xero gives an account of each Type (Class is read-only: Xero derives it). */
export const classOfType: Readonly<Record<string, string>> = {
  BANK: 'ASSET',
  CURRENT: 'ASSET',
  FIXED: 'ASSET',
  INVENTORY: 'ASSET',
  NONCURRENT: 'ASSET',
  PREPAYMENT: 'ASSET',
  CURRLIAB: 'LIABILITY',
  LIABILITY: 'LIABILITY',
  TERMLIAB: 'LIABILITY',
  PAYG: 'LIABILITY',
  EQUITY: 'EQUITY',
  REVENUE: 'REVENUE',
  SALES: 'REVENUE',
  OTHERINCOME: 'REVENUE',
  EXPENSE: 'EXPENSE',
  OVERHEADS: 'EXPENSE',
  DIRECTCOSTS: 'EXPENSE',
  DEPRECIATN: 'EXPENSE',
};
