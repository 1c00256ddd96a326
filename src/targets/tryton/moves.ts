import { isReversalKey } from '../../ledger/entry-key.js';
import type { AccountRole } from '../account-mapping.js';
import { TargetRefusedError } from '../errors.js';
import type { PushContext, PushResult, TargetDocument } from '../target-port.js';
import { described, type InvoiceRow, lineDescription, receivableRoles, unnamedCustomer } from './helpers.js';
import { centsOf, dateOf, decimalOf, type TrytonDecimal } from './json-rpc.js';
import { spreadOverOwedAgain } from './owed-again.js';
import { partyOf } from './parties.js';
import { periodOf, post } from './posting.js';
import {
  invoiceSettled,
  reconcilePaid,
  type SliceInvoices,
  settledInvoiceFields,
  unreconcileInvoice,
} from './reconciliation.js';
import { findByKey } from './records.js';
import type { TrytonSession } from './session.js';

// Documents Tryton holds as moves (journal MISC): money received or paid, fees, payouts... Receivable and
// payable lines carry the party and are the payment lines of the invoices the money settles; a payout's
// clearing line is one line per receipt it carries.

/** A document that is no invoice, as a posted move; the invoices its money pays in full reconciled. */
export async function pushMove(
  s: TrytonSession,
  document: TargetDocument,
  accounts: Map<AccountRole, number>,
  context: PushContext,
): Promise<PushResult> {
  const planned = await planMove(s, document, accounts, context);
  const [id] = await s.rpc.model<number[]>('account.move', 'create', [planned.values]);
  await post(s, document, { model: 'account.move', id: id as number });
  await reconcilePaid(s, planned.paysOff);
  return {
    key: document.key,
    remoteIds: [`account.move,${id}`],
    contentHash: document.contentHash,
    created: true,
  };
}

/** A move as Tryton's create takes it, and the invoices whose payment lines it adds (to reconcile once posted). */
export interface PlannedMove {
  values: Record<string, unknown>;
  /** Every invoice it adds payment lines to. */
  pays: number[];
  /** Those it may pay off by itself: once it is posted, each with nothing left to pay (read then) is reconciled. */
  paysOff: number[];
}

/**
 * What a document's move will be: its values for account.move's create, everything it names (party,
 * period, the invoices it pays, a payout's receipts) looked up; a paid invoice it pays more of unreconciled.
 */
export async function planMove(
  s: TrytonSession,
  document: TargetDocument,
  accounts: Map<AccountRole, number>,
  context: PushContext,
  slice?: SliceInvoices,
): Promise<PlannedMove> {
  const needsParty = document.lines.some((l) => receivableRoles.has(l.role));
  const counterparty = document.lines.some((l) => l.role === 'AccountsPayable')
    ? document.vendor
    : (document.customer ?? (document.invoice ? unnamedCustomer : undefined));
  if (needsParty && !counterparty) {
    throw new TargetRefusedError(s.name, `${document.key}: a receivable or payable line needs a party`);
  }
  const party = needsParty && counterparty ? await partyOf(s, counterparty) : undefined;
  // The invoices the money settles: its receivable / payable lines are created as their payment lines, so
  // Tryton's amount to pay moves with them (a paid invoice is unreconciled first, as a person would).
  const parts = needsParty ? await partsSettled(s, document, context, slice) : null;
  // Paid is read from Tryton's lines, not its state: with Tryton's task queue on, an invoice turns paid a
  // moment after its lines are reconciled, by the worker.
  for (const part of parts ?? []) {
    if (part.invoice && (part.invoice.state === 'paid' || centsOf(part.invoice.amount_to_pay) === 0)) {
      await unreconcileInvoice(s, part.invoice.id);
      slice?.forget([part.invoice.id]);
    }
  }
  // A payout: its clearing line is one line per receipt it carries, each naming the receipt's own line.
  const carried = await carriedReceipts(s, document, accounts, context);
  const line = (l: TargetDocument['lines'][number], cents = l.amountCents, invoice?: InvoiceRow | null) => ({
    account: accounts.get(l.role),
    debit: decimalOf(Math.max(cents, 0)),
    credit: decimalOf(Math.max(-cents, 0)),
    ...(receivableRoles.has(l.role) ? { party, ...(invoice ? { invoice_payment: invoice.id } : {}) } : {}),
    description: lineDescription(document),
  });
  const payoutLines = (l: TargetDocument['lines'][number]) => {
    const rest = l.amountCents + (carried ?? []).reduce((sum, r) => sum + r.cents, 0);
    return [
      ...(carried ?? []).map((r) => ({
        ...line(l, -r.cents),
        origin: `account.move.line,${r.line}`,
        description: `${document.description}: carries ${r.key}`,
      })),
      ...(rest !== 0
        ? [{ ...line(l, rest), description: `${document.description}: fees, refunds and returns netted` }]
        : []),
    ];
  };
  const values = {
    journal: s.journals.get('MISC'),
    period: await periodOf(s, document.date),
    date: dateOf(document.date),
    description: described(document),
    lines: [
      [
        'create',
        document.lines.flatMap((l) =>
          // Money received on a link: one receivable line per document it settles, and one for what
          // exceeds them (the customer's credit, on no invoice).
          receivableRoles.has(l.role) && parts
            ? parts.map((part) => line(l, Math.sign(l.amountCents) * part.cents, part.invoice))
            : carried && l.amountCents < 0
              ? payoutLines(l)
              : [line(l)],
        ),
      ],
    ],
  };
  // The invoices it pays. Only money that brings the amount to pay to zero can make an invoice paid: a
  // partial payment spares the look (unless another document of the same batch pays the same invoice).
  const pays = [...new Set((parts ?? []).flatMap((p) => (p.invoice ? [p.invoice.id] : [])))];
  const paysOff = (parts ?? []).flatMap(({ invoice, cents }) =>
    invoice && (invoice.state === 'paid' || Math.abs(centsOf(invoice.amount_to_pay)) <= cents)
      ? [invoice.id]
      : [],
  );
  return { values, pays, paysOff };
}

