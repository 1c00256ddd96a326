import { type AccountMapping, type AccountRole, accountRoles } from '../account-mapping.js';
import type { PlannedAccount, RoleStep, SetupPlan } from '../setup/plan.js';
import {
  fitsRole,
  paymentsReach,
  requiredXeroType,
  typeFits,
  type XeroChartAccount,
  xeroRoleAccountTypes,
  xeroTypeOf,
} from './account-types.js';

// `booksync targets setup xero`: each role's account in a Xero organisation's chart (its active accounts),
// found (1) for the receivable and payable, as Xero's own system account (DEBTORS, CREDITORS: every invoice
// and payment posts there, whatever is mapped), unless the mapping's code names another account; (2) by the
// Code the mapping in force gives the role (what verify() looks up); (3) by the name booksync gives the
// role's account, or a name Xero's default chart (the demo company's) gives an account fit for the role. Else
// it is to be created, with the Type the role's documents need (account-types.ts), the mapping's code when
// no account holds it, and payments enabled where payments must reach a non-bank account.
// A bank account is never guessed: the business's own bank account is not a clearing account.
// An account found by the role's code, or holding the name a new account would take, but of another type is a
// conflict: Xero refuses a second account of that name (and code), and the role's documents that account.

interface RoleSetup {
  /** The new account's Name, matched first. */
  name: string;
  /** Names Xero's default chart gives an account fit for the role (Bank Fees, 404). */
  alsoNamed?: readonly string[];
}

export const xeroRoleSetup: Readonly<Record<AccountRole, RoleSetup>> = {
  OperatingBank: { name: 'Operating Bank' },
  ProcessorClearing: { name: 'Processor Clearing' },
  PayoutsInTransit: { name: 'Payouts In Transit' },
  ChecksToDeposit: { name: 'Checks To Deposit' },
  AccountsReceivable: { name: 'Accounts Receivable' },
  AccountsPayable: { name: 'Accounts Payable' },
  OutgoingPaymentsClearing: { name: 'Outgoing Payments Clearing' },
  UnappliedCash: { name: 'Unapplied Cash' },
  OpeningBalances: { name: 'Opening Balances' },
  Revenue: { name: 'Sales' },
  Refunds: { name: 'Refunds' },
  FeeIncome: { name: 'Fee Income' },
  DiscountsAndWriteOffs: { name: 'Discounts and Write-offs' },
  ProcessingFees: { name: 'Processing Fees' },
  BankCharges: { name: 'Bank Charges', alsoNamed: ['Bank Fees'] },
  BillExpenses: { name: 'Bill Expenses', alsoNamed: ['General Expenses'] },
  SurchargeIncome: { name: 'Surcharge Income' },
  DisputeFees: { name: 'Dispute Fees' },
  ReturnFees: { name: 'Return Fees' },
  BadDebt: { name: 'Bad Debt' },
  PayoutBank: { name: 'Payout Bank' },
};

/** Xero's longest account Code (xero_accounting.yaml Account.Code: "max length = 10"). */
const CODE_LENGTH = 10;

/**
 * The BankAccountNumber a new bank account of booksync's takes: Xero requires one for a BANK account and checks
 * its form by the organisation's country (an Australian one wants a 6-digit BSB and an account number,
 * XeroAPI/Xero-OpenAPI#535): six digits, then the account's code. A clearing account has no number at a bank.
 */
export const bankAccountNumberFor = (code: string) => `090000${code}`;

function planned(account: XeroChartAccount): PlannedAccount {
  return { id: account.accountID, code: account.code, name: account.name, type: xeroTypeOf(account) };
}

const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** A code no account holds nor another new account takes: the mapping's, else the next number after it. */
function freeCode(wanted: string, taken: ReadonlySet<string>): string {
  if (wanted.length <= CODE_LENGTH && !taken.has(wanted.toLowerCase())) return wanted;
  const start = /^\d+$/.test(wanted) ? Number(wanted) : 9000;
  for (let n = start + 1; ; n++) if (!taken.has(String(n))) return String(n);
}

/** The role's step in `chart`; `taken` holds the ids other roles matched. */
function stepFor(
  role: AccountRole,
  code: string,
  chart: readonly XeroChartAccount[],
  taken: ReadonlySet<string>,
  codes: Set<string>,
): RoleStep {
  const setup = xeroRoleSetup[role];
  const { systemAccount } = xeroRoleAccountTypes[role];
  const required = requiredXeroType(role);
  const step = (account: XeroChartAccount, why: string): RoleStep => {
    if (!typeFits(role, account)) return { role, kind: 'conflict', account: planned(account), why, required };
    if (!paymentsReach(role, account))
      return {
        role,
        kind: 'conflict',
        account: planned(account),
        why: `${why}, but payments are not enabled on it (tick "Enable payments to this account")`,
        required,
      };
    if (!account.code)
      return {
        role,
        kind: 'conflict',
        account: planned(account),
        why: `${why}, but it has no code for TARGET_ACCOUNTS to name it by (give it one)`,
        required,
      };
    return { role, kind: 'matched', account: planned(account), why };
  };

  const byCode = chart.find((a) => a.code !== '' && a.code === code);
  if (byCode) return step(byCode, `code ${code}`);
  if (systemAccount) {
    const system = chart.filter((a) => a.systemAccount === systemAccount);
    if (system.length === 1 && system[0]) return step(system[0], `Xero's ${systemAccount} system account`);
    throw new Error(`the Xero organisation has ${system.length} ${systemAccount} system accounts, not one`);
  }

  // The name a new account would take is the role's account, or in the way when of another type.
  const named = chart.find((a) => sameName(a.name, setup.name));
  if (named) return step(named, `named ${setup.name}`);
  const free = chart.filter((a) => !taken.has(a.accountID));
  for (const name of setup.alsoNamed ?? []) {
    const also = free.find((a) => sameName(a.name, name) && fitsRole(role, a) && a.code !== '');
    if (also) return step(also, `named ${name}`);
  }

  const { types, payments } = xeroRoleAccountTypes[role];
  const type = types[0] as string;
  const newCode = freeCode(code, codes);
  codes.add(newCode.toLowerCase());
  const enable = payments === true && type !== 'BANK';
  return {
    role,
    kind: 'create',
    name: setup.name,
    type: `${type}${enable ? ', payments enabled' : ''}, code ${newCode}`,
    fields: {
      Code: newCode,
      Name: setup.name,
      Type: type,
      ...(type === 'BANK' ? { BankAccountNumber: bankAccountNumberFor(newCode) } : {}),
      ...(enable ? { EnablePaymentsToAccount: 'true' } : {}),
    },
  };
}

/** The plan for a Xero organisation's chart (active accounts) under the mapping in force. */
export function planXeroSetup(chart: readonly XeroChartAccount[], mapping: AccountMapping): SetupPlan {
  const active = chart.filter((a) => a.status === 'ACTIVE');
  // Every code in the chart, archived accounts' too: Xero keeps an archived account's code.
  const codes = new Set(chart.map((a) => a.code.toLowerCase()).filter((c) => c !== ''));
  const taken = new Set<string>();
  const steps = accountRoles.map((role) => {
    const step = stepFor(role, mapping[role], active, taken, codes);
    if (step.kind !== 'create') taken.add(step.account.id);
    return step;
  });
  return { target: 'xero', steps };
}
