import { setTimeout as sleep } from 'node:timers/promises';
import { TargetUnavailableError } from '../errors.js';
import type { PushContext, TargetDocument } from '../target-port.js';
import { billTag, type CreditLine, type InvoiceRow, type LineRow, linkTag } from './helpers.js';
import { centsOf } from './json-rpc.js';
import type { TrytonSession } from './session.js';

// An invoice and the lines that pay it: the document's own invoice its money settles, and reconciling or
// unreconciling with Tryton's own wizards as a person would, so Tryton says paid exactly when it is.
//
// Tryton as its documentation runs it has a task queue (`[queue] worker = True`, trytond-worker beside
// trytond): a reconciliation made or removed does not change its invoices' state in the request. Tryton's
// account_invoice module (account.py, Reconciliation.on_modification) calls `Invoice.__queue__.process`
// for the invoices whose move holds a reconciled line, and ir/queue_.py runs that task inside the request
// only when no worker is configured; with one, the worker turns the invoice paid (or back to posted) after
// the request. No context key makes it synchronous (`queue_batch` only sizes the tasks,
// `queue_scheduled_at` only delays them), and the invoice's Process button is the account administrators'.
// Until the worker has run, a paid invoice whose lines were unreconciled refuses new payment lines
// (add_payment_lines: "payment lines of paid invoice cannot be added") and its amount to pay reads 0
// (get_amount_to_pay counts posted invoices only). So every reconciliation booksync makes or removes is
// followed by waiting for Tryton to show its invoices' state (invoicesProcessed); without a worker that is
// one read.

/** What a payment reads of the invoice it settles. */
export const settledInvoiceFields = ['description', 'state', 'amount_to_pay', 'move'];

/**
 * The invoices a slice's money settles, read together (batches.ts): the invoices a round's documents name,
 * in one read before the round is planned; an invoice the slice has just posted, as its post's read found
 * it. A row stands until the slice changes its invoice: a wave's moves paying it, or a document pushed
 * alone (forget, clear).
 */
export class SliceInvoices {
  readonly #rows = new Map<number, InvoiceRow>();