/**
 * The receipts a payout carries, as Tryton holds them: each receipt's move (the push's index, else found by
 * its key) and its line on the account the payout empties (Processor Clearing: the payment's debit there).
 * Null when the document is no payout with receipts; a receipt Tryton does not hold is left out (its money
 * stays in the payout's netted line). The payout's move then credits that account once per receipt, each
 * line's origin the receipt's line, as Tryton links a line to the line it comes from (README, "Tryton:
 * which payments a payout carries").
 */
async function carriedReceipts(
  s: TrytonSession,
  document: TargetDocument,
  accounts: Map<AccountRole, number>,
  context: PushContext,
): Promise<{ key: string; cents: number; line: number }[] | null> {
  const receipts = document.kind === 'disbursement-pending' ? (document.payout?.receipts ?? []) : [];
  const emptied = document.lines.filter((l) => l.amountCents < 0);
  if (receipts.length === 0 || emptied.length !== 1) return null;
  const account = accounts.get((emptied[0] as TargetDocument['lines'][number]).role);
  const moves = new Map<number, { key: string; cents: number }>();
  for (const receipt of receipts) {
    const record = (await context.pushed(receipt.key)) ?? (await findByKey(s, receipt.key));
    const ref = record?.remoteIds.find((r) => r.startsWith('account.move,'));
    if (ref) moves.set(Number(ref.split(',')[1]), { key: receipt.key, cents: receipt.amountCents });
  }
  if (moves.size === 0 || account === undefined) return null;
  const lines = await s.rpc.searchRead<{ id: number; move: number; debit: TrytonDecimal }>(
    'account.move.line',
    [
      ['move', 'in', [...moves.keys()]],
      ['account', '=', account],
      ['move.state', '=', 'posted'],
    ],
    ['move', 'debit'],
  );
  const carried: { key: string; cents: number; line: number }[] = [];
  for (const [move, receipt] of moves) {
    const own = lines.find((l) => l.move === move && centsOf(l.debit) === receipt.cents);
    if (own) carried.push({ ...receipt, line: own.id });
  }
  return carried.length > 0 ? carried : null;
}

/**
 * How a document's receivable (or payable) line is split over invoices: money received on a link as the
 * document's `settles` says (each document's invoice, through the index, and the unapplied rest on none);
 * anything else whole on the document's own invoice (reconciliation.ts invoiceSettled). Null when the document has no
 * receivable or payable line.
 */
async function partsSettled(
  s: TrytonSession,
  document: TargetDocument,
  context: PushContext,
  slice?: SliceInvoices,
): Promise<{ invoice: InvoiceRow | null; cents: number }[] | null> {
  const total = document.lines
    .filter((l) => receivableRoles.has(l.role))
    .reduce((sum, l) => sum + Math.abs(l.amountCents), 0);
  if (total === 0) return null;
  const settles = document.settles;
  if (!settles || document.lines.filter((l) => receivableRoles.has(l.role)).length !== 1)
    return [{ invoice: await invoiceSettled(s, document, context, slice), cents: total }];
  // The push's context knows the link's own invoice (read from the index up front); a memo's or a reopened
  // amount's invoice is looked up in Tryton by its key, as the other adapters do, else its part would stay
  // on the party and the memo open while the service says it is paid. A reversal of an earlier month's
  // money (`reopens`) owes it again on the invoice that money paid (owed-again.ts), not on a document of its own.
  // A returned payment of several invoices owes each again (owed-again.ts): its part is spread over them.
  const ids: (number | null)[] = [];
  const spread = new Map<number, { invoice: InvoiceRow; cents: number }[]>();
  for (const [i, a] of settles.applied.entries()) {
    const key = a.reopens ?? a.key;
    const record = context.pushed(key) ?? (await findByKey(s, key));
    const ref = record?.remoteIds.find((r) => r.startsWith('account.invoice,'));
    ids.push(ref ? Number(ref.split(',')[1]) : null);
    const moves =
      !ref && !a.reopens && isReversalKey(key)
        ? (record?.remoteIds ?? []).flatMap((r) =>
            r.startsWith('account.move,') ? [Number(r.split(',')[1])] : [],
          )
        : [];
    const parts = await spreadOverOwedAgain(s, moves, a.amountCents);
    if (parts) spread.set(i, parts);
  }
  const known = ids.filter((i): i is number => i !== null);
  const byId = slice
    ? await slice.read(s, known)
    : new Map(
        (known.length
          ? await s.rpc.model<InvoiceRow[]>('account.invoice', 'read', known, settledInvoiceFields)
          : []
        ).map((r) => [r.id, r]),
      );
  const parts = settles.applied.flatMap((a, i) => {
    const spreadParts = spread.get(i);
    if (spreadParts) return spreadParts;
    const row = ids[i] != null ? byId.get(ids[i] as number) : undefined;
    // An invoice Tryton does not hold as posted: that part stays on the party, as the unapplied rest.
    const invoice = row && (row.state === 'posted' || row.state === 'paid') ? row : null;
    return { invoice, cents: a.amountCents };
  });
  if (settles.unappliedCents > 0) parts.push({ invoice: null, cents: settles.unappliedCents });
  return parts;
}
