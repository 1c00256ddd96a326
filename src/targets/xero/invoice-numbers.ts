import { TargetRefusedError } from '../errors.js';
import { marker, markersIn } from '../markers.js';
import type { PushResult, TargetDocument } from '../target-port.js';
import type { XeroContext } from './context.js';
import { query } from './entity-calls.js';
import { idempotencyKey, numberTag } from './keys.js';
import { type Body, deletedStatuses, numbered } from './records.js';

// A sales invoice's number at Xero: the link's name when free, else made distinct or the invoice holding it
// adopted (README, "Decisions": invoice numbers).

/** Xero refuses to edit an invoice with a payment or credit note applied, even its Reference. */
const PAYMENT_APPLIED = /payment or credit note allocated/i;

/** An invoice Xero will not let booksync edit: something paid or credited on it. */
function paidOn(invoice: Body): boolean {
  return (
    Number(invoice.amountPaid ?? 0) > 0 ||
    Number(invoice.amountCredited ?? 0) > 0 ||
    (invoice.payments?.length ?? 0) > 0 ||
    String(invoice.status) === 'PAID'
  );
}

export function invoicesNumbered(ctx: XeroContext, numbers: string[]): Promise<Body[]> {
  return query(ctx, 'Invoice', numbered('ACCREC', numbers));
}

/**
 * The invoice's number: the link's name when free. Taken by an invoice booksync made for another link (a
 * name used again, e.g. each demo day's INV-1001): the name with 4 characters of this key's tag. Taken by
 * an invoice keyed in Xero: adopted under 'match-existing' (the marker written to its Reference), refused
 * under 'create'.
 */
export async function numberInvoice(
  ctx: XeroContext,
  doc: TargetDocument,
  name: string,
): Promise<{ number: string } | { found: PushResult }> {
  const live = (rows: Body[]) =>
    rows.filter((r) => !deletedStatuses.has(String(r.status)) || markersIn(r.reference).length > 0);
  const holders = live(ctx.numbers?.get(name) ?? (await invoicesNumbered(ctx, [name])));
  const [existing] = holders;
  if (!existing) return { number: name };
  if (holders.some((h) => markersIn(h.reference).length > 0)) {
    const distinct = `${name}-${numberTag(doc.key).slice(-4)}`;
    const [taken] = await invoicesNumbered(ctx, [distinct]);
    if (!taken) return { number: distinct };
    throw new TargetRefusedError(
      ctx.name,
      `invoice numbers ${name} and ${distinct} are both taken in Xero (InvoiceIDs ${existing.invoiceID}, ${taken.invoiceID})`,
    );
  }
  if (ctx.matching !== 'match-existing') {
    throw new TargetRefusedError(
      ctx.name,
      `invoice number ${name} already exists in Xero (InvoiceID ${existing.invoiceID}); matching policy 'create' does not adopt it`,
    );
  }
  const id = String(existing.invoiceID);
  const adopted = {
    found: { key: doc.key, remoteIds: [`Invoice:${id}`], contentHash: doc.contentHash, created: false },
  };
  // Xero refuses any edit of an invoice with a payment applied, its Reference included ("This document cannot
  // be edited as it has a payment or credit note allocated to it.", XeroAPI/Xero-NetStandard#84): such an
  // invoice is adopted as it is, without the marker; the push index keeps the adoption, and a push again
  // adopts it again by its number.
  if (paidOn(existing)) {
    ctx.logger?.info({ key: doc.key, id }, 'adopted a paid xero invoice without its marker');
    return adopted;
  }
  const update = { reference: marker(doc.key, doc.contentHash) };
  try {
    await ctx.client.call('updateInvoice', (api, t) =>
      api.updateInvoice(
        t,
        id,
        { invoices: [update] },
        undefined,
        idempotencyKey(t, doc.key, 'adopt', update),
      ),
    );
  } catch (error) {
    // Paid between the look-up and the edit.
    if (!(error instanceof TargetRefusedError && PAYMENT_APPLIED.test(error.targetMessage))) throw error;
  }
  return adopted;
}
