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

/**
 * Parses `Role=code,Role=code` over the defaults. Unknown roles and empty codes are errors (one line each),
 * so a typo never silently falls back to a default account.
 */
export function parseAccountMapping(text: string | undefined): AccountMapping {
  const mapping: Record<string, string> = { ...defaultAccountCodes };
  if (!text) return mapping as AccountMapping;
  const problems: string[] = [];
  for (const pair of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = pair.indexOf('=');
    const role = eq === -1 ? pair : pair.slice(0, eq).trim();
    const code = eq === -1 ? '' : pair.slice(eq + 1).trim();
    if (!(accountRoles as string[]).includes(role)) problems.push(`unknown account role ${role}`);
    else if (code === '') problems.push(`account role ${role} has no code`);
    else mapping[role] = code;
  }
  if (problems.length > 0) throw new Error(`TARGET_ACCOUNTS: ${problems.join('; ')}`);
  return mapping as AccountMapping;
}
