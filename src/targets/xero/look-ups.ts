import { baseKey, isReversalKey, keyPrefix, reversalKey } from '../../ledger/entry-key.js';
import { foundOrConflict } from '../already-pushed.js';
import { markersIn } from '../markers.js';
import type { PushContext, PushResult, RemoteRecord, TargetDocument } from '../target-port.js';
import type { XeroContext } from './context.js';
import { query } from './entity-calls.js';
import { numberTag } from './keys.js';
import { partIn } from './payment-parts.js';
import {
  type Body,
  deletedStatuses,
  entitiesOf,
  idOf,
  isOverpayment,
  LOOKUP_CHUNK,
  markedWith,
  markerText,
  markOf,
  numbered,
  parseRemoteId,
  salesPayments,
  type XeroEntity,
} from './records.js';

// Finding booksync's documents at Xero by the marker they carry (keys.ts, records.ts): one key, a backlog's
// keys a few to a request, the parts of money, and the documents a reversal after close made.

/** Where a reversal after close leaves its reversing documents (reversingPlans), in the order they are made. */
const reversingEntities: XeroEntity[] = [
  'Invoice',
  'CreditNote',
  'BankTransaction',
  'BankTransfer',
  'ManualJournal',
];

/**
 * A record of money at Xero: its part's tag (none when it is the only record), whether it is deleted, and for
 * a customer's credit (an overpayment) the refund that reversed it (overpayments.ts), if any.
 */
export interface MoneyPart {
  tag: string | null;
  remoteId: string;
  contentHash: string;
  deleted: boolean;
  refund?: string;
}

/** The records carrying `key`'s marker in Reference: live ones, or every one (deleted / voided too). */
export async function marked(
  ctx: XeroContext,
  entity: XeroEntity,
  key: string,
  all = false,
): Promise<Body[]> {
  const records = await query(ctx, entity, markedWith('Reference', key));
  return records.filter((r) => markOf(entity, r, key) && (all || !deletedStatuses.has(String(r.status))));
}

/**
 * The Payments and bank transactions (credit) a money document became, each with its part's tag; a credit
 * with the refund its reversal made (found in the same request as the Payments: they carry the reversal's key).
 */
export async function partsAt(ctx: XeroContext, key: string): Promise<MoneyPart[]> {
  const reversal = reversalKey(key);
  const payments = await query(
    ctx,
    'Payment',
    `${markedWith('Reference', key)} OR ${markedWith('Reference', reversal)}`,
  );
  const refunds = new Map<string, string>();
  for (const refund of payments.filter((r) => markOf('Payment', r, reversal)))
    if (!deletedStatuses.has(String(refund.status)))
      refunds.set(partIn(markerText('Payment', refund)) ?? '', `Payment:${idOf('Payment', refund)}`);
  const out: MoneyPart[] = [];
  const records = {
    Payment: payments.filter((r) => markOf('Payment', r, key)),
    BankTransaction: await marked(ctx, 'BankTransaction', key, true),
  };
  for (const entity of ['Payment', 'BankTransaction'] as const) {
    for (const record of records[entity]) {
      const tag = partIn(markerText(entity, record));
      const refund = isOverpayment(entity, record) ? refunds.get(tag ?? '') : undefined;
      out.push({
        tag,
        remoteId: `${entity}:${idOf(entity, record)}`,
        contentHash: markOf(entity, record, key)?.contentHash ?? '',
        deleted: deletedStatuses.has(String(record.status)),
        ...(refund ? { refund } : {}),
      });
    }
  }
  return out;
}

/** A part no longer standing: deleted, or (a credit) refunded. */
const reversed = (p: MoneyPart) => p.deleted || p.refund !== undefined;

