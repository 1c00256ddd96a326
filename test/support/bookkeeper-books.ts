import type { PaymentLink } from '@booksync/service-contract/schemas/index';
import { markerTextOf } from '@booksync/vendor-doubles/xero/double';
import { expect } from 'vitest';
import { type AccountName, Accounts } from '../../src/ledger/chart-of-accounts.js';
import type { BookedEntry } from '../../src/ledger/entry.js';
import { type AccountRole, defaultAccountCodes } from '../../src/targets/account-mapping.js';
import { markersIn } from '../../src/targets/markers.js';
import { centsOf, isoDateOf } from '../../src/targets/tryton/json-rpc.js';
import type { allTargets, ThreeTargets } from './three-targets.js';

// What a bookkeeper reads in the ledger and in each of the three targets of a ThreeTargets stack (the bookkeeper's
// cases, test/e2e/bookkeeper-cases.test.ts): every mapped account's balance, by role, and the open amount of
// each document booksync made for a payment link (QBO Invoice `Balance`, Xero `AmountDue`, Tryton's amount to
// pay), beside what the service says is still owed.

export const roles = Object.keys(defaultAccountCodes) as AccountRole[];
export type Book = 'ledger' | (typeof allTargets)[number];
export type RoleBalances = Record<AccountRole, number>;
export type BooksBalances = Record<Book, RoleBalances>;

/** A decimal amount of a double's document, in cents. */
export const centsOfAmount = (value: unknown): number => Math.round(Number(value ?? 0) * 100);

/** Every role's balance (cents, debit positive) in the ledger and in each target through booksync's default codes. */
export async function balancesOf(stack: ThreeTargets): Promise<BooksBalances> {
  const ours = await stack.store.ledger.balances();
  const tryton = await stack.tryton.balances(Object.values(defaultAccountCodes));
  const per = (read: (role: AccountRole) => number) =>
    Object.fromEntries(roles.map((r) => [r, read(r)])) as RoleBalances;
  return {
    ledger: per((r) => ours.find((b) => b.account === (Accounts[r] as AccountName))?.balanceCents ?? 0),
    tryton: per((r) => tryton[defaultAccountCodes[r]] ?? 0),
    quickbooks: per((r) => stack.qbo.balanceOf(stack.realmId, defaultAccountCodes[r])),
    xero: per((r) => stack.xero.balanceOf(stack.tenantId, defaultAccountCodes[r])),
  };
}

/**
 * Since `before`, every book's balances moved by `changes` (cents, debit positive; roles not named by 0):
 * the same figures in the ledger and in each target.
 */
export async function expectChanges(
  stack: ThreeTargets,
  before: BooksBalances,
  changes: Partial<RoleBalances>,
): Promise<void> {
  const now = await balancesOf(stack);
  const books = Object.keys(now) as Book[];
  const moved = (book: Book) =>
    Object.fromEntries(roles.map((r) => [r, now[book][r] - before[book][r]])) as RoleBalances;
  const expected = Object.fromEntries(roles.map((r) => [r, changes[r] ?? 0])) as RoleBalances;
  expect(Object.fromEntries(books.map((b) => [b, moved(b)]))).toEqual(
    Object.fromEntries(books.map((b) => [b, expected])),
  );
}

/** A customer document at a target: the ledger keys its markers carry and what is still owed on it. */
interface OpenDocument {
  keys: string[];
  dueCents: number;
}

function quickbooksInvoices(stack: ThreeTargets): OpenDocument[] {
  return stack.qbo.all(stack.realmId, 'Invoice').map((inv) => ({
    keys: markersIn(inv.PrivateNote).map((m) => m.key),
    dueCents: centsOfAmount(inv.Balance),
  }));
}

function xeroInvoices(stack: ThreeTargets): OpenDocument[] {
  return stack.xero
    .all(stack.tenantId, 'Invoices')
    .filter((inv) => inv.Type === 'ACCREC' && !['VOIDED', 'DELETED'].includes(String(inv.Status)))
    .map((inv) => ({
      keys: markersIn(markerTextOf(inv)).map((m) => m.key),
      dueCents: centsOfAmount(inv.AmountDue),
    }));
}

/**
 * Each link's documents owe, in every book, what the service says is left: the sum of the link's documents
 * (its invoice, its debit memos' charge invoices, what reversals reopened) equals the service's remainder in
 * the ledger's open receivable, in QBO, in Xero and in Tryton; and where the service tells each document's
 * part, each one: nothing left, every document at 0; nothing paid, the invoice owes the link's own amount and
 * each memo its amount.
 */
