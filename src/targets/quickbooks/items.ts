import type { AccountRole } from '../account-mapping.js';
import { RememberedLookups } from '../remembered-lookups.js';
import type { AccountDirectory, Ref } from './accounts.js';
import type { QboClient } from './http-client.js';
import { requestIdFor } from './keys.js';

// QBO invoice and refund-receipt lines name an Item, and the Item names the income account. booksync keeps
// one Service item per income role it posts through (`booksync Revenue`, `booksync FeeIncome`,
// `booksync Refunds`, and `booksync DiscountsAndWriteOffs` for a lowered invoice's credit memo), found by name
// or created (with a requestid, so two workers create one). An opening document's line goes through
// `booksync OpeningBalances`, whose income account is the Opening Balance Equity account: QuickBooks enters
// a customer's opening balance as an invoice on an item posting there.

export class ItemDirectory {
  private readonly items = new RememberedLookups<AccountRole, Ref>();

  private readonly client: QboClient;
  private readonly accounts: AccountDirectory;
  constructor(client: QboClient, accounts: AccountDirectory) {
    this.client = client;
    this.accounts = accounts;
  }

  ref(role: AccountRole): Promise<Ref> {
    return this.items.get(role, () => this.findOrCreate(role));
  }

  private async findOrCreate(role: AccountRole): Promise<Ref> {
    const name = `booksync ${role}`;
    const income = await this.accounts.ref(role);
    const [found] = await this.client.select('Item', { Name: name });
    if (found) {
      const current = (found.IncomeAccountRef as Ref | undefined)?.value;
      // The mapping moved the role to another account: booksync's item follows it, later lines post there.
      if (current !== income.value) {
        await this.client.write(
          'Item',
          { Id: found.Id, SyncToken: found.SyncToken, sparse: true, IncomeAccountRef: income },
          {
            operation: 'update',
            requestid: requestIdFor(`item:${role}:${income.value}@${found.SyncToken}`, 'update'),
          },
        );
      }
      return { value: found.Id };
    }
    const created = await this.client.write(
      'Item',
      { Name: name, Type: 'Service', IncomeAccountRef: income, Description: `booksync postings to ${role}` },
      { requestid: requestIdFor(`item:${role}:${income.value}`, 'create') },
    );
    return { value: created.Id };
  }
}