export async function find(ctx: XeroContext, key: string): Promise<RemoteRecord | null> {
  const money = salesPayments.has(
    keyPrefix(baseKey(isReversalKey(key) ? key.slice('reversal:'.length) : key)),
  );
  if (isReversalKey(key)) {
    const original = key.slice('reversal:'.length);
    // Money reversed in place: every part deleted, or refunded (a credit).
    const gone = money ? (await partsAt(ctx, original)).filter(reversed) : [];
    if (gone.some((p) => p.tag || p.refund))
      return { key, remoteIds: gone.map((p) => p.refund ?? `deleted:${p.remoteId}`), contentHash: '' };
    for (const entity of entitiesOf(original)) {
      const record = (await lookup(ctx, entity, [{ key: original }])).get(original);
      if (record && deletedStatuses.has(String(record.status))) {
        // A deleted record cannot be edited: the reversal has no marker of its own (see README).
        return { key, remoteIds: [`deleted:${entity}:${idOf(entity, record)}`], contentHash: '' };
      }
    }
    // Reversed after close: the reversing documents carry the reversal's own marker.
    return reversingDocuments(ctx, key);
  }
  if (money) {
    // Money in parts: its live parts, else its deleted ones (what a reversal in place left); one record
    // alone (no part) as below: a live one first, a Payment before a bank transaction.
    const all = await partsAt(ctx, key);
    const live = all.filter((p) => !reversed(p));
    const parts = live.some((p) => p.tag) ? live : all.filter((p) => reversed(p) && p.tag);
    const alone = all.filter((p) => !p.tag);
    const of = (entity: XeroEntity) => alone.filter((p) => p.remoteId.startsWith(`${entity}:`));
    const pick = (rows: MoneyPart[]) => rows.find((p) => !reversed(p)) ?? rows[0];
    const one = pick(of('Payment')) ?? pick(of('BankTransaction'));
    const found = parts.length > 0 ? parts : one ? [one] : [];
    // Payments first, the customer's credit last, as pushed.
    if (found.length > 0)
      return { key, remoteIds: found.map((p) => p.remoteId), contentHash: found[0]?.contentHash ?? '' };
  }
  for (const entity of entitiesOf(key)) {
    const record = (await lookup(ctx, entity, [{ key }])).get(key);
    const mark = record && markOf(entity, record, key);
    if (record && mark)
      return { key, remoteIds: [`${entity}:${idOf(entity, record)}`], contentHash: mark.contentHash };
  }
  return null;
}

export async function lookupOne(
  ctx: XeroContext,
  entity: XeroEntity,
  doc: TargetDocument,
): Promise<RemoteRecord | null> {
  const record = (await lookup(ctx, entity, [{ key: doc.key, billNumber: billNumber(doc) }])).get(doc.key);
  const mark = record && markOf(entity, record, doc.key);
  return record && mark
    ? { key: doc.key, remoteIds: [`${entity}:${idOf(entity, record)}`], contentHash: mark.contentHash }
    : null;
}

/** A bill's InvoiceNumber: the vendor's number, or booksync's tag of the key. */
export function billNumber(doc: TargetDocument): string | undefined {
  return doc.kind === 'bill' ? (doc.bill?.number ?? numberTag(doc.key)) : undefined;
}

/**
 * The records carrying these keys' markers: `Reference != null && Reference.Contains("booksync key=<key> hash=")`
 * (OR'ed; the business's reference may come first, see references.ts), `Narration.StartsWith(...)` for
 * journals, each null-guarded (markedWith); bills
 * by their InvoiceNumber (a bill key alone is looked up by its tag, i.e. a bill without the vendor's
 * number), their marker read from the first line.
 */
