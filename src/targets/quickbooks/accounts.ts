import {
  type AccountMapping,
  type AccountRole,
  billExpenseCode,
  type VendorExpenseAccounts,
  vendorExpenseCodes,
} from '../account-mapping.js';
import { TargetRefusedError } from '../errors.js';
import { RememberedLookups } from '../remembered-lookups.js';
import { type AccountTypeMismatch, accountTypeMismatch } from './account-types.js';
import type { QboClient, QboEntity } from './http-client.js';

// The mapping names QBO accounts by account number (AcctNum, "by code") or, for a chart without numbers,
// by Id: a code is tried as AcctNum first, then as Id. QBO does not filter on AcctNum ("QueryValidationError:
// property 'AcctNum' is not queryable"; an Intuit engineer on intuit/QuickBooks-V3-DotNET-SDK#163: AcctNum
// "is not filterable"), so the chart is listed once (`select * from Account`, pages of 1000) and matched
// here. Resolved once per adapter; a failed listing (outage) is not remembered. Each role's account must be
// of the type its documents need (account-types.ts): verify() reads both. A vendor's own expense account
// (VENDOR_EXPENSE_ACCOUNTS) is looked up the same way and must be of Bill Expenses' type.

export type Ref = { value: string };

export class AccountDirectory {
  private readonly resolved = new RememberedLookups<AccountRole, QboEntity | null>();
  /** The chart of accounts' listing, remembered unless it fails. */
  private readonly chart = new RememberedLookups<'Account', QboEntity[]>();

  private readonly client: QboClient;
  private readonly mapping: AccountMapping;
  private readonly vendors: VendorExpenseAccounts;
  constructor(client: QboClient, mapping: AccountMapping, vendors: VendorExpenseAccounts = {}) {
    this.client = client;
    this.mapping = mapping;
    this.vendors = vendors;
  }

  /** The role's account; for Bill Expenses and a vendor VENDOR_EXPENSE_ACCOUNTS names, the vendor's own. */
  async ref(role: AccountRole, vendorId?: string): Promise<Ref> {
    const code = role === 'BillExpenses' ? billExpenseCode(this.mapping, this.vendors, vendorId) : null;
    const found = code && code !== this.mapping[role] ? await this.find(code) : await this.lookup(role);
    if (!found)
      throw new TargetRefusedError(
        'quickbooks',
        `no account ${code ?? this.mapping[role]} (${role}${code !== null && code !== this.mapping[role] ? ` of vendor ${vendorId}` : ''}) in QuickBooks`,
      );
    return { value: found.Id };
  }

  /** The Ids of the vendors' own expense accounts QBO has: the figures add them to Bill Expenses. */
  async vendorExpenseIds(): Promise<string[]> {
    const ids: string[] = [];
    for (const code of vendorExpenseCodes(this.mapping, this.vendors)) {
      const found = await this.find(code);
      if (found) ids.push(found.Id);
    }
    return ids;
  }

  /** The Id of the role's account, null when QBO has none (the figures count such a role 0). */
  async idOf(role: AccountRole): Promise<string | null> {
    return (await this.lookup(role))?.Id ?? null;
  }

  /** One line per mapped role QBO does not have. */
  async problems(): Promise<string[]> {
    const problems: string[] = [];
    for (const role of Object.keys(this.mapping) as AccountRole[]) {
      if (!(await this.lookup(role)))
        problems.push(`${role}: no QuickBooks account with number or id ${this.mapping[role]}`);
    }
    for (const [vendor, code] of Object.entries(this.vendors))
      if (!(await this.find(code)))
        problems.push(`BillExpenses of vendor ${vendor}: no QuickBooks account with number or id ${code}`);
    return problems;
  }

  /** The mapped roles whose QBO account is not of the type the role requires. */
  async typeMismatches(): Promise<AccountTypeMismatch[]> {
    const mismatches: AccountTypeMismatch[] = [];
    for (const role of Object.keys(this.mapping) as AccountRole[]) {
      const account = await this.lookup(role);
      const mismatch = account && accountTypeMismatch(role, account);
      if (mismatch) mismatches.push(mismatch);
    }
    // A vendor's own expense account takes that vendor's bills: Bill Expenses' type.
    for (const code of new Set(Object.values(this.vendors))) {
      const account = await this.find(code);
      const mismatch = account && accountTypeMismatch('BillExpenses', account);
      if (mismatch) mismatches.push(mismatch);
    }
    return mismatches;
  }

  private lookup(role: AccountRole): Promise<QboEntity | null> {
    // A failed lookup (outage) is not remembered.
    return this.resolved.get(role, () => this.find(this.mapping[role]));
  }

  private async find(code: string): Promise<QboEntity | null> {
    const accounts = await this.listChart();
    return accounts.find((a) => a.AcctNum === code) ?? accounts.find((a) => a.Id === code) ?? null;
  }

  /** The chart of accounts, read once (every mapped role looks in the same listing). */
  private listChart(): Promise<QboEntity[]> {
    return this.chart.get('Account', () => this.client.selectPages('Account', {}, 'Id'));
  }
}
