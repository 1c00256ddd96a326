import type { AccountRole } from '../account-mapping.js';
import { datedOpen } from '../closed-periods.js';
import { dueDateOf } from '../documents.js';
import { TargetConflictError, TargetRefusedError } from '../errors.js';
import type { PushContext, PushResult, TargetDocument } from '../target-port.js';
import {
  billTag,
  type CreditLine,
  described,
  type InvoiceRow,
  type LineRow,
  linkTag,
  lowersInvoice,
  marker,
  type OriginalInvoice,
  type OriginalInvoiceLine,
  unnamedCustomer,
} from './helpers.js';
import { centsOf, dateOf, decimalOf, type TrytonDecimal } from './json-rpc.js';
import { addressOf, partyOf } from './parties.js';
import { issueDate, post, redate } from './posting.js';
import { invoiceSettled, reconcileIfPaid } from './reconciliation.js';
import { findByKey, findRecord } from './records.js';
import type { TrytonSession } from './session.js';

// Documents Tryton holds as invoices: a customer invoice (invoice, adjustment, debit memo, reopened amount)
// or a supplier invoice (bill), a lowering's credit note applied to the link's invoice, and an invoice's
// reversal as Tryton's Credit action makes it.

export async function pushInvoice(
  s: TrytonSession,
  document: TargetDocument,
  type: 'out' | 'in',
  accounts: Map<AccountRole, number>,
  context: PushContext,
): Promise<PushResult> {
  const planned = await planInvoice(s, document, type, accounts);
  if (!('values' in planned)) return planned;
  const [id] = await s.rpc.model<number[]>('account.invoice', 'create', [planned.values]);
  await post(s, document, { model: 'account.invoice', id: id as number });
  if (lowersInvoice(document)) await applyCredit(s, id as number, document, context);
  const [posted] = await s.rpc.model<InvoiceRow[]>('account.invoice', 'read', [id], ['move']);
  return invoiceResult(document, id as number, posted?.move ?? null);
}

/** What the port reports for a posted invoice: the invoice, then its move. */
export function invoiceResult(document: TargetDocument, id: number, move: number | null): PushResult {
  return {
    key: document.key,
    remoteIds: [`account.invoice,${id}`, ...(move ? [`account.move,${move}`] : [])],
    contentHash: document.contentHash,
    created: true,
  };
}

/**
 * What a document's invoice will be: its values for account.invoice's create (party and address found or
 * created, issued on posting.ts issueDate), or, under match-existing, the invoice the business keyed in,
 * adopted.
 */
export async function planInvoice(
  s: TrytonSession,
  document: TargetDocument,
  type: 'out' | 'in',
  accounts: Map<AccountRole, number>,
  /** Parties' addresses already read (a slice's): read once per party and slice. */
  addresses?: Map<number, number>,
): Promise<{ values: Record<string, unknown> } | PushResult> {
  const counterparty = type === 'out' ? (document.customer ?? unnamedCustomer) : document.vendor;
  if (!counterparty)
    throw new TargetRefusedError(s.name, `${document.key}: a supplier invoice needs a vendor`);
  const partyRole: AccountRole = type === 'out' ? 'AccountsReceivable' : 'AccountsPayable';
  const line = document.lines.find((l) => l.role !== partyRole);
  const partyLine = document.lines.find((l) => l.role === partyRole);
  if (!line || !partyLine)
    throw new TargetRefusedError(s.name, `${document.key}: not an invoice-shaped entry`);
  // The invoice's total is what the party owes: receivable debit (out) or payable credit (in).
  const total = type === 'out' ? partyLine.amountCents : -partyLine.amountCents;
  const party = await partyOf(s, counterparty);
  const address = addresses?.get(party) ?? (await addressOf(s, party));
  addresses?.set(party, address);
  const number = type === 'out' ? document.invoice?.number : (document.bill?.number ?? undefined);
  const tag =
    type === 'out' ? linkTag(document.invoice?.paymentLinkId ?? '') : billTag(document.bill?.billId ?? '');

  if (document.kind === 'invoice' && s.options.matching === 'match-existing' && number) {
    const adopted = await adoptInvoice(s, document, type, party, number, tag);
    if (adopted) return adopted;
  }
  const values = {
    type,
    party,
    invoice_address: address,
    account: accounts.get(partyRole),
    journal: s.journals.get(type === 'out' ? 'REV' : 'EXP'),
    payment_term: s.paymentTerm,
    // Tryton numbers customer invoices in issue-date order: issued on the latest of its own date, today
    // and the last issue date in Tryton (posting.ts issueDate); its accounting date is the entry's.
    invoice_date: dateOf(type === 'out' ? await issueDate(s, document.date) : document.date),
    accounting_date: dateOf(document.date),
    // Due as the service says (the link's or bill's dueDate): the payment term counts from this day.
    // Without one, Tryton's own (the invoice date).
    ...(dueDateOf(document) !== document.date ? { payment_term_date: dateOf(dueDateOf(document)) } : {}),
    ...(number ? { reference: number } : {}),
    description: described(document),
    comment: tag,
    lines: [
      [
        'create',
        [
          {
            type: 'line',
            account: accounts.get(line.role),
            quantity: 1,
            unit_price: decimalOf(total),
            description: document.description,
          },
        ],
      ],
    ],
  };
  return { values };
}