async function lookup(
  ctx: XeroContext,
  entity: XeroEntity,
  wanted: { key: string; billNumber?: string | undefined }[],
): Promise<Map<string, Body>> {
  const found = new Map<string, Body>();
  const keep = (records: Body[]) => {
    for (const record of records)
      for (const m of markersIn(markerText(entity, record)))
        if (!found.has(m.key) || deletedStatuses.has(String(found.get(m.key)?.status)))
          found.set(m.key, record);
  };
  // A bill payment's reversal after close is an ACCPAY bill numbered with the reversal key's tag.
  const bills = wanted.filter((w) => keyPrefix(baseKey(w.key)) === 'bill' || isReversalKey(w.key));
  const others = wanted.filter((w) => keyPrefix(baseKey(w.key)) !== 'bill');
  if (entity === 'Invoice' && bills.length > 0) {
    const numbers = [...new Set(bills.map((b) => b.billNumber ?? numberTag(b.key)))];
    for (let i = 0; i < numbers.length; i += LOOKUP_CHUNK) {
      const chunk = numbers.slice(i, i + LOOKUP_CHUNK);
      keep(await query(ctx, 'Invoice', numbered('ACCPAY', chunk)));
    }
  }
  const field = entity === 'ManualJournal' ? 'Narration' : 'Reference';
  for (let i = 0; i < others.length; i += LOOKUP_CHUNK) {
    const where = others
      .slice(i, i + LOOKUP_CHUNK)
      .map((w) => markedWith(field, w.key))
      .join(' OR ');
    keep(await query(ctx, entity, where));
  }
  return found;
}

/** Looks up the documents an earlier attempt may have created (the others are null), settling those found. */
export async function lookUpAll(
  ctx: XeroContext,
  documents: (TargetDocument | null)[],
  outcomes: (PushResult | Error | undefined)[],
) {
  const byEntity = new Map<XeroEntity, number[]>();
  documents.forEach((doc, i) => {
    if (!doc || doc.kind === 'reversal') return;
    const entity = entitiesOf(doc.key)[0] as XeroEntity;
    byEntity.set(entity, [...(byEntity.get(entity) ?? []), i]);
  });
  for (const [entity, indexes] of byEntity) {
    const found = await lookup(
      ctx,
      entity,
      indexes.map((i) => {
        const doc = documents[i] as TargetDocument;
        return { key: doc.key, billNumber: billNumber(doc) };
      }),
    );
    for (const i of indexes) {
      const doc = documents[i] as TargetDocument;
      const record = found.get(doc.key);
      const mark = record && markOf(entity, record, doc.key);
      // A part of money in parts (owed-again-parts.ts) is not the whole: it is placed, its parts found then.
      if (record && mark && !partIn(markerText(entity, record))) {
        outcomes[i] = foundOrConflict(
          ctx.name,
          { key: doc.key, remoteIds: [`${entity}:${idOf(entity, record)}`], contentHash: mark.contentHash },
          doc,
        );
      }
    }
  }
}

/** The remote record of an earlier document: the push's index first, Xero itself otherwise. */
export async function earlier(
  ctx: XeroContext,
  key: string,
  context: PushContext,
): Promise<{ entity: XeroEntity; id: string } | null> {
  return parseRemoteId((await earlierRecord(ctx, key, context))?.remoteIds[0]);
}

/** An earlier document's whole record (every remoteId): the push's index first, Xero itself otherwise. */
export async function earlierRecord(
  ctx: XeroContext,
  key: string,
  context: PushContext,
): Promise<RemoteRecord | null> {
  // Awaited: the index behind the context may answer asynchronously (the ledger on PostgreSQL).
  return (await context.pushed(key)) ?? (await find(ctx, key));
}

/** The reversing documents a reversal after close made, found by its marker; null when none. */
export async function reversingDocuments(ctx: XeroContext, key: string): Promise<RemoteRecord | null> {
  const remoteIds: string[] = [];
  let contentHash = '';
  for (const entity of reversingEntities) {
    const record = (await lookup(ctx, entity, [{ key }])).get(key);
    const mark = record && markOf(entity, record, key);
    if (record && mark && !deletedStatuses.has(String(record.status))) {
      remoteIds.push(`${entity}:${idOf(entity, record)}`);
      contentHash = mark.contentHash;
      // Money in parts reversed after close: an invoice per part (reversePartsAfterClose).
      if (entity === 'Invoice' && partIn(markerText(entity, record))) {
        remoteIds.pop();
        for (const one of await marked(ctx, entity, key)) remoteIds.push(`${entity}:${idOf(entity, one)}`);
      }
    }
  }
  return remoteIds.length > 0 ? { key, remoteIds, contentHash } : null;
}
