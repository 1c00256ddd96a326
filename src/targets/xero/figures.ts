import type { AccountingApi } from 'xero-node';
import { type AccountRole, accountRoles } from '../account-mapping.js';
import { amountToCents } from '../decimal-amounts.js';
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
//   figure as of the day, payments dated later left out by Xero itself;
// - the contact's credits, which Xero's aged reports also show, each on a line of its own ("each invoice,
//   credit note, overpayment or prepayment", https://help.xero.com/us/Report_AgedreceivableInvoices): the
//   API's report example gives only invoice rows (attribute `invoiceID`), so the credits are read from their
//   own records, CreditNotes (ACCRECCREDIT / ACCPAYCREDIT) and Overpayments (RECEIVE- / SPEND-OVERPAYMENT),
//   each what it had left at the day's end: its Total less its Allocations and its Payments (refunds) dated
//   on or before the day (xero_accounting.yaml `CreditNote`, `Overpayment`, `Allocation.Date`). A credit is
//   counted negative under the link or bill its Reference notes. Prepayments are not in Xero's aged reports
//   (booksync makes none). A report row naming a credit read this way is not counted twice.
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

/** A contact's credit left at a day's end: a credit note or an overpayment, and its Reference. */
interface Credit {
  entity: 'CreditNote' | 'Overpayment';
  id: string;
  cents: number;
  text: string;
}

/** What names a credit's link or bill: its Reference (a sales credit), else its first line (a vendor's). */
function creditText(type: 'ACCREC' | 'ACCPAY', record: Body): string {
  const reference = String(record.reference ?? '');
  if (type === 'ACCREC' || reference !== '') return reference;
  return String(record.lineItems?.[0]?.description ?? '');
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

  /**
   * Open per link (ACCREC) or bill (ACCPAY) as of the day: Xero's aged report of each contact concerned, less
   * the contacts' credits left at the day's end.
   */
  private async open(type: 'ACCREC' | 'ACCPAY', day: string): Promise<Record<string, number>> {
    const side = type === 'ACCREC' ? 'paymentLinkId' : 'billId';
    const open: Record<string, number> = {};
    const credits = await this.creditsLeft(type, day);
    for (const credit of credits)
      addOpenByNote(open, side, credit.text, `${credit.entity}:${credit.id}`, -credit.cents);
    await this.agedInvoices(type, side, day, open, new Set(credits.map((c) => c.id)));
    return open;
  }

  /** Adds to `open` each invoice row of the aged reports of the contacts concerned (`credits` left out). */
  private async agedInvoices(
    type: 'ACCREC' | 'ACCPAY',
    side: 'paymentLinkId' | 'billId',
    day: string,
    open: Record<string, number>,
    credits: ReadonlySet<string>,
  ): Promise<void> {
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
        if (!invoiceId || credits.has(invoiceId)) continue;
        const cents = reportCents(((row.cells ?? []) as Body[])[due]?.value);
        const invoice = invoices.get(invoiceId);
        const text =
          type === 'ACCPAY'
            ? String(invoice?.lineItems?.[0]?.description ?? '')
            : String(invoice?.reference ?? '');
        addOpenByNote(open, side, text, `Invoice:${invoiceId}`, cents);
      }
    }
  }

  /**
   * The contact credits of the side (credit notes and overpayments, AUTHORISED or PAID, dated on or before
   * the day) with what each had left at the day's end; those with nothing left are not listed.
   */
  private async creditsLeft(type: 'ACCREC' | 'ACCPAY', day: string): Promise<Credit[]> {
    const live = '(Status=="AUTHORISED" OR Status=="PAID")';
    const notes = await this.pages('getCreditNotes', 'creditNotes', (api, t, page) =>
      api.getCreditNotes(t, undefined, `Type=="${type}CREDIT" AND ${live}`, 'Date', page),
    );
    const overpayments = await this.pages('getOverpayments', 'overpayments', (api, t, page) =>
      api.getOverpayments(
        t,
        undefined,
        `Type=="${type === 'ACCREC' ? 'RECEIVE' : 'SPEND'}-OVERPAYMENT" AND ${live}`,
        'Date',
        page,
      ),
    );
    const credits: Credit[] = [];
    const add = (entity: Credit['entity'], id: unknown, record: Body) => {
      if (dayOf(record.date) > day) return;
      const used = [...((record.allocations ?? []) as Body[]), ...((record.payments ?? []) as Body[])]
        .filter((a) => dayOf(a.date) <= day)
        .reduce((sum, a) => sum + amountToCents(Number(a.amount ?? 0)), 0);
      const cents = amountToCents(Number(record.total ?? 0)) - used;
      if (cents !== 0) credits.push({ entity, id: String(id), cents, text: creditText(type, record) });
    };
    for (const note of notes) add('CreditNote', note.creditNoteID, note);
    for (const overpayment of overpayments) add('Overpayment', overpayment.overpaymentID, overpayment);
    return credits;
  }

  /** Every record of a paged list (Xero's 100 a page when `page` is given), page after page. */
  private async pages(
    operation: string,
    field: string,
    read: (api: AccountingApi, tenant: string, page: number) => Promise<{ body: Body }>,
  ): Promise<Body[]> {
    const all: Body[] = [];
    for (let page = 1; ; page++) {
      const answer = await this.client.call<Body>(operation, (api, t) => read(api, t, page));
      const records = (answer[field] ?? []) as Body[];
      all.push(...records);
      if (records.length < PAGE) return all;
    }
  }

  /** Every AUTHORISED or PAID invoice of the type, a page of 100 at a time. */
  private invoices(type: 'ACCREC' | 'ACCPAY'): Promise<Body[]> {
    const where = `Type=="${type}" AND (Status=="AUTHORISED" OR Status=="PAID")`;
    return this.pages('getInvoices', 'invoices', (api, t, page) =>
      api.getInvoices(t, undefined, where, 'Date', undefined, undefined, undefined, undefined, page),
    );
  }
}
