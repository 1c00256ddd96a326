import { TargetRefusedError } from '../errors.js';
import type { PushContext, PushResult, TargetDocument } from '../target-port.js';
import { described, type InvoiceRow, markerLike } from './helpers.js';
import { decimalOf } from './json-rpc.js';
import { post, redate } from './posting.js';
import { applyCreditTo, invoiceSettled, ownInvoiceKey } from './reconciliation.js';
import { findByKey } from './records.js';
import type { TrytonSession } from './session.js';

// A lowering of a link's amount (a discount, a correction) in Tryton: a customer credit note, applied as
// the ledger's split applies the credit (TargetDocument.settles, applications.ts): the link's own invoice
// first, then its memos and reopened amounts oldest first, what none of them owes left on the party as the
// customer's credit. Tryton applies a credit note to an invoice as one of the invoice's payment lines,
// whole and never above what the invoice still owes (account_invoice 8.2, Invoice.payment_lines), so a
// credit the split spreads over several documents is one credit note per document, each applied to its
// own, and one for the customer's credit. They are made in one create call (all or none), each dated the
// lowering's day; a part's place in the split is its place in creation order (ids ascending).

/** One credit note of a lowering: the document (ledger key) it is applied to, none for the customer's credit. */
export interface CreditPart {
  key: string | null;
  cents: number;
}

/**
 * The credit notes a lowering is, as its split says; a lowering with no split (a document built by hand,
 * or by a ledger that predates splits) is one credit note for the link's own invoice.
 */
export function creditParts(document: TargetDocument): CreditPart[] {
  const credit = -document.lines
    .filter((l) => l.role === 'AccountsReceivable')
    .reduce((sum, l) => sum + l.amountCents, 0);
  const settles = document.settles;
  if (!settles) return [{ key: ownInvoiceKey(document), cents: credit }];
  const parts: CreditPart[] = settles.applied
    .filter((a) => a.amountCents > 0)
    .map((a) => ({ key: a.reopens ?? a.key, cents: a.amountCents }));
  if (settles.unappliedCents > 0) parts.push({ key: null, cents: settles.unappliedCents });
  const split = parts.reduce((sum, p) => sum + p.cents, 0);
  if (split !== credit) {
    throw new TargetRefusedError(
      'tryton',
      `${document.key}: its split applies ${split} cents of a ${credit}-cent credit; refused rather than guessed`,
    );
  }
  return parts;
}

/** An invoice's values for create (posting.ts planInvoice): one line, its total the party's side. */
type InvoiceValues = Record<string, unknown> & { lines: [[string, Record<string, unknown>[]]] };

/** The lowering's credit notes, created in one call, posted, each applied to the document its part credits. */
export async function pushLowering(
  s: TrytonSession,
  document: TargetDocument,
  planned: Record<string, unknown>,
  context: PushContext,
): Promise<PushResult> {
  const parts = creditParts(document);
  const values = planned as InvoiceValues;
  const [[verb, [line]]] = values.lines;
  const ids = await s.rpc.model<number[]>(
    'account.invoice',
    'create',
    parts.map((part, k) => ({
      ...values,
      description: partDescribed(document, k, parts.length),
      lines: [[verb, [{ ...line, unit_price: decimalOf(-part.cents) }]]],
    })),
  );
  for (const id of ids) await post(s, document, { model: 'account.invoice', id });
  await applyParts(s, document, ids, context);
  return loweringResult(s, document, ids, true);
}

/**
 * A lowering found at Tryton (an earlier attempt made it): the parts still draft posted (dated after a lock
 * read since), and each applied (nothing for one applied already). Null when Tryton holds none.
 */
export async function completeLowering(
  s: TrytonSession,
  document: TargetDocument,
  context: PushContext,
): Promise<PushResult | null> {
  const held = await s.rpc.searchRead<InvoiceRow>(
    'account.invoice',
    [['description', 'like', markerLike(document.key)]],
    ['state'],
  );
  if (held.length === 0) return null;
  held.sort((a, b) => a.id - b.id);
  const drafts = held.filter((h) => h.state === 'draft');
  for (const draft of drafts) {
    const record = { model: 'account.invoice', id: draft.id };
    await redate(s, record, document, partDescribed(document, held.indexOf(draft), held.length));
    await post(s, document, record);
  }
  const ids = held.map((h) => h.id);
  await applyParts(s, document, ids, context);
  return loweringResult(s, document, ids, drafts.length > 0);
}

/** The marker (records.ts finds the parts by it), and which part of how many when there are several. */
function partDescribed(document: TargetDocument, k: number, of: number): string {
  return of === 1 ? described(document) : `${described(document)} (part ${k + 1} of ${of})`;
}

async function applyParts(
  s: TrytonSession,
  document: TargetDocument,
  ids: number[],
  context: PushContext,
): Promise<void> {
  const parts = creditParts(document);
  // One credit note made before the split was given is applied, as then, to the link's own invoice.
  const placed = ids.length === parts.length ? parts : [{ key: ownInvoiceKey(document), cents: 0 }];
  for (const [k, part] of placed.entries()) {
    const id = ids[k];
    if (id === undefined || part.key === null) continue;
    const invoice =
      part.key === ownInvoiceKey(document)
        ? await invoiceSettled(s, document, context)
        : await invoiceOf(s, part.key, context);
    if (invoice && invoice.id !== id) await applyCreditTo(s, id, invoice.id);
  }
}

/** The Tryton invoice a document (a memo, a reopened amount) is held as: the index first, then its marker. */
export async function invoiceOf(
  s: TrytonSession,
  key: string,
  context: PushContext,
): Promise<{ id: number } | null> {
  const record = context.pushed(key) ?? (await findByKey(s, key));
  const ref = record?.remoteIds.find((r) => r.startsWith('account.invoice,'));
  return ref ? { id: Number(ref.split(',')[1]) } : null;
}

/** What the port reports: each credit note, then its move, part by part (records.ts finds them so). */
async function loweringResult(
  s: TrytonSession,
  document: TargetDocument,
  ids: number[],
  created: boolean,
): Promise<PushResult> {
  const rows = await s.rpc.model<InvoiceRow[]>('account.invoice', 'read', ids, ['move']);
  const moveOf = new Map(rows.map((r) => [r.id, r.move]));
  return {
    key: document.key,
    remoteIds: ids.flatMap((id) => {
      const move = moveOf.get(id);
      return [`account.invoice,${id}`, ...(move ? [`account.move,${move}`] : [])];
    }),
    contentHash: document.contentHash,
    created,
  };
}
