import type { AccountMapping, AccountRole } from '../account-mapping.js';
import { TargetRefusedError } from '../errors.js';
import { RememberedLookups } from '../remembered-lookups.js';
import type { QboClient } from './http-client.js';

// The mapping names QBO accounts by account number (AcctNum, "by code") or, for a chart without numbers,
// by Id: a code that is all digits is tried as AcctNum first, then as Id. Resolved once per adapter.

export type Ref = { value: string };

export class AccountDirectory {
  private readonly resolved = new RememberedLookups<AccountRole, Ref | null>();

  constructor(
    private readonly client: QboClient,
    private readonly mapping: AccountMapping,
  ) {}

  async ref(role: AccountRole): Promise<Ref> {
    const found = await this.lookup(role);
    if (!found)
      throw new TargetRefusedError('quickbooks', `no account ${this.mapping[role]} (${role}) in QuickBooks`);
    return found;
  }

  /** One line per mapped role QBO does not have. */
  async problems(): Promise<string[]> {
    const problems: string[] = [];
    for (const role of Object.keys(this.mapping) as AccountRole[]) {
      if (!(await this.lookup(role)))
        problems.push(`${role}: no QuickBooks account with number or id ${this.mapping[role]}`);
    }
    return problems;
  }

  private lookup(role: AccountRole): Promise<Ref | null> {
    // A failed lookup (outage) is not remembered.
    return this.resolved.get(role, () => this.find(this.mapping[role]));
  }

  private async find(code: string): Promise<Ref | null> {
    const [byNumber] = await this.client.select('Account', { AcctNum: code });
    if (byNumber) return { value: byNumber.Id };
    const [byId] = await this.client.select('Account', { Id: code });
    return byId ? { value: byId.Id } : null;
  }
}
