import type { AccountRole } from '../account-mapping.js';
import { datedOpen } from '../closed-periods.js';
import { dueDateOf } from '../documents.js';
import { TargetConflictError, TargetRefusedError } from '../errors.js';
import type { PushContext, PushResult, TargetDocument } from '../target-port.js';
import {
  billTag,
  described,
  type InvoiceRow,
  linkTag,
  lowersInvoice,
  marker,
  type OriginalInvoice,
  type OriginalInvoiceLine,
  unnamedCustomer,
} from './helpers.js';
import { centsOf, dateOf, decimalOf, type TrytonDecimal } from './json-rpc.js';
import { pushLowering } from './lowerings.js';
import { addressOf, partyOf } from './parties.js';
import { issueDate, post, redate } from './posting.js';
import { applyCreditTo } from './reconciliation.js';
import { findByKey, findRecord } from './records.js';
import type { TrytonSession } from './session.js';

// Documents Tryton holds as invoices: a customer invoice (invoice, adjustment, debit memo, reopened amount)
// or a supplier invoice (bill), a lowering's credit notes (lowerings.ts), and an invoice's reversal as
// Tryton's Credit action makes it.

export async function pushInvoice(
  s: TrytonSession,
  document: TargetDocument,
  type: 'out' | 'in',
  accounts: Map<AccountRole, number>,
  context: PushContext,
): Promise<PushResult> {
  const planned = await planInvoice(s, document, type, accounts);
  if (!('values' in planned)) return planned;
  if (lowersInvoice(document)) return pushLowering(s, document, planned.values, context);
  const [id] = await s.rpc.model<number[]>('account.invoice', 'create', [planned.values]);
  await post(s, document, { model: 'account.invoice', id: id as number });
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
            account: lineAccount(s, document, line.role, accounts),
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

/** An invoice line's account: the role's, or a bill's vendor's own expense account (VENDOR_EXPENSE_ACCOUNTS). */
function lineAccount(
  s: TrytonSession,
  document: TargetDocument,
  role: AccountRole,
  accounts: Map<AccountRole, number>,
): number | undefined {
  const vendor = document.vendor?.serviceId;
  const own = role === 'BillExpenses' && vendor !== undefined ? s.vendorExpenseIds.get(vendor) : undefined;
  return own ?? accounts.get(role);
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
  // A lowering in parts (lowerings.ts) is several credit notes: its reversal takes back all their lines.
  const originalIds = (original?.remoteIds ?? []).flatMap((r) =>
    r.startsWith('account.invoice,') ? [Number(r.split(',')[1])] : [],
  );
  const [originalId] = originalIds;
  if (originalId === undefined) {
    throw new TargetRefusedError(s.name, `${given.key}: ${given.reverses} is not in Tryton to reverse`);
  }
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
    id = await createCredit(s, document, originalIds);
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

/**
 * A draft credit note of the original invoice, as Tryton's Credit action makes it; its id. The original in
 * parts (a lowering's credit notes): one document crediting every part's lines, under the first's heading.
 */
async function createCredit(
  s: TrytonSession,
  document: TargetDocument,
  originalIds: number[],
): Promise<number> {
  const originals = await s.rpc.model<OriginalInvoice[]>('account.invoice', 'read', originalIds, [
    'type',
    'party',
    'invoice_address',
    'account',
    'journal',
    'payment_term',
    'reference',
    'comment',
    'lines',
  ]);
  const held = originals[0];
  if (!held || originals.length !== originalIds.length)
    throw new TargetRefusedError(s.name, `${document.key}: invoice ${originalIds.join(', ')} is gone`);
  const lineIds = originals.flatMap((o) => o.lines);
  const lines = await s.rpc.model<OriginalInvoiceLine[]>('account.invoice.line', 'read', lineIds, [
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
