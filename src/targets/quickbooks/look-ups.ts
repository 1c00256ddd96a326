import { baseKey, isReversalKey, keyPrefix, keyVersion } from '../../ledger/entry-key.js';
import type { PushContext, RemoteRecord, TargetDocument } from '../target-port.js';
import { billNumber, billPaymentNumber, invoiceNumber } from './documents.js';
import { byDate, entityOf, isVoided, parseRemoteId, reversingEntity, rowOf, voidable } from './helpers.js';
import { type BatchItem, type Filter, PAGE_SIZE, type QboEntity, selectQuery } from './http-client.js';
import { docNumberTag, markersIn } from './keys.js';
import type { QuickBooksSession } from './session.js';

// Finding a key at QBO (find, and the look-ups before a create): the push's index and what this adapter
// remembered first, then a query narrowed by filterable properties, the marker read back client-side.

/** find(), narrowed by what a document says of the record (its number, its date) when there is one. */
export async function locate(
  s: QuickBooksSession,
  key: string,
  hint?: TargetDocument,
): Promise<RemoteRecord | null> {
  const known = s.known.get(key);
  if (known) return known;
  if (isReversalKey(key)) {
    const original = key.slice('reversal:'.length);
    const entity = entityOf(original);
    if (voidable.has(entity)) {
      const record = await lookup(s, entity, original);
      const mark = record && markersIn(record.PrivateNote).find((m) => m.key === key);
      // Marked and voided: a reversal's marker on an original not voided is a void still to make (or
      // refused: the reversal is then a document of its own, below).
      if (record && mark && isVoided(record))
        return { key, remoteIds: [`void:${entity}:${record.Id}`], contentHash: mark.contentHash };
    }
    // Reversed after close: the charge invoice (a payment's) or bill (a bill payment's) of its own.
    const reversing = reversingEntity[entity];
    if (reversing) {
      const found = await findIn(s, reversing, key);
      if (found) return found;
    }
  }
  const entity = entityOf(key);
  return (
    (await findIn(s, entity, key, hint)) ??
    // A raised link's adjustment is a charge invoice (a lowered one's the credit memo).
    (keyPrefix(baseKey(key)) === 'invoice-adjustment' ? await findIn(s, 'Invoice', key, hint) : null) ??
    (entity === 'JournalEntry' ? null : findIn(s, 'JournalEntry', key))
  );
}

export async function findIn(
  s: QuickBooksSession,
  entity: string,
  key: string,
  hint?: TargetDocument,
): Promise<RemoteRecord | null> {
  const record = await lookup(s, entity, key, hint);
  const mark = record && markersIn(record.PrivateNote).find((m) => m.key === key);
  if (!record || !mark) return null;
  const found = { key, remoteIds: [`${entity}:${record.Id}`], contentHash: mark.contentHash };
  s.known.set(key, found);
  return found;
}

/**
 * The filter that narrows `entity`'s rows to the few that may carry this key (filterable properties only),
 * from the document when there is one; null when only a scan can tell (an invoice, a bill, a payment or a
 * deposit known by its key alone).
 */
export function filterFor(entity: string, key: string, hint?: TargetDocument): Filter | null {
  const kind = keyPrefix(baseKey(key));
  const doc = hint?.key === key ? hint : undefined;
  // A reversal's own document (a charge invoice or bill after close) is numbered with its key's tag.
  if (isReversalKey(key)) return { DocNumber: docNumberTag(key) };
  if (entity === 'Invoice' && kind === 'invoice') {
    if (!doc) return null;
    const name = invoiceName(doc);
    return { DocNumber: [invoiceNumber(name), distinctNumber(doc, name)] };
  }
  if (entity === 'Bill') return doc ? { DocNumber: billNumber(doc) } : null;
  // A bill payment by check is numbered with the check's number, an older one or one
  // without a check number with the key's tag: both asked; with the key alone, the tag then a scan (lookup).
  if (entity === 'BillPayment') {
    if (!doc) return null;
    const number = billPaymentNumber(doc);
    const tag = docNumberTag(key);
    return { DocNumber: number === tag ? tag : [number, tag] };
  }
  if (byDate.has(entity)) return doc ? { TxnDate: doc.date } : null;
  return { DocNumber: docNumberTag(key) };
}

/** The record of `entity` carrying this key's marker: through its filter, else the rows newest first. */
export async function lookup(
  s: QuickBooksSession,
  entity: string,
  key: string,
  hint?: TargetDocument,
): Promise<QboEntity | null> {
  // A document dated out of a closed period may have been created on its own date before the books closed.
  const own = s.ownDates.get(key);
  if (own && hint?.key === key && byDate.has(entity) && own !== hint.date) {
    const found = await lookup(s, entity, key, { ...hint, date: own });
    if (found) return found;
  }
  const filter = filterFor(entity, key, hint);
  if (!filter && entity === 'BillPayment') {
    // With the key alone: its tag first (a bill payment without a check number, or pushed before them),
    // then the scan, for one numbered with its check.
    const tagged = await s.client.select(entity, { DocNumber: docNumberTag(key) });
    const found = rowOf(tagged, key);
    if (found) return found;
  }
  const rows = await s.client.selectPages(
    entity,
    filter ?? {},
    filter ? undefined : 'MetaData.CreateTime DESC',
    (read) => rowOf(read, key) !== null,
  );
  return rowOf(rows, key);
}

/** lookup()'s first page, for a batch; null for a document only a scan finds (then looked up alone). */
export function lookupQuery(s: QuickBooksSession, entity: string, doc: TargetDocument): BatchItem | null {
  if (byDate.has(entity) && s.ownDates.has(doc.key)) return null;
  const filter = filterFor(entity, doc.key, doc);
  return filter ? { entity, query: selectQuery(entity, filter, { max: PAGE_SIZE }) } : null;
}

/**
 * The remote record of an earlier document: the push's index first, QBO itself otherwise, narrowed by
 * what `doc` (the later document) says of it: a payment names its invoice's number, a bill payment its
 * bill's.
 */
export async function earlier(
  s: QuickBooksSession,
  key: string,
  context: PushContext,
  doc?: TargetDocument,
): Promise<{ entity: string; id: string } | null> {
  // Only a number carries over (a payment names its invoice's): the later document's date is its own.
  const numbered = ['Invoice', 'Bill'].includes(entityOf(key));
  const hint: TargetDocument | undefined = doc && numbered ? { ...doc, key } : undefined;
  const record = context.pushed(key) ?? (await locate(s, key, hint));
  return parseRemoteId(record?.remoteIds[0]);
}

/** The name an invoice is numbered by: the link's name (`#<version>` once booked again) or the key's tag. */
export function invoiceName(doc: TargetDocument): string {
  const name = doc.invoice?.number ?? docNumberTag(doc.key);
  const version = keyVersion(doc.key);
  return version > 1 ? `${name}#${version}` : name;
}

/** An invoice's number when its name is taken by booksync's invoice for another link. */
export function distinctNumber(doc: TargetDocument, name: string): string {
  return `${name.slice(0, 16)}-${docNumberTag(doc.key).slice(-4)}`;
}
