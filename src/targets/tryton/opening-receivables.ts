import type { AccountRole } from '../account-mapping.js';
import { dueDateOf } from '../documents.js';
import { ownerNote } from '../target-figures.js';
import type { PushContext, PushResult, RemoteRecord, TargetDocument } from '../target-port.js';
import { centsOf, dateOf, type TrytonDecimal } from './json-rpc.js';
import { type PlannedMove, planMove } from './moves.js';
import { post } from './posting.js';
import { moveRecord } from './records.js';
import type { TrytonSession } from './session.js';

// An opening document (an invoice of last period still owed when the books open: Dr Accounts Receivable /
// Cr Opening Balances, ledger opening-document.ts) is no customer invoice in Tryton: account_invoice 8.2
// takes on an out invoice's line only an account whose type is revenue (InvoiceLine._account_domain('out'):
// `type.revenue = True`), and Opening Balances is equity. Tryton enters a receivable brought forward as its
// own balance move does (account module, the Balance Non-Deferral wizard, and the opening move of its
// documentation): a move Dr the receivable with the party and its maturity date (the link's due date) /
// Cr the opening account. The payments after the opening are moves on the party's receivable as any
// payment of a link whose invoice Tryton does not hold; once the link's lines on the receivable balance,
// they are reconciled with the opening line by Tryton's Reconcile Lines, so the receivable is closed as
// the service's invoice is paid.

/** An opening document: the link's invoice, its other side Opening Balances instead of revenue. */
export function opensReceivable(document: TargetDocument): boolean {
  return (
    document.kind === 'invoice' &&
    document.lines.some((l) => l.role === 'AccountsReceivable' && l.amountCents > 0) &&
    document.lines.some((l) => l.role === 'OpeningBalances' && l.amountCents < 0)
  );
}

/** The side an opening document brings forward: an invoice's receivable or a bill's payable. */
export type OpeningSide = 'AccountsReceivable' | 'AccountsPayable';

/**
 * An opening document's move: planned as any move (its receivable or payable line on the party, on no
 * invoice), that line due as the link or bill is, its text naming the invoice's or the vendor's number.
 */
export async function planOpeningMove(
  s: TrytonSession,
  document: TargetDocument,
  accounts: Map<AccountRole, number>,
  context: PushContext,
  side: OpeningSide,
): Promise<PlannedMove> {
  const planned = await planMove(s, document, accounts, context);
  const open = accounts.get(side);
  const number = side === 'AccountsReceivable' ? document.invoice?.number : document.bill?.number;
  const [[op, lines]] = planned.values.lines as [[string, Record<string, unknown>[]]];
  const dated = lines.map((l) =>
    l.account === open
      ? {
          ...l,
          maturity_date: dateOf(dueDateOf(document)),
          ...(number ? { description: `${number} - ${String(l.description)}` } : {}),
        }
      : l,
  );
  return { ...planned, values: { ...planned.values, lines: [[op, dated]] } };
}

/** An opening document as a posted move. */
export async function pushOpeningMove(
  s: TrytonSession,
  document: TargetDocument,
  accounts: Map<AccountRole, number>,
  context: PushContext,
  side: OpeningSide,
): Promise<PushResult> {
  const planned = await planOpeningMove(s, document, accounts, context, side);
  const [id] = await s.rpc.model<number[]>('account.move', 'create', [planned.values]);
  await post(s, document, { model: 'account.move', id: id as number });
  return {
    key: document.key,
    remoteIds: [`account.move,${id}`],
    contentHash: document.contentHash,
    created: true,
  };
}

/**
 * The move of an opening document (`invoice:<link>`, `bill:<bill>`), when Tryton holds it as one (null when
 * it is an invoice, or not pushed).
 */
export async function openingMoveOf(
  s: TrytonSession,
  key: string,
  context: PushContext,
): Promise<number | null> {
  // The index knows what the document became: an invoice (the usual case) needs no look-up.
  const known: RemoteRecord | null = context.pushed(key) ?? (await moveRecord(s, key));
  if (!known || known.remoteIds.some((r) => r.startsWith('account.invoice,'))) return null;
  const ref = known.remoteIds.find((r) => r.startsWith('account.move,'));
  return ref ? Number(ref.split(',')[1]) : null;
}