/** match-existing: an invoice the business already keyed in (same number and party) becomes this one. */
async function adoptInvoice(
  s: TrytonSession,
  document: TargetDocument,
  type: 'out' | 'in',
  party: number,
  number: string,
  tag: string,
): Promise<PushResult | null> {
  const candidates = await s.rpc.searchRead<InvoiceRow>(
    'account.invoice',
    [
      ['type', '=', type],
      ['reference', '=', number],
      ['party', '=', party],
      ['state', 'in', ['posted', 'paid']],
      ['description', 'not like', 'booksync:%'],
    ],
    ['move'],
    5,
  );
  if (candidates.length === 0) return null;
  if (candidates.length > 1) {
    throw new TargetRefusedError(
      s.name,
      `invoice number ${number} matches ${candidates.length} Tryton invoices (ids ${candidates.map((c) => c.id).join(', ')})`,
    );
  }
  const invoice = candidates[0] as InvoiceRow;
  await s.rpc.model('account.invoice', 'write', [invoice.id], {
    description: `${marker(document.key)}${document.contentHash}`,
    comment: tag,
  });
  s.options.logger?.info(
    { entryKey: document.key, invoice: invoice.id },
    'matched an existing Tryton invoice',
  );
  return {
    key: document.key,
    remoteIds: [`account.invoice,${invoice.id}`, ...(invoice.move ? [`account.move,${invoice.move}`] : [])],
    contentHash: document.contentHash,
    created: true,
  };
}

/**
 * The reversal of an invoice (a debit memo voided, a lowering or a refund's reopening undone, a bill taken
 * back). Tryton corrects a posted invoice with a credit note, never by cancelling its move (the invoice's
 * "Credit" action, README "Tryton: reversals after close"): an invoice of the same type whose lines are
 * the original's with their quantity negated, each line's origin the line it credits. It is dated as any
 * document (in the open period), posted, and applied to the invoice it credits as one of that invoice's
 * payment lines when the invoice still owes at least as much, so Tryton's amount to pay is the service's
 * remainder; otherwise it stays a credit on the party. The original is never touched. Reversing a credit
 * note (a lowering undone) gives an invoice: the customer owes that amount again.
 */
