import { isReversalKey } from '../../ledger/entry-key.js';
import { amountToCents } from '../decimal-amounts.js';
import { spreadInOrder } from '../spread-in-order.js';
import type { PushContext, TargetDocument } from '../target-port.js';
import type { XeroContext } from './context.js';
import { read } from './entity-calls.js';
import { earlierRecord, partsAt } from './look-ups.js';
import type { PaymentPart } from './payment-parts.js';
import { parseRemoteId } from './records.js';

// Money the ledger applies to what a reversal made owed again, where Xero holds that as several invoices: a
// payment of a link's invoice and its memo, reversed after close, is an ACCREC invoice per document it had
// paid (reversals.ts, reversePartsAfterClose), while the ledger sees one document, the reversal. The
// application is spread over those invoices in their order (the link's invoice first, then its memos), each
// taking what it owed before this money, the last one the rest (beyond it, the customer's credit, as for any
// invoice: money-parts.ts, fitted). Xero's invoices then owe together what the service says is owed.

/**
 * The Xero invoices of a ledger document, in their order: the one it is, or for a reversal in parts each
 * invoice it made owed again; none when it is no invoice.
 */
export async function invoicesOfKey(ctx: XeroContext, key: string, context: PushContext): Promise<string[]> {
  const record = await earlierRecord(ctx, key, context);
  const records = (record?.remoteIds ?? []).map((remoteId) => parseRemoteId(remoteId));
  // Only a reversal's record lists several invoices (its parts); any other document is its first record.
  const considered = isReversalKey(key) ? records : records.slice(0, 1);
  return considered.flatMap((r) => (r?.entity === 'Invoice' ? [r.id] : []));
}

/**
 * What an invoice owed before this document's money: its AmountDue, plus what a part this document made on
 * an earlier attempt (a crash between parts) already paid it, so a retry spreads the money as the first
 * attempt did.
 */
async function owedBefore(
  ctx: XeroContext,
  invoiceId: string,
  madePayment: string | undefined,
): Promise<number> {
  const invoice = await read(ctx, 'Invoice', invoiceId);
  const due =
    invoice && ['AUTHORISED', 'PAID'].includes(String(invoice.status))
      ? amountToCents(Number(invoice.amountDue ?? 0))
      : 0;
  const made = parseRemoteId(madePayment);
  if (made?.entity !== 'Payment') return due;
  const payment = await read(ctx, 'Payment', made.id);
  return due + amountToCents(Number(payment?.amount ?? 0));
}

/**
 * `parts` with each part that settles a reversal Xero made as several invoices spread over them (tags
 * `<reversal key>#<n>`, the invoice named); every other part as it is.
 */
export async function spreadOverOwedAgain(
  ctx: XeroContext,
  doc: TargetDocument,
  parts: PaymentPart[],
  context: PushContext,
): Promise<PaymentPart[]> {
  const spread: PaymentPart[] = [];
  let made: Map<string, string> | null = null;
  for (const part of parts) {
    const invoices =
      part.settles && isReversalKey(part.settles) ? await invoicesOfKey(ctx, part.settles, context) : [];
    if (invoices.length < 2) {
      spread.push(part);
      continue;
    }
    made ??= context.mayExist(doc.key)
      ? new Map(
          (await partsAt(ctx, doc.key)).flatMap((p) => (p.tag && !p.deleted ? [[p.tag, p.remoteId]] : [])),
        )
      : new Map<string, string>();
    const shares = await spreadInOrder([...invoices.entries()], part.cents, ([i, invoiceId]) =>
      owedBefore(ctx, invoiceId, made?.get(`${part.tag}#${i + 1}`)),
    );
    for (const { item, cents } of shares)
      spread.push({ tag: `${part.tag}#${item[0] + 1}`, settles: part.settles, invoiceId: item[1], cents });
  }
  return spread;
}