export async function expectOpenAsService(stack: ThreeTargets, linkIds: readonly string[]): Promise<void> {
  const service = stack.booksync.service();
  const entries = await stack.entries();
  const ledgerOpen = new Map(
    (await stack.store.ledger.openItems('receivable')).map((i) => [i.documentId, i.openCents]),
  );
  const qbo = quickbooksInvoices(stack);
  const xero = xeroInvoices(stack);
  for (const id of linkIds) {
    const link = await service.getPaymentLink(id);
    const remainder = link.requestedAmountCents - link.completedAmountCents;
    const keys = new Set(entries.filter((e) => e.links.paymentLinkId === id).map((e) => e.key));
    const mine = (docs: OpenDocument[]) => docs.filter((d) => d.keys.some((k) => keys.has(k)));
    const sum = (docs: OpenDocument[]) => docs.reduce((s, d) => s + d.dueCents, 0);
    expect({
      link: link.name,
      ledger: ledgerOpen.get(id) ?? 0,
      quickbooks: sum(mine(qbo)),
      xero: sum(mine(xero)),
      tryton: await stack.tryton.amountToPay(id),
    }).toEqual({
      link: link.name,
      ledger: remainder,
      quickbooks: remainder,
      xero: remainder,
      tryton: remainder,
    });
    // A raise is a charge invoice of its own: the link's own amount is then spread over several documents.
    const raised = entries.some(
      (e) =>
        e.links.paymentLinkId === id &&
        e.key.startsWith('invoice-adjustment:') &&
        e.lines.some((l) => l.account === Accounts.AccountsReceivable && l.amountCents > 0),
    );
    const perDocument = raised ? null : expectedPerDocument(link);
    if (!perDocument) continue;
    for (const [target, docs] of [
      ['quickbooks', mine(qbo)],
      ['xero', mine(xero)],
    ] as const) {
      const owed = (key: string) => docs.filter((d) => d.keys.includes(key)).map((d) => d.dueCents);
      expect({ link: link.name, target, owed: Object.keys(perDocument).map(owed) }).toEqual({
        link: link.name,
        target,
        owed: Object.values(perDocument).map((cents) => [cents]),
      });
    }
  }
}

/** What each document of the link owes when the service's figures tell it: key -> cents; else null. */
function expectedPerDocument(link: PaymentLink): Record<string, number> | null {
  const remainder = link.requestedAmountCents - link.completedAmountCents;
  if (remainder !== 0 && link.completedAmountCents !== 0) return null;
  const paid = remainder === 0;
  return {
    [`invoice:${link.id}`]: paid ? 0 : link.requestedAmountCents - link.debitMemoAmountCents,
    ...Object.fromEntries(link.debitMemos.map((m) => [`debit-memo:${m.id}`, paid ? 0 : m.amountCents])),
  };
}

/** The entries of one payment link in the ledger. */
export const ofLink = (entries: readonly BookedEntry[], linkId: string) =>
  entries.filter((e) => e.links.paymentLinkId === linkId);

/** A document as the comparison of two twins sees it: what it is, its date, its figures, the keys it carries. */
export type DocumentShape = Record<string, unknown>;
export type BooksDocuments = Record<Book, DocumentShape[]>;

const qboEntities = [
  'Invoice',
  'Payment',
  'Deposit',
  'JournalEntry',
  'Purchase',
  'RefundReceipt',
  'SalesReceipt',
  'CreditMemo',
  'Bill',
  'BillPayment',
  'VendorCredit',
];

const sortedShapes = (shapes: DocumentShape[]) =>
  shapes.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

