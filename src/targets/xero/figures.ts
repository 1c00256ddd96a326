import { type AccountRole, accountRoles } from '../account-mapping.js';
import {
  addOpenByNote,
  balancesByRole,
  figuresOf,
  reportCents,
  type TargetFigures,
} from '../target-figures.js';
import type { AccountDirectory } from './accounts.js';
import type { XeroClient } from './client.js';

// Xero's own figures as of a day (README "Figures as of a day"), from its Reports API:
// - Reports/TrialBalance?date=<day>: a Section per account class, a Row per account whose cells carry the
//   AccountID (attribute `account`); the balance is YTD Debit − YTD Credit (the Debit and Credit columns are
//   the month's movement only), i.e. cumulative for balance-sheet accounts and since the financial year's
//   start for revenue and expense accounts, as Xero's trial balance shows them;
// - Reports/AgedReceivablesByContact / AgedPayablesByContact?contactId=&date=<day>: Xero's own open amount
//   per invoice as of the day ("Showing payments to <day>"), a Row per invoice whose cells carry its InvoiceID
//   (attribute `invoiceID`) and whose Due column is what was owed then. These reports take one contact a
//   call (contactId is required), so the contacts to ask are found first in the invoices (ACCREC, ACCPAY)
//   dated on or before the day that were still unpaid at its end: AUTHORISED, or PAID by a payment dated
//   after it. The same listing gives each invoice's marker (Reference; a bill's first line), which names its
//   link or bill. Xero's invoice AmountDue alone would be today's, not the day's; the aged reports are Xero's
//   figure as of the day, payments dated later left out by Xero itself.
// Every amount goes from the report's text to cents through its digits (reportCents).

// biome-ignore lint/suspicious/noExplicitAny: the SDK's models, read as plain objects
type Body = Record<string, any>;

/** Xero's page of invoices (the API's fixed page size when `page` is given). */
const PAGE = 100;

