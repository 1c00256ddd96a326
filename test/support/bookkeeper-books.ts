import type { PaymentLink } from '@booksync/service-contract/schemas/index';
import { markerTextOf } from '@booksync/vendor-doubles/xero/double';
import { expect } from 'vitest';
import { type AccountName, Accounts } from '../../src/ledger/chart-of-accounts.js';
import type { BookedEntry } from '../../src/ledger/entry.js';
import { type AccountRole, defaultAccountCodes } from '../../src/targets/account-mapping.js';
import { markersIn } from '../../src/targets/markers.js';
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
    const perDocument = expectedPerDocument(link);
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