  /** The rows of these invoices; those not held yet are read in one call. */
  async read(s: TrytonSession, ids: readonly number[]): Promise<Map<number, InvoiceRow>> {
    const missing = [...new Set(ids)].filter((id) => !this.#rows.has(id));
    if (missing.length > 0) {
      for (const row of await s.rpc.model<InvoiceRow[]>(
        'account.invoice',
        'read',
        missing,
        settledInvoiceFields,
      ))
        this.#rows.set(row.id, row);
    }
    return new Map(ids.flatMap((id) => (this.#rows.has(id) ? [[id, this.#rows.get(id) as InvoiceRow]] : [])));
  }

  keep(row: InvoiceRow): void {
    this.#rows.set(row.id, row);
  }

  forget(ids: readonly number[]): void {
    for (const id of ids) this.#rows.delete(id);
  }

  clear(): void {
    this.#rows.clear();
  }
}

/** The key of the document's own invoice (the link's, or the bill), which its money settles. */
export function ownInvoiceKey(document: TargetDocument): string | null {
  return document.invoice
    ? `invoice:${document.invoice.paymentLinkId}`
    : document.bill
      ? `bill:${document.bill.billId}`
      : null;
}

/** The Tryton id of an invoice the index holds for `key`, if any. */
export function indexedInvoiceId(context: PushContext, key: string): number | null {
  const ref = context.pushed(key)?.remoteIds.find((r) => r.startsWith('account.invoice,'));
  return ref ? Number(ref.split(',')[1]) : null;
}

/** The document's own invoice (the link's, or the bill), which its money settles; charge invoices aside. */
export async function invoiceSettled(
  s: TrytonSession,
  document: TargetDocument,
  context: PushContext,
  slice?: SliceInvoices,
): Promise<InvoiceRow | null> {
  // The index knows the invoice booksync made for the link or bill: read by its id (Tryton's primary key),
  // not searched by comment, a column no index serves, which a business with years of invoices pays for.
  const ownKey = ownInvoiceKey(document);
  const ownId = ownKey ? indexedInvoiceId(context, ownKey) : null;
  if (ownId !== null) {
    const [own] = slice
      ? [(await slice.read(s, [ownId])).get(ownId)]
      : await s.rpc.model<InvoiceRow[]>('account.invoice', 'read', [ownId], settledInvoiceFields);
    if (own && (own.state === 'posted' || own.state === 'paid')) return own;
  }
  const tag = document.invoice
    ? linkTag(document.invoice.paymentLinkId)
    : document.bill
      ? billTag(document.bill.billId)
      : null;
  if (!tag) return null;
  const invoices = await s.rpc.searchRead<InvoiceRow>(
    'account.invoice',
    [
      ['comment', '=', tag],
      ['state', 'in', ['posted', 'paid']],
    ],
    ['description', 'state', 'amount_to_pay', 'move'],
  );
  return (
    invoices.find(
      (i) => i.description?.startsWith('booksync:invoice:') || i.description?.startsWith('booksync:bill:'),
    ) ??
    invoices[0] ??
    null
  );
}

/**
 * Unreconciles a paid invoice's lines (to pay and paying), so a new payment line can be added to it: once
 * Tryton shows it posted again (add_payment_lines refuses a paid invoice).
 */
export async function unreconcileInvoice(s: TrytonSession, invoiceId: number): Promise<void> {
  const [invoice] = await s.rpc.model<{ lines_to_pay: number[]; payment_lines: number[] }[]>(
    'account.invoice',
    'read',
    [invoiceId],
    ['lines_to_pay', 'payment_lines'],
  );
  if (!invoice) return;
  const rows = await s.rpc.model<LineRow[]>(
    'account.move.line',
    'read',
    [...invoice.lines_to_pay, ...invoice.payment_lines],
    ['reconciliation'],
  );
  await unreconcile(s, rows);
  // Also when nothing was reconciled: a reconciliation removed just before (by a person, or by another
  // process) may have left the invoice paid until Tryton's worker processes it.
  await invoicesProcessed(s, invoice.lines_to_pay);
}

/** Tryton's own Unreconcile Lines on those of the lines that are reconciled. */
export async function unreconcile(
  s: TrytonSession,
  lines: readonly Pick<LineRow, 'id' | 'reconciliation'>[],
): Promise<void> {
  const reconciled = lines.filter((l) => l.reconciliation !== null).map((l) => l.id);
  if (reconciled.length === 0) return;
  // The invoices whose state follows are those of every line of the reconciliations removed, not only of
  // these (a payment line's reconciliation holds the invoice's line to pay).
  const reconciliations = await s.rpc.model<{ lines: number[] }[]>(
    'account.move.reconciliation',
    'read',
    [...new Set(lines.flatMap((l) => (l.reconciliation !== null ? [l.reconciliation] : [])))],
    ['lines'],
  );
  await s.rpc.wizard('account.move.unreconcile_lines', 'unreconcile', {}, 'account.move.line', reconciled);
  await invoicesProcessed(s, [...reconciled, ...reconciliations.flatMap((r) => r.lines)]);
}

/** Tryton's own Reconcile Lines on lines that balance, then their invoices' state waited for. */
export async function reconcileLines(s: TrytonSession, lineIds: number[]): Promise<void> {
  await s.rpc.wizard('account.move.reconcile_lines', 'start', {}, 'account.move.line', lineIds);
  await invoicesProcessed(s, lineIds);
}

/** How long a reconciliation's invoices may take to show its state: Tryton's worker may have a backlog. */
const defaultProcessedWithinMs = 60_000;

/**
 * Waits until the invoices whose move holds one of the lines show the state their reconciliation gives
 * them (Tryton's Invoice.process: paid when every line to pay is reconciled, else posted), which Tryton's
 * worker sets after the request that reconciled (see the top of this file). Draft and cancelled invoices
 * are not processed into paid or posted. An invoice still not processed after processedWithinMs (the
 * target's option, default a minute) makes the push unavailable (retried later), naming it: Tryton's
 * worker is likely stopped.
 */
export async function invoicesProcessed(s: TrytonSession, lineIds: readonly number[]): Promise<void> {
  const ids = [...new Set(lineIds)];
  if (ids.length === 0) return;
  type Row = { id: number; state: string; reconciled: unknown };
  const fields = ['state', 'reconciled'];
  const pending = (rows: Row[]) =>
    rows.filter((r) => (r.state === 'paid' && !r.reconciled) || (r.state === 'posted' && !!r.reconciled));
  let waiting = pending(
    await s.rpc.searchRead<Row>(
      'account.invoice',
      ['OR', ['move.lines', 'in', ids], ['additional_moves.lines', 'in', ids]],
      fields,
    ),
  );
  const within = s.options.processedWithinMs ?? defaultProcessedWithinMs;
  const deadline = Date.now() + within;
  for (let pause = 20; waiting.length > 0; pause = Math.min(pause * 2, 500)) {
    if (Date.now() > deadline) {
      throw new TargetUnavailableError(
        s.name,
        `Tryton's task queue has not processed invoice${waiting.length > 1 ? 's' : ''} ${waiting.map((r) => `${r.id} (${r.state}, lines ${r.reconciled ? '' : 'not '}reconciled)`).join(', ')} within ${within / 1000} s: is trytond-worker running?`,
      );
    }
    await sleep(pause);
    waiting = pending(
      await s.rpc.model<Row[]>(
        'account.invoice',
        'read',
        waiting.map((r) => r.id),
        fields,
      ),
    );
  }
}

/** Reconciles an invoice's lines to pay with its payment lines once Tryton says nothing is left to pay. */
export async function reconcileIfPaid(s: TrytonSession, invoiceId: number): Promise<void> {
  await reconcilePaid(s, [invoiceId]);
}

/**
 * reconcileIfPaid for several invoices: their amounts to pay and their lines read in one call each, then
 * each invoice with nothing left to pay and lines still open reconciled (Tryton's wizard, one run per
 * invoice in one session: a reconciliation is one invoice's), then their state waited for once, all
 * together. Paid is read from the lines, not from the invoice's state: with Tryton's task queue on, the
 * worker turns an invoice paid a moment after its lines are reconciled.
 */
export async function reconcilePaid(s: TrytonSession, invoiceIds: readonly number[]): Promise<void> {
  const ids = [...new Set(invoiceIds)];
  if (ids.length === 0) return;
  const invoices = await s.rpc.model<(InvoiceRow & { lines_to_pay: number[]; payment_lines: number[] })[]>(
    'account.invoice',
    'read',
    ids,
    ['amount_to_pay', 'lines_to_pay', 'payment_lines', 'state'],
  );
  const owedNothing = invoices.filter((i) => i.state === 'posted' && centsOf(i.amount_to_pay) === 0);
  const lineIds = owedNothing.flatMap((i) => [...i.lines_to_pay, ...i.payment_lines]);
  if (lineIds.length === 0) return;
  const rows = await s.rpc.model<LineRow[]>('account.move.line', 'read', lineIds, ['reconciliation']);
  const reconciled = new Map(rows.map((r) => [r.id, r.reconciliation]));
  // A credit note's line is one invoice's payment line and its own line to pay: reconciled once.
  const done = new Set<number>();
  const sets: number[][] = [];
  for (const invoice of owedNothing) {
    const open = [...invoice.lines_to_pay, ...invoice.payment_lines].filter(
      (l) => reconciled.get(l) === null,
    );
    if (open.length < 2 || open.some((l) => done.has(l))) continue;
    sets.push(open);
    for (const l of open) done.add(l);
  }
  // One wizard session for them all, one run a set.
  await s.rpc.wizardEach('account.move.reconcile_lines', 'start', {}, 'account.move.line', sets);
  await invoicesProcessed(s, [...done]);
}

/** An invoice whose payment was reversed and which other lines still pay in full stays reconciled. */
export async function reconcileInvoicesPaidBy(s: TrytonSession, moveId: number): Promise<void> {
  const invoices = await s.rpc.model<number[]>(
    'account.invoice',
    'search',
    [['payment_lines.move', '=', moveId]],
    0,
    null,
    null,
  );
  for (const invoice of invoices) await reconcileIfPaid(s, invoice);
}

/**
 * Applies a posted credit note to an invoice as Tryton pays an invoice with one: the credit note's line to
 * pay added to the invoice's payment lines (its amount to pay drops by the credit), and the whole
 * reconciled once nothing is left to pay. Only when the invoice is posted and owes at least the credit
 * (Tryton refuses payment lines above the invoice's amount); otherwise the credit stays on the party, as
 * at the service where the money exceeds what is owed. Idempotent: a credit applied or reconciled is left.
 */
export async function applyCreditTo(s: TrytonSession, creditId: number, invoiceId: number): Promise<void> {
  const [credit] = await s.rpc.model<{ lines_to_pay: number[] }[]>(
    'account.invoice',
    'read',
    [creditId],
    ['lines_to_pay'],
  );
  const lines = await s.rpc.model<(LineRow & CreditLine)[]>(
    'account.move.line',
    'read',
    credit?.lines_to_pay ?? [],
    ['debit', 'credit', 'reconciliation', 'invoice_payment'],
  );
  if (lines.length === 0 || lines.some((l) => l.reconciliation !== null || l.invoice_payment !== null))
    return;
  const [invoice] = await s.rpc.model<InvoiceRow[]>(
    'account.invoice',
    'read',
    [invoiceId],
    ['state', 'amount_to_pay'],
  );
  const amount = Math.abs(lines.reduce((sum, l) => sum + centsOf(l.debit) - centsOf(l.credit), 0));
  if (invoice?.state !== 'posted' || centsOf(invoice.amount_to_pay) < amount) {
    s.options.logger?.info(
      { credit: creditId, invoice: invoiceId, state: invoice?.state },
      'credit note left on the party: its invoice owes less than the credit',
    );
    return;
  }
  await s.rpc.model('account.invoice', 'write', [invoiceId], {
    payment_lines: [['add', lines.map((l) => l.id)]],
  });
  await reconcileIfPaid(s, invoiceId);
}