/** A date as the SDK gives it (a Date, Xero's /Date(ms)/, or YYYY-MM-DD...) as YYYY-MM-DD; '' when none. */
export function dayOf(value: unknown): string {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString().slice(0, 10);
  if (typeof value !== 'string' || value === '') return '';
  const ms = /^\/Date\((-?\d+)/.exec(value)?.[1];
  return ms ? new Date(Number(ms)).toISOString().slice(0, 10) : value.slice(0, 10);
}

/** The column of a report whose Header row names it. */
function columnOf(rows: Body[], title: string): number {
  const header = rows.find((r) => String(r.rowType) === 'Header');
  const index = ((header?.cells ?? []) as Body[]).findIndex(
    (c) =>
      String(c.value ?? '')
        .trim()
        .toLowerCase() === title.toLowerCase(),
  );
  if (index === -1) throw new Error(`Xero report has no column ${title}`);
  return index;
}

/** The Rows of a report, sections walked (Xero nests one level: Section → Row / SummaryRow). */
function reportRows(rows: Body[]): Body[] {
  return rows.flatMap((r) => (String(r.rowType) === 'Section' ? ((r.rows ?? []) as Body[]) : [r]));
}

/** The value of a cell's attribute (`account`, `invoiceID`), from any cell of the row. */
function attributeOf(row: Body, id: string): string | null {
  for (const cell of (row.cells ?? []) as Body[])
    for (const a of (cell.attributes ?? []) as Body[]) if (a.id === id && a.value) return String(a.value);
  return null;
}

export class XeroFigures {
  private readonly client: XeroClient;
  private readonly accounts: AccountDirectory;
  constructor(client: XeroClient, accounts: AccountDirectory) {
    this.client = client;
    this.accounts = accounts;
  }

  asOf(given: string): Promise<TargetFigures> {
    return figuresOf(given, {
      balances: (day) => this.balances(day),
      openInvoices: (day) => this.open('ACCREC', day),
      openBills: (day) => this.open('ACCPAY', day),
    });
  }

  private async balances(day: string): Promise<Partial<Record<AccountRole, number>>> {
    const answer = await this.client.call('getReportTrialBalance', (api, t) =>
      api.getReportTrialBalance(t, day),
    );
    const rows = ((answer.reports?.[0]?.rows ?? []) as Body[]) ?? [];
    const debit = columnOf(rows, 'YTD Debit');
    const credit = columnOf(rows, 'YTD Credit');
    const byAccount = new Map<string, number>();
    for (const row of reportRows(rows)) {
      if (String(row.rowType) !== 'Row') continue;
      const id = attributeOf(row, 'account');
      if (!id) continue;
      const cells = (row.cells ?? []) as Body[];
      const cents = reportCents(cells[debit]?.value) - reportCents(cells[credit]?.value);
      byAccount.set(id, (byAccount.get(id) ?? 0) + cents);
    }
    const accountOf = new Map<AccountRole, string | null>();
    for (const role of accountRoles)
      accountOf.set(role, (await this.accounts.account(role))?.accountID ?? null);
    const vendorAccounts = await this.accounts.vendorExpenseIds();
    return balancesByRole(accountOf, byAccount, new Map([['BillExpenses', vendorAccounts]]));
  }

  /** Open per link (ACCREC) or bill (ACCPAY) as of the day: Xero's aged report of each contact concerned. */
  private async open(type: 'ACCREC' | 'ACCPAY', day: string): Promise<Record<string, number>> {
    const invoices = new Map<string, Body>();
    const contacts = new Set<string>();
    for (const invoice of await this.invoices(type)) {
      if (dayOf(invoice.date) > day) continue;
      const paidLater = ((invoice.payments ?? []) as Body[]).some((p) => dayOf(p.date) > day);
      invoices.set(String(invoice.invoiceID), invoice);
      if (String(invoice.status) === 'AUTHORISED' || paidLater)
        contacts.add(String(invoice.contact?.contactID ?? ''));
    }
    contacts.delete('');
    const side = type === 'ACCREC' ? 'paymentLinkId' : 'billId';
    const open: Record<string, number> = {};
    for (const contactId of contacts) {
      const answer = await this.client.call(
        type === 'ACCREC' ? 'getReportAgedReceivablesByContact' : 'getReportAgedPayablesByContact',
        (api, t) =>
          type === 'ACCREC'
            ? api.getReportAgedReceivablesByContact(t, contactId, day)
            : api.getReportAgedPayablesByContact(t, contactId, day),
      );
      const rows = ((answer.reports?.[0]?.rows ?? []) as Body[]) ?? [];
      const due = columnOf(rows, 'Due');
      for (const row of reportRows(rows)) {
        const invoiceId = String(row.rowType) === 'Row' ? attributeOf(row, 'invoiceID') : null;
        if (!invoiceId) continue;
        const cents = reportCents(((row.cells ?? []) as Body[])[due]?.value);
        const invoice = invoices.get(invoiceId);
        const text =
          type === 'ACCPAY'
            ? String(invoice?.lineItems?.[0]?.description ?? '')
            : String(invoice?.reference ?? '');
        addOpenByNote(open, side, text, `Invoice:${invoiceId}`, cents);
      }
    }
    return open;
  }

  /** Every AUTHORISED or PAID invoice of the type, a page of 100 at a time. */
  private async invoices(type: 'ACCREC' | 'ACCPAY'): Promise<Body[]> {
    const where = `Type=="${type}" AND (Status=="AUTHORISED" OR Status=="PAID")`;
    const all: Body[] = [];
    for (let page = 1; ; page++) {
      const answer = await this.client.call('getInvoices', (api, t) =>
        api.getInvoices(t, undefined, where, 'Date', undefined, undefined, undefined, undefined, page),
      );
      const invoices = (answer.invoices ?? []) as Body[];
      all.push(...invoices);
      if (invoices.length < PAGE) return all;
    }
  }
}