export async function creditInvoice(
  s: TrytonSession,
  given: TargetDocument,
  lock: string | null,
  context: PushContext,
): Promise<PushResult> {
  const document = datedOpen(given, lock);
  const original = given.reverses ? await findByKey(s, given.reverses) : null;
  const ref = original?.remoteIds.find((r) => r.startsWith('account.invoice,'));
  if (!ref) {
    throw new TargetRefusedError(s.name, `${given.key}: ${given.reverses} is not in Tryton to reverse`);
  }
  const originalId = Number(ref.split(',')[1]);
  const existing = context.mayExist(given.key) ? await findRecord(s, given.key) : null;
  let id: number;
  let created = true;
  if (existing) {
    if (existing.contentHash !== given.contentHash) {
      throw new TargetConflictError(s.name, given.key, existing.contentHash, given.contentHash);
    }
    id = Number(existing.remoteIds[0]?.split(',')[1]);
    created = existing.draft !== null;
    // Created, then refused at posting or cut short: post it now (dated after a lock read since).
    if (existing.draft) {
      await redate(s, existing.draft, document);
      await post(s, document, existing.draft);
    }
  } else {
    id = await createCredit(s, document, originalId);
    await post(s, document, { model: 'account.invoice', id });
  }
  const [held] = await s.rpc.model<{ total_amount: TrytonDecimal }[]>(
    'account.invoice',
    'read',
    [originalId],
    ['total_amount'],
  );
  // A credit note for an invoice is applied to it; an invoice that takes back a credit note stands alone.
  if (held && centsOf(held.total_amount) > 0) await applyCreditTo(s, id, originalId);
  const [posted] = await s.rpc.model<InvoiceRow[]>('account.invoice', 'read', [id], ['move']);
  return {
    key: given.key,
    remoteIds: [`account.invoice,${id}`, ...(posted?.move ? [`account.move,${posted.move}`] : [])],
    contentHash: given.contentHash,
    created,
  };
}

/** A draft credit note of the original invoice, as Tryton's Credit action makes it; its id. */
async function createCredit(s: TrytonSession, document: TargetDocument, originalId: number): Promise<number> {
  const [held] = await s.rpc.model<OriginalInvoice[]>(
    'account.invoice',
    'read',
    [originalId],
    [
      'type',
      'party',
      'invoice_address',
      'account',
      'journal',
      'payment_term',
      'reference',
      'comment',
      'lines',
    ],
  );
  if (!held) throw new TargetRefusedError(s.name, `${document.key}: invoice ${originalId} is gone`);
  const lines = await s.rpc.model<OriginalInvoiceLine[]>('account.invoice.line', 'read', held.lines, [
    'type',
    'account',
    'quantity',
    'unit_price',
  ]);
  const [id] = await s.rpc.model<number[]>('account.invoice', 'create', [
    {
      type: held.type,
      party: held.party,
      invoice_address: held.invoice_address,
      account: held.account,
      journal: held.journal,
      payment_term: held.payment_term,
      // Issued as pushInvoice issues a customer invoice: today in Tryton, or its own date when later.
      invoice_date: dateOf(held.type === 'out' ? await issueDate(s, document.date) : document.date),
      accounting_date: dateOf(document.date),
      ...(held.reference ? { reference: held.reference } : {}),
      description: described(document),
      // The link's or bill's tag, so the credit is found under it as the original is.
      ...(held.comment ? { comment: held.comment } : {}),
      lines: [
        [
          'create',
          lines
            .filter((l) => l.type === 'line')
            .map((l) => ({
              type: 'line',
              account: l.account,
              quantity: -l.quantity,
              unit_price: l.unit_price,
              description: document.description,
              origin: `account.invoice.line,${l.id}`,
            })),
        ],
      ],
    },
  ]);
  return id as number;
}

/** A lowering's credit note, applied to the link's own invoice (found through the index, as money is). */
export async function applyCredit(
  s: TrytonSession,
  creditId: number,
  document: TargetDocument,
  context: PushContext,
): Promise<void> {
  const own = await invoiceSettled(s, document, context);
  if (own && own.id !== creditId) await applyCreditTo(s, creditId, own.id);
}

/**
 * Applies a posted credit note to an invoice as Tryton pays an invoice with one: the credit note's line to
 * pay added to the invoice's payment lines (its amount to pay drops by the credit), and the whole
 * reconciled once nothing is left to pay. Only when the invoice is posted and owes at least the credit
 * (Tryton refuses payment lines above the invoice's amount); otherwise the credit stays on the party, as
 * at the service where the money exceeds what is owed. Idempotent: a credit applied or reconciled is left.
 */
async function applyCreditTo(s: TrytonSession, creditId: number, invoiceId: number): Promise<void> {
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
