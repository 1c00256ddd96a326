import { type AccountRole, accountRoles } from '../account-mapping.js';
import {
  addOpenByNote,
  balancesByRole,
  figuresOf,
  reportCents,
  type TargetFigures,
} from '../target-figures.js';
import type { AccountDirectory } from './accounts.js';
import type { QboClient, QboColData, QboReport, QboRow } from './http-client.js';

// QuickBooks Online's own figures as of a day (README "Figures as of a day"), from its Reports API:
// - TrialBalance?end_date=<day>&accounting_method=Accrual: one Data row per account (ColData:
//   the account, its Id as the cell's `id`; Debit; Credit), balance = Debit − Credit as of the end date
//   (income and expense accounts for the fiscal year to date, as QBO's trial balance shows them);
// - AgedReceivableDetail / AgedPayableDetail?report_date=<day>&aging_method=Report_Date: one Data row per
//   open transaction, in sections by age, its type cell carrying the transaction's Id and its Open Balance
//   column (ColKey subt_open_bal) what is open as of the day. The transactions are then read (Id IN, a
//   filterable property) for the marker booksync wrote in PrivateNote, which names the link or bill.
// Every amount goes from the report's decimal text to cents through its digits (reportCents).

/** How many Ids one `Id IN (...)` query asks for. */
const ID_CHUNK = 100;

/** The entities an aging row's transaction type names (QBO writes the type with spaces). */
const entityOfType: Record<string, string> = {
  Invoice: 'Invoice',
  'Journal Entry': 'JournalEntry',
  Bill: 'Bill',
  Payment: 'Payment',
  'Bill Payment (Check)': 'BillPayment',
  'Credit Memo': 'CreditMemo',
  'Vendor Credit': 'VendorCredit',
};

/** A report's column index: by its ColKey metadata, else by its title. */
function columnOf(report: QboReport, colKey: string, title: string): number {
  const columns = report.Columns?.Column ?? [];
  const byKey = columns.findIndex((c) =>
    (c.MetaData ?? []).some((m) => m.Name === 'ColKey' && m.Value === colKey),
  );
  if (byKey !== -1) return byKey;
  const byTitle = columns.findIndex((c) => (c.ColTitle ?? '').trim().toLowerCase() === title.toLowerCase());
  if (byTitle === -1)
    throw new Error(`QuickBooks ${String(report.Header?.ReportName ?? 'report')} has no column ${title}`);
  return byTitle;
}

/** Every Data row of a report, sections walked depth first (section headers and summaries left out). */
function dataRows(rows: QboRow[] | undefined): QboColData[][] {
  const out: QboColData[][] = [];
  for (const row of rows ?? []) {
    if (row.ColData && row.type !== 'Section') out.push(row.ColData);
    if (row.Rows) out.push(...dataRows(row.Rows.Row));
  }
  return out;
}

export class QuickBooksFigures {
  private readonly client: QboClient;
  private readonly accounts: AccountDirectory;
  constructor(client: QboClient, accounts: AccountDirectory) {
    this.client = client;
    this.accounts = accounts;
  }

  asOf(given: string): Promise<TargetFigures> {
    return figuresOf(given, {
      balances: (day) => this.balances(day),
      openInvoices: (day) => this.open('AgedReceivableDetail', day),
      openBills: (day) => this.open('AgedPayableDetail', day),
    });
  }

  private async balances(day: string): Promise<Partial<Record<AccountRole, number>>> {
    const report = await this.client.report('TrialBalance', {
      end_date: day,
      accounting_method: 'Accrual',
    });
    const debit = columnOf(report, 'Debit', 'Debit');
    const credit = columnOf(report, 'Credit', 'Credit');
    const byAccount = new Map<string, number>();
    for (const cells of dataRows(report.Rows?.Row)) {
      const id = cells[0]?.id;
      if (!id) continue;
      const cents = reportCents(cells[debit]?.value) - reportCents(cells[credit]?.value);
      byAccount.set(id, (byAccount.get(id) ?? 0) + cents);
    }
    const accountOf = new Map<AccountRole, string | null>();
    for (const role of accountRoles) accountOf.set(role, await this.accounts.idOf(role));
    const vendorAccounts = await this.accounts.vendorExpenseIds();
    return balancesByRole(accountOf, byAccount, new Map([['BillExpenses', vendorAccounts]]));
  }

  /** What is open per link (receivables) or bill (payables) as of the day, from QBO's aging detail. */
  private async open(
    report: 'AgedReceivableDetail' | 'AgedPayableDetail',
    day: string,
  ): Promise<Record<string, number>> {
    const aging = await this.client.report(report, { report_date: day, aging_method: 'Report_Date' });
    const type = columnOf(aging, 'txn_type', 'Transaction Type');
    const openBalance = columnOf(aging, 'subt_open_bal', 'Open Balance');
    const rows: { entity: string; typeName: string; id: string; cents: number }[] = [];
    for (const cells of dataRows(aging.Rows?.Row)) {
      const typeName = cells[type]?.value ?? '';
      const id = cells[type]?.id ?? '';
      const cents = reportCents(cells[openBalance]?.value);
      if (!id || cents === 0) continue;
      rows.push({ entity: entityOfType[typeName] ?? typeName.replace(/\W/g, ''), typeName, id, cents });
    }
    const notes = await this.notes(rows);
    const side = report === 'AgedReceivableDetail' ? 'paymentLinkId' : 'billId';
    const open: Record<string, number> = {};
    for (const row of rows) {
      const note = notes.get(`${row.entity}:${row.id}`);
      addOpenByNote(open, side, note, `${row.entity}:${row.id}`, row.cents);
    }
    return open;
  }

  /** The PrivateNote of each transaction (`<Entity>:<Id>`), read by Id, a chunk of Ids a query. */
  private async notes(rows: { entity: string; id: string }[]): Promise<Map<string, string>> {
    const notes = new Map<string, string>();
    const byEntity = new Map<string, string[]>();
    for (const row of rows) byEntity.set(row.entity, [...(byEntity.get(row.entity) ?? []), row.id]);
    for (const [entity, ids] of byEntity) {
      if (!Object.values(entityOfType).includes(entity)) continue;
      const unique = [...new Set(ids)];
      for (let i = 0; i < unique.length; i += ID_CHUNK) {
        const chunk = unique.slice(i, i + ID_CHUNK);
        const records = await this.client.select(entity, { Id: chunk }, { max: chunk.length });
        for (const record of records) notes.set(`${entity}:${record.Id}`, String(record.PrivateNote ?? ''));
      }
    }
    return notes;
  }
}
