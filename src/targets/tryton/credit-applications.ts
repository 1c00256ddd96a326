import { ownerNote } from '../target-figures.js';
import type { DocumentApplication, PushContext, TargetDocument } from '../target-port.js';
import { type CreditLine, type LineRow, marker, markerLike } from './helpers.js';
import { centsOf, dateOf, decimalOf } from './json-rpc.js';
import { invoiceOf } from './lowerings.js';
import { periodOf, post, postRecords } from './posting.js';
import { applyCreditTo, invoicesProcessed, reconcileIfPaid, reconcileLines } from './reconciliation.js';
import { findByKey } from './records.js';
import type { TrytonSession } from './session.js';

// A lowering's credit that no document owed when it was booked (the customer's credit, a credit note left on
// the party: lowerings.ts), applied again as the ledger says (TargetDocument.reapplies, applications.ts): once
// a reversal of money has reopened the link's documents, or a charge has opened one. A credit note the ledger
// gives whole to one document is applied to it as any credit note is (applyCreditTo). Otherwise the credit is
// split as Tryton's Reschedule Lines splits a line to pay, but dated the day of the entry that applies it (the
// wizard dates its move the day it runs): one move on the receivable account with the party, a debit of the
// credit's open lines reconciled with them, a credit per document the ledger names (each one of that
// invoice's payment lines), and a credit for what is left, open on the party. The move changes no account's
// balance; what each invoice owes becomes the service's remainder. One such move per applying entry and
// credit, found again by its marker, so a push cut short finishes it.

/** The marker key of the move applying `credit` for the entry `by`. */
const applicationKey = (by: string, credit: string) => `credit-application:${by}:${credit}`;
/** A LIKE pattern for every application move of `credit` (its key last), `_` and `%` escaped. */
const applicationsOf = (credit: string) =>
  `booksync:credit-application:%:${credit.replace(/[\\%_]/g, (c) => `\\${c}`)} %`;

/** The open part of a credit: a line of its credit notes or of an earlier application move, and its cents. */
interface OpenCredit {
  line: number;
  cents: number;
  /** The credit note it is the line to pay of; null for the rest left by an application move. */
  note: number | null;
}

export async function reapplyCredits(
  s: TrytonSession,
  document: TargetDocument,
  context: PushContext,
): Promise<void> {
  for (const { credit, applied } of document.reapplies ?? []) {
    const parts = applied.filter((a) => a.amountCents > 0);
    if (parts.length === 0) continue;
    const existing = await applicationMove(s, applicationKey(document.key, credit));
    if (existing) {
      await takeOver(s, existing, credit, context);
      await finishApplication(s, existing, parts, context);
      continue;
    }
    const open = await openCredit(s, credit, context);
    const only = parts.length === 1 ? parts[0] : undefined;
    const whole = only ? open.find((o) => o.note !== null && o.cents === only.amountCents) : undefined;
    if (only && whole?.note) {
      const invoice = await invoiceOf(s, only.reopens ?? only.key, context);
      if (invoice) await applyCreditTo(s, whole.note, invoice.id);
      continue;
    }
    const move = await splitCredit(s, document, credit, open, parts);
    if (move === null) continue;
    await takeOver(s, move, credit, context);
    await finishApplication(s, move, parts, context);
  }
}

/** What is still open of a credit at Tryton: its credit notes' lines to pay and application moves' rests. */
async function openCredit(s: TrytonSession, credit: string, context: PushContext): Promise<OpenCredit[]> {
  const record = context.pushed(credit) ?? (await findByKey(s, credit));
  const notes = (record?.remoteIds ?? []).flatMap((r) =>
    r.startsWith('account.invoice,') ? [Number(r.split(',')[1])] : [],
  );
  const rows = notes.length
    ? await s.rpc.model<{ id: number; lines_to_pay: number[] }[]>('account.invoice', 'read', notes, [
        'lines_to_pay',
      ])
    : [];
  const noteOf = new Map(rows.flatMap((r) => r.lines_to_pay.map((l) => [l, r.id] as const)));
  const lines = await s.rpc.model<(LineRow & CreditLine)[]>(
    'account.move.line',
    'read',
    [...noteOf.keys()],
    ['debit', 'credit', 'reconciliation', 'invoice_payment'],
  );
  const rests = await s.rpc.searchRead<LineRow & CreditLine>(
    'account.move.line',
    [
      ['move.description', 'like', applicationsOf(credit)],
      ['move.state', '=', 'posted'],
      ['reconciliation', '=', null],
      ['invoice_payment', '=', null],
      ['credit', '>', 0],
    ],
    ['debit', 'credit', 'reconciliation', 'invoice_payment'],
  );
  return [...lines, ...rests]
    .filter((l) => l.reconciliation === null && l.invoice_payment === null && centsOf(l.credit) > 0)
    .sort((a, b) => a.id - b.id)
    .map((l) => ({
      line: l.id,
      cents: centsOf(l.credit) - centsOf(l.debit),
      note: noteOf.get(l.id) ?? null,
    }));
}

