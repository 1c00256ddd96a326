import {
  type AccountMapping,
  type AccountRole,
  accountRoles,
  billExpenseCode,
  type VendorExpenseAccounts,
  vendorExpenseCodes,
} from '../account-mapping.js';
import { paymentsReach, type XeroChartAccount, xeroMismatchLine, xeroTypeMismatch } from './account-types.js';
import type { XeroClient } from './client.js';

// The account mapping in a Xero organisation: each role's account by its Code (Xero's chart is keyed by
// code). What booksync writes depends on the account's type: money moves between BANK accounts as bank
// transactions and transfers, and a payment may go to a BANK account or one with payments enabled; the
// receivable and payable are Xero's system accounts (DEBTORS, CREDITORS), which only invoices, credit
// notes and payments may touch (a manual journal cannot). Each role's account must be of a type its documents
// can use (account-types.ts), which verify() holds. A vendor's own expense account (VENDOR_EXPENSE_ACCOUNTS)
// takes that vendor's bills and must be of Bill Expenses' type.

export type XeroAccount = XeroChartAccount;

/** An account as the SDK answers GET Accounts. */
export function chartAccountOf(a: {
  accountID?: string;
  code?: string;
  name?: string;
  type?: unknown;
  status?: unknown;
  enablePaymentsToAccount?: boolean;
  systemAccount?: unknown;
}): XeroChartAccount {
  return {
    accountID: a.accountID ?? '',
    code: a.code ?? '',
    name: a.name ?? '',
    type: String(a.type ?? ''),
    status: String(a.status ?? ''),
    enablePaymentsToAccount: a.enablePaymentsToAccount === true,
    systemAccount: String(a.systemAccount ?? ''),
  };
}

export class AccountDirectory {
  private loaded: Promise<Map<string, XeroAccount>> | null = null;

  private readonly client: XeroClient;
  private readonly mapping: AccountMapping;
  private readonly vendors: VendorExpenseAccounts;
  constructor(client: XeroClient, mapping: AccountMapping, vendors: VendorExpenseAccounts = {}) {
    this.client = client;
    this.mapping = mapping;
    this.vendors = vendors;
  }

  /** The role's code; for Bill Expenses and a vendor VENDOR_EXPENSE_ACCOUNTS names, the vendor's own. */
  code(role: AccountRole, vendorId?: string): string {
    return role === 'BillExpenses'
      ? billExpenseCode(this.mapping, this.vendors, vendorId)
      : this.mapping[role];
  }

  /** The AccountIDs of the vendors' own expense accounts Xero has: the figures add them to Bill Expenses. */
  async vendorExpenseIds(): Promise<string[]> {
    const accounts = await this.all();
    return vendorExpenseCodes(this.mapping, this.vendors).flatMap((code) => {
      const account = accounts.get(code);
      return account ? [account.accountID] : [];
    });
  }

  async account(role: AccountRole): Promise<XeroAccount | null> {
    return (await this.all()).get(this.mapping[role]) ?? null;
  }

  async isBank(role: AccountRole): Promise<boolean> {
    return (await this.account(role))?.type === 'BANK';
  }

  /** A Payment may be made to it: a bank account, or one with "enable payments to this account". */
  async takesPayments(role: AccountRole): Promise<boolean> {
    const account = await this.account(role);
    return account !== null && (account.type === 'BANK' || account.enablePaymentsToAccount);
  }

  /**
   * One line per mapped role whose account is missing or archived, lacks payments where they must reach it,
   * or is of a type the role's documents cannot use.
   */
  async problems(): Promise<string[]> {
    this.loaded = null;
    const accounts = await this.all();
    const problems: string[] = [];
    for (const role of accountRoles) {
      const code = this.mapping[role];
      const account = accounts.get(code);
      if (!account) problems.push(`account ${role} (code ${code}) is not in the Xero organisation`);
      else if (account.status !== 'ACTIVE')
        problems.push(`account ${role} (code ${code}, ${account.name}) is ${account.status} in Xero`);
      else {
        const mismatch = xeroTypeMismatch(role, account);
        // A deposited check's credit pays invoices from Unapplied Cash (a Payment; a manual journal cannot
        // touch the receivable), which Xero allows only from an account with payments enabled.
        if (mismatch) problems.push(xeroMismatchLine(mismatch));
        else if (!paymentsReach(role, account))
          problems.push(
            `account ${role} (code ${code}, ${account.name}) needs "Enable payments to this account" in Xero`,
          );
      }
    }
    for (const [vendor, code] of Object.entries(this.vendors)) {
      const account = accounts.get(code);
      const mismatch = account && xeroTypeMismatch('BillExpenses', account);
      if (!account)
        problems.push(
          `account BillExpenses of vendor ${vendor} (code ${code}) is not in the Xero organisation`,
        );
      else if (account.status !== 'ACTIVE')
        problems.push(
          `account BillExpenses of vendor ${vendor} (code ${code}, ${account.name}) is ${account.status} in Xero`,
        );
      else if (mismatch) problems.push(xeroMismatchLine(mismatch));
    }
    return problems;
  }

  private all(): Promise<Map<string, XeroAccount>> {
    this.loaded ??= this.client
      .call('getAccounts', (api, tenant) => api.getAccounts(tenant))
      .then(
        (body) =>
          new Map(
            (body.accounts ?? []).flatMap((a) => (a.code ? [[a.code, chartAccountOf(a)] as const] : [])),
          ),
      );
    this.loaded.catch(() => {
      this.loaded = null;
    });
    return this.loaded;
  }
}
