import { type AccountMapping, type AccountRole, accountRoles } from '../account-mapping.js';
import { paymentsReach, type XeroChartAccount, xeroMismatchLine, xeroTypeMismatch } from './account-types.js';
import type { XeroClient } from './client.js';

// The account mapping in a Xero organisation: each role's account by its Code (Xero's chart is keyed by
// code). What booksync writes depends on the account's type: money moves between BANK accounts as bank
// transactions and transfers, and a payment may go to a BANK account or one with payments enabled; the
// receivable and payable are Xero's system accounts (DEBTORS, CREDITORS), which only invoices, credit
// notes and payments may touch (a manual journal cannot). Each role's account must be of a type its documents
// can use (account-types.ts), which verify() holds.

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
  constructor(client: XeroClient, mapping: AccountMapping) {
    this.client = client;
    this.mapping = mapping;
  }

  code(role: AccountRole): string {
    return this.mapping[role];
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
