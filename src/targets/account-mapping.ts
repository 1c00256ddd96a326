import { type AccountName, Accounts } from '../ledger/chart-of-accounts.js';

// The ledger's roles map, by configuration, to accounts of the target's chart (by code or id). The role
// names are the chart's constant names (`OperatingBank`, `ProcessorClearing`, ...), so a mapping reads the
// same for every target: TARGET_ACCOUNTS="OperatingBank=1010,ProcessorClearing=1020,...".

export type AccountRole = keyof typeof Accounts;

export const accountRoles = Object.keys(Accounts) as AccountRole[];

const roleByAccount = new Map<string, AccountRole>(
  accountRoles.map((role) => [Accounts[role] as string, role]),
);

export function roleOf(account: AccountName): AccountRole {
  const role = roleByAccount.get(account);
  if (!role) throw new Error(`account ${account} has no role`);
  return role;
}

/** Role -> the target's account code (or id). Every role a document can use must be present. */
export type AccountMapping = Readonly<Record<AccountRole, string>>;

/**
 * booksync's default codes: what `scripts/tryton/setup-database.py` creates in a fresh Tryton chart and what
 * the QuickBooks / Xero doubles hold. A business with its own chart overrides them with TARGET_ACCOUNTS.
 */
export const defaultAccountCodes: AccountMapping = {
  OperatingBank: '1010',
  ProcessorClearing: '1020',
  PayoutsInTransit: '1030',
  ChecksToDeposit: '1040',
  AccountsReceivable: '1200',
  AccountsPayable: '2000',
  OutgoingPaymentsClearing: '2010',
  UnappliedCash: '2020',
  OpeningBalances: '3000',
  Revenue: '4000',
  Refunds: '4010',
  FeeIncome: '4020',
  DiscountsAndWriteOffs: '4030',
  ProcessingFees: '6000',
  BankCharges: '6010',
  BillExpenses: '6020',
  SurchargeIncome: '4040',
  DisputeFees: '6030',
  ReturnFees: '6040',
  BadDebt: '6050',
  // An account of its own, never OperatingBank's code: each role is one account of the target's chart (the
  // setup matches one account per role, and a target's figures are read per role's account).
  PayoutBank: '1050',
};

/** The `key=value` pairs of a comma-separated setting, trimmed; a pair without `=` has an empty value. */
function settingPairs(text: string): { pair: string; key: string; value: string }[] {
  return text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map((pair) => {
      const eq = pair.indexOf('=');
      return {
        pair,
        key: eq === -1 ? pair : pair.slice(0, eq).trim(),
        value: eq === -1 ? '' : pair.slice(eq + 1).trim(),
      };
    });
}

/**
 * Parses `Role=code,Role=code` over the defaults. Unknown roles and empty codes are errors (one line each),
 * so a typo never silently falls back to a default account.
 */
export function parseAccountMapping(text: string | undefined): AccountMapping {
  const mapping: Record<string, string> = { ...defaultAccountCodes };
  if (!text) return mapping as AccountMapping;
  const problems: string[] = [];
  for (const { key: role, value: code } of settingPairs(text)) {
    if (!(accountRoles as string[]).includes(role)) problems.push(`unknown account role ${role}`);
    else if (code === '') problems.push(`account role ${role} has no code`);
    else mapping[role] = code;
  }
  if (problems.length > 0) throw new Error(`TARGET_ACCOUNTS: ${problems.join('; ')}`);
  return mapping as AccountMapping;
}

/**
 * Vendor id → the target's account (code or id, as in TARGET_ACCOUNTS) that vendor's bills are expensed to,
 * instead of Bill Expenses' account: rent to Rent, a software vendor to Software. The ledger keeps every bill
 * on Bill Expenses (its chart is booksync's); the target's chart is the business's.
 */
export type VendorExpenseAccounts = Readonly<Record<string, string>>;

/**
 * Parses VENDOR_EXPENSE_ACCOUNTS, `vendorId=code` pairs. A pair without a vendor or a code, a vendor named
 * twice with two codes, and a code another role maps to (a vendor's bills would land on the bank or the
 * payables) are errors, one line each: a typo never books a bill somewhere unintended.
 */
export function parseVendorExpenseAccounts(
  text: string | undefined,
  mapping: AccountMapping,
): VendorExpenseAccounts {
  const accounts: Record<string, string> = {};
  if (!text) return accounts;
  const otherRoles = new Map(
    accountRoles.filter((r) => r !== 'BillExpenses').map((role) => [mapping[role], role] as const),
  );
  const problems: string[] = [];
  for (const { pair, key: vendor, value: code } of settingPairs(text)) {
    const role = otherRoles.get(code);
    if (vendor === '') problems.push(`${JSON.stringify(pair)} names no vendor`);
    else if (code === '') problems.push(`vendor ${vendor} has no account`);
    else if (role) problems.push(`vendor ${vendor}: account ${code} is ${role}'s, not an expense account`);
    else if (accounts[vendor] !== undefined && accounts[vendor] !== code)
      problems.push(`vendor ${vendor} is given two accounts (${accounts[vendor]} and ${code})`);
    else accounts[vendor] = code;
  }
  if (problems.length > 0) throw new Error(`VENDOR_EXPENSE_ACCOUNTS: ${problems.join('; ')}`);
  return accounts;
}

/** The account a bill of `vendorId` is expensed to: the vendor's own when mapped, else Bill Expenses'. */
export function billExpenseCode(
  mapping: AccountMapping,
  vendors: VendorExpenseAccounts | undefined,
  vendorId: string | undefined,
): string {
  return (vendorId !== undefined && vendors?.[vendorId]) || mapping.BillExpenses;
}

/**
 * The accounts besides Bill Expenses' that hold bill expenses (each once), so a target's figures add them
 * to the role: the ledger's Bill Expenses is every bill, whichever account the target expensed it to.
 */
export function vendorExpenseCodes(
  mapping: AccountMapping,
  vendors: VendorExpenseAccounts | undefined,
): string[] {
  return [...new Set(Object.values(vendors ?? {}))].filter((code) => code !== mapping.BillExpenses);
}