/** Xero's `/Date(ms+0000)/` as a day. */
const xeroDay = (value: unknown) => {
  const ms = /^\/Date\((-?\d+)/.exec(String(value ?? ''))?.[1];
  return ms ? new Date(Number(ms)).toISOString().slice(0, 10) : value;
};

/**
 * The documents each book holds for the ledger keys `keys` (an entry of the ledger, a target's document whose
 * markers name one of them), each reduced to what a bookkeeper compares (kind, date, amounts, lines by
 * account, the keys it carries) with every service id passed through `rename`: two twins' records, renamed to
 * the same names, compare equal when the books hold the same documents for them.
 */
export async function documentsOf(
  stack: ThreeTargets,
  keys: ReadonlySet<string>,
  rename: (text: string) => string,
): Promise<BooksDocuments> {
  const ours = (found: string[]) => found.length > 0 && found.every((k) => keys.has(k));
  const named = (found: string[]) => found.map(rename).sort();
  const ledger = (await stack.entries())
    .filter((e) => keys.has(e.key))
    .map((e) => {
      const lines: Record<string, number> = {};
      for (const l of e.lines) lines[l.account] = (lines[l.account] ?? 0) + l.amountCents;
      return { key: rename(e.key), date: e.date, lines, reverses: e.reverses ? rename(e.reverses) : null };
    });
  const quickbooks = qboEntities.flatMap((entity) =>
    stack.qbo
      .all(stack.realmId, entity)
      .filter((d) => ours(markersIn(d.PrivateNote).map((m) => m.key)))
      .map((d) => ({
        entity,
        keys: named(markersIn(d.PrivateNote).map((m) => m.key)),
        date: d.TxnDate,
        total: centsOfAmount(d.TotalAmt),
        balance: d.Balance === undefined ? null : centsOfAmount(d.Balance),
        voided: stack.qbo.isVoided(stack.realmId, entity, String(d.Id)),
        lines: ((d.Line ?? []) as Record<string, unknown>[]).map((l) => [
          l.DetailType,
          centsOfAmount(l.Amount),
        ]),
      })),
  );
  const xero = stack.xero
    .booked(stack.tenantId)
    .filter((d) => ours(markersIn(markerTextOf(d)).map((m) => m.key)))
    .map((d) => ({
      type: d.Type ?? null,
      status: d.Status ?? null,
      keys: named(markersIn(markerTextOf(d)).map((m) => m.key)),
      date: xeroDay(d.Date),
      total: centsOfAmount(d.Total ?? d.Amount),
      due: d.AmountDue === undefined ? null : centsOfAmount(d.AmountDue),
    }));
  return {
    ledger: sortedShapes(ledger),
    quickbooks: sortedShapes(quickbooks),
    xero: sortedShapes(xero),
    tryton: sortedShapes(await trytonDocuments(stack, ours, named)),
  };
}

/** Tryton's invoices and moves whose description carries booksync's keys (`booksync:<key>`). */
async function trytonDocuments(
  stack: ThreeTargets,
  ours: (found: string[]) => boolean,
  named: (found: string[]) => string[],
): Promise<DocumentShape[]> {
  const rpc = stack.tryton.rpc;
  const keysIn = (text: unknown) =>
    [...String(text ?? '').matchAll(/booksync:(\S+)/g)].map((m) => m[1] ?? '');
  const invoices = (
    await rpc.searchRead<Record<string, unknown>>(
      'account.invoice',
      [['description', 'like', 'booksync:%']],
      ['description', 'type', 'state', 'invoice_date', 'total_amount', 'amount_to_pay'],
    )
  )
    .filter((i) => ours(keysIn(i.description)))
    .map((i) => ({
      model: 'invoice',
      keys: named(keysIn(i.description)),
      type: i.type,
      state: i.state,
      date: isoDateOf(i.invoice_date as never),
      total: centsOf(i.total_amount as never),
      toPay: centsOf(i.amount_to_pay as never),
    }));
  const moves = (
    await rpc.searchRead<Record<string, unknown>>(
      'account.move',
      [['description', 'like', 'booksync:%']],
      ['description', 'date', 'state', 'lines'],
    )
  ).filter((m) => ours(keysIn(m.description)));
  const lineIds = moves.flatMap((m) => m.lines as number[]);
  const lines = await rpc.model<{ id: number; debit: unknown; credit: unknown; account: number }[]>(
    'account.move.line',
    'read',
    lineIds,
    ['debit', 'credit', 'account'],
  );
  const accountIds = [...new Set(lines.map((l) => l.account))];
  const codes = new Map(
    (await rpc.model<{ id: number; code: string }[]>('account.account', 'read', accountIds, ['code'])).map(
      (a) => [a.id, a.code],
    ),
  );
  const byId = new Map(lines.map((l) => [l.id, l]));
  return [
    ...invoices,
    ...moves.map((m) => {
      const net: Record<string, number> = {};
      for (const id of m.lines as number[]) {
        const l = byId.get(id);
        if (!l) continue;
        const code = codes.get(l.account) ?? String(l.account);
        net[code] = (net[code] ?? 0) + centsOf(l.debit as never) - centsOf(l.credit as never);
      }
      return {
        model: 'move',
        keys: named(keysIn(m.description)),
        state: m.state,
        date: isoDateOf(m.date as never),
        lines: net,
      };
    }),
  ];
}