/**
 * The move splitting the credit's open lines: a debit of them all (reconciled with them), a credit per part,
 * the rest a credit open on the party; posted. Null when less is open than the parts take (nothing made,
 * and logged: the credit stays as it is on the party, the party's receivable right).
 */
async function splitCredit(
  s: TrytonSession,
  document: TargetDocument,
  credit: string,
  open: OpenCredit[],
  parts: DocumentApplication[],
): Promise<number | null> {
  const total = open.reduce((sum, o) => sum + o.cents, 0);
  const applied = parts.reduce((sum, p) => sum + p.amountCents, 0);
  const [first] = open;
  if (!first || total < applied) {
    s.options.logger?.info(
      { entryKey: document.key, credit, open: total, applied },
      'customer credit left on the party: less of it is open at Tryton than the ledger applies',
    );
    return null;
  }
  const [line] = await s.rpc.model<{ account: number; party: number | null }[]>(
    'account.move.line',
    'read',
    [first.line],
    ['account', 'party'],
  );
  const side = { account: line?.account, ...(line?.party ? { party: line.party } : {}) };
  const note = document.invoice ? ` ${ownerNote(document.invoice)}` : '';
  const credits = [...parts.map((p) => p.amountCents), ...(total > applied ? [total - applied] : [])];
  const [id] = await s.rpc.model<number[]>('account.move', 'create', [
    {
      journal: s.journals.get('MISC'),
      period: await periodOf(s, document.date),
      date: dateOf(document.date),
      description: `${marker(applicationKey(document.key, credit))}${document.contentHash}${note} (customer credit applied)`,
      lines: [
        [
          'create',
          [
            { ...side, debit: decimalOf(total), credit: decimalOf(0), description: document.description },
            ...credits.map((cents) => ({
              ...side,
              debit: decimalOf(0),
              credit: decimalOf(cents),
              description: document.description,
            })),
          ],
        ],
      ],
    },
  ]);
  await post(s, document, { model: 'account.move', id: id as number });
  return id as number;
}

/**
 * The move's debit reconciled with the credit's open lines it takes over, the move's own left apart (once:
 * nothing when it is reconciled already). A push cut short between the post and this finishes it here.
 */
async function takeOver(
  s: TrytonSession,
  moveId: number,
  credit: string,
  context: PushContext,
): Promise<void> {
  const own = await s.rpc.searchRead<LineRow & CreditLine>(
    'account.move.line',
    [['move', '=', moveId]],
    ['debit', 'credit', 'reconciliation', 'invoice_payment'],
  );
  const debit = own.find((l) => centsOf(l.debit) > 0);
  if (!debit || debit.reconciliation !== null) return;
  const mine = new Set(own.map((l) => l.id));
  const open = (await openCredit(s, credit, context)).filter((o) => !mine.has(o.line));
  if (open.reduce((sum, o) => sum + o.cents, 0) !== centsOf(debit.debit)) {
    s.options.logger?.warn(
      { move: moveId, credit },
      "credit application's debit left open: the credit's open lines no longer add up to it",
    );
    return;
  }
  await reconcileLines(s, [...open.map((o) => o.line), debit.id]);
}

/** An application move found by its marker key; null when none was made. */
async function applicationMove(s: TrytonSession, key: string): Promise<number | null> {
  const [move] = await s.rpc.searchRead<{ id: number; state: string }>(
    'account.move',
    [['description', 'like', markerLike(key)]],
    ['state'],
    1,
  );
  if (!move) return null;
  if (move.state === 'draft') await postRecords(s, 'account.move', [move.id]);
  return move.id;
}

/** Each part's credit line added to its document's invoice (once), the invoice reconciled when paid. */
async function finishApplication(
  s: TrytonSession,
  moveId: number,
  parts: DocumentApplication[],
  context: PushContext,
): Promise<void> {
  const lines = await s.rpc.searchRead<LineRow & CreditLine>(
    'account.move.line',
    [
      ['move', '=', moveId],
      ['credit', '>', 0],
    ],
    ['debit', 'credit', 'reconciliation', 'invoice_payment'],
  );
  lines.sort((a, b) => a.id - b.id);
  for (const [k, part] of parts.entries()) {
    const line = lines[k];
    if (!line || line.invoice_payment !== null || line.reconciliation !== null) continue;
    const invoice = await invoiceOf(s, part.reopens ?? part.key, context);
    if (!invoice) continue;
    const [row] = await s.rpc.model<{ state: string; amount_to_pay: unknown }[]>(
      'account.invoice',
      'read',
      [invoice.id],
      ['state', 'amount_to_pay'],
    );
    if (row?.state !== 'posted' || centsOf(row.amount_to_pay as never) < part.amountCents) {
      s.options.logger?.info(
        { move: moveId, invoice: invoice.id, state: row?.state },
        'customer credit left on the party: its invoice owes less than the part',
      );
      continue;
    }
    await s.rpc.model('account.invoice', 'write', [invoice.id], { payment_lines: [['add', [line.id]]] });
    await invoicesProcessed(s, [line.id]);
    await reconcileIfPaid(s, invoice.id);
  }
}