/** Whether money on the receivable of a link may close the link's opening receivable (a move). */
export function paysReceivable(document: TargetDocument): boolean {
  return (
    document.invoice !== undefined &&
    document.lines.some((l) => l.role === 'AccountsReceivable' && l.amountCents < 0)
  );
}

/** Whether the document pays a link Tryton holds as an opening receivable, as the index knows it. */
export function settlesOpeningReceivable(document: TargetDocument, context: PushContext): boolean {
  if (!paysReceivable(document) || !document.invoice) return false;
  const known = context.pushed(`invoice:${document.invoice.paymentLinkId}`);
  return (
    known !== null &&
    !known.remoteIds.some((r) => r.startsWith('account.invoice,')) &&
    known.remoteIds.some((r) => r.startsWith('account.move,'))
  );
}

interface ReceivableLine {
  id: number;
  account: number;
  party: number | null;
  debit: TrytonDecimal;
  credit: TrytonDecimal;
  reconciliation: number | null;
  'move.'?: { description: string | null } | null;
}

/**
 * After money on a link's receivable is posted: when the link's invoice is an opening receivable still
 * open, and the link's open lines on the party's receivable (the opening line and the payments' lines,
 * found by the link's note on their moves) balance, they are reconciled with Tryton's Reconcile Lines. A
 * part payment leaves them open: the opening line's remainder is what the link still owes.
 */
export async function reconcileOpeningReceivable(
  s: TrytonSession,
  document: TargetDocument,
  context: PushContext,
): Promise<void> {
  if (!paysReceivable(document) || !document.invoice) return;
  const move = await openingMoveOf(s, `invoice:${document.invoice.paymentLinkId}`, context);
  if (move === null) return;
  await reconcileOpeningLine(s, move, ownerNote(document.invoice), 'debit');
}

/**
 * The opening line of `move` (its line with a party, on the side `side`), reconciled with the open lines on
 * the same account and party whose moves carry `note` (`booksync link=<id>`, `booksync bill=<id>`) once
 * they all balance; left open while they do not.
 */
export async function reconcileOpeningLine(
  s: TrytonSession,
  move: number,
  note: string,
  side: 'debit' | 'credit',
): Promise<void> {
  const opening = (
    await s.rpc.searchRead<ReceivableLine>(
      'account.move.line',
      [
        ['move', '=', move],
        ['party', '!=', null],
      ],
      ['account', 'party', 'debit', 'credit', 'reconciliation'],
    )
  ).find((l) => centsOf(l[side]) > 0);
  if (!opening || opening.reconciliation !== null) return;
  const escaped = note.replace(/[\\%_]/g, (c) => `\\${c}`);
  // The LIKE finds candidates; the note must end there (pl_1 is not pl_10).
  const noted = (text: string | null | undefined) =>
    ` ${(text ?? '').replace(/\s+/g, ' ')} `.includes(` ${note} `);
  const paying = (
    await s.rpc.searchRead<ReceivableLine>(
      'account.move.line',
      [
        ['account', '=', opening.account],
        ['party', '=', opening.party],
        ['reconciliation', '=', null],
        ['move.state', '=', 'posted'],
        ['move.description', 'like', `%${escaped}%`],
      ],
      ['debit', 'credit', 'move.description'],
    )
  ).filter((l) => noted(l['move.']?.description));
  const lines = [opening, ...paying.filter((l) => l.id !== opening.id)];
  const open = lines.reduce((sum, l) => sum + centsOf(l.debit) - centsOf(l.credit), 0);
  if (open !== 0 || lines.length < 2) return;
  await s.rpc.wizard(
    'account.move.reconcile_lines',
    'start',
    {},
    'account.move.line',
    lines.map((l) => l.id),
  );
}
