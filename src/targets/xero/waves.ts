import { datedOpen } from '../closed-periods.js';
import { TargetRefusedError } from '../errors.js';
import { type Placed, PushWaves, refusalOrThrow } from '../push-waves.js';
import type { Party, PushContext, PushResult, TargetDocument } from '../target-port.js';
import { settled } from './allocations.js';
import { processor, unnamedCustomer } from './contacts.js';
import type { XeroContext } from './context.js';
import { invoiceName, planDocument } from './documents.js';
import { create } from './entity-calls.js';
import { invoicesNumbered } from './invoice-numbers.js';
import { lookUpAll, lookupOne } from './look-ups.js';
import { mayBeInParts, pushParts, splitOf } from './money-parts.js';
import { effectiveLock, pushAsCredit, pushDocument } from './push.js';
import { type Body, entitiesOf, LOOKUP_CHUNK, overpaidRefusal, type XeroEntity } from './records.js';
import { reverse } from './reversals.js';

// A backlog pushed to Xero in batches (XeroTarget.pushMany): looked up a few keys to a request, its contacts
// and invoice numbers fetched in a few calls, then created up to 50 documents a request, in waves.

/** How many documents one create request carries. */
const CREATE_CHUNK = 50;

export async function pushMany(
  ctx: XeroContext,
  given: TargetDocument[],
  context: PushContext,
): Promise<(PushResult | Error)[]> {
  const outcomes: (PushResult | Error | undefined)[] = new Array(given.length);
  try {
    // Dated out of the closed period (reversals decide for themselves).
    const lock = await effectiveLock(ctx, context);
    const documents = given.map((d) => (d.kind === 'reversal' ? d : datedOpen(d, lock)));
    // Money in parts is looked up part by part when it is placed (pushParts).
    await lookUpAll(
      ctx,
      documents.map((d) => (context.mayExist(d.key) && !mayBeInParts(d) ? d : null)),
      outcomes,
    );
    await prefetch(ctx, documents, outcomes);
    await createInWaves(ctx, documents, outcomes, context, lock);
    await settleAll(ctx, documents, outcomes, context);
  } catch (error) {
    // An outage, a throttle, a lost connection: what is not settled yet waits for the retry, in order.
    const cause = error instanceof Error ? error : new Error(String(error));
    for (let i = 0; i < outcomes.length; i++) outcomes[i] ??= cause;
  } finally {
    ctx.numbers = null;
  }
  return outcomes.map((o) => o ?? new Error('not pushed'));
}

/** The backlog's contacts and invoice numbers in a few requests, instead of one per document. */
async function prefetch(
  ctx: XeroContext,
  documents: TargetDocument[],
  outcomes: (PushResult | Error | undefined)[],
) {
  const open = documents.filter((_d, i) => !outcomes[i]);
  const parties = open.flatMap((d) => [d.customer, d.vendor].filter((p): p is Party => !!p));
  if (open.some((d) => d.kind === 'payment-fee')) parties.push(processor);
  if (open.some((d) => (d.invoice || d.kind === 'sale') && !d.customer)) parties.push(unnamedCustomer);
  if (parties.length > 0) await ctx.contacts.prefetch(parties);
  const names = [...new Set(open.filter((d) => d.kind === 'invoice').map((d) => invoiceName(d)))];
  if (names.length === 0) return;
  ctx.numbers = new Map(names.map((n) => [n, []]));
  for (let i = 0; i < names.length; i += LOOKUP_CHUNK) {
    const chunk = names.slice(i, i + LOOKUP_CHUNK);
    for (const invoice of await invoicesNumbered(ctx, chunk))
      ctx.numbers.get(String(invoice.invoiceNumber))?.push(invoice);
  }
}

/**
 * Lowered invoices' credit notes allocated to their invoices, and to a charge's invoice that takes their
 * credit, once the slice's invoices exist; payouts'
 * transfers noted with the receipts they carry, and with a receipt reversed since, in the slice's order
 * (allocations.ts).
 */
async function settleAll(
  ctx: XeroContext,
  documents: TargetDocument[],
  outcomes: (PushResult | Error | undefined)[],
  context: PushContext,
) {
  for (const [i, doc] of documents.entries()) {
    const outcome = outcomes[i];
    const after =
      doc.kind === 'invoice-adjustment' ||
      doc.kind === 'disbursement-pending' ||
      !!doc.reapplies ||
      (doc.kind === 'reversal' && !!doc.carriedBy);
    if (after && outcome && !(outcome instanceof Error)) {
      outcomes[i] = await settled(ctx, doc, outcome, context).catch((error: unknown) =>
        error instanceof Error ? error : new Error(String(error)),
      );
    }
  }
}

/** The documents of one wave, by entity, each with its index in the slice and its body. */
type Wave = Map<XeroEntity, { i: number; doc: TargetDocument; body: Body }[]>;

async function createInWaves(
  ctx: XeroContext,
  documents: TargetDocument[],
  outcomes: (PushResult | Error | undefined)[],
  context: PushContext,
  lock: string | null,
) {
  const waves = new PushWaves(outcomes, context);
  const wave: Wave = new Map();
  await waves.run(documents, {
    reverse: (doc) => reverse(ctx, doc, waves.context, lock),
    create: () => createWave(ctx, wave, waves, context),
    place: (doc, i) => placeInWave(ctx, wave, waves, doc, i),
    afterRound: (deferred, round) => {
      if (deferred.length === round.length) {
        // Nothing moved (cannot happen unless a document waits on itself): refuse rather than loop.
        for (const i of deferred)
          outcomes[i] = new TargetRefusedError(ctx.name, `${documents[i]?.key} waits on itself`);
        return 'stop';
      }
      // Numbers looked up before this wave may be taken by it now.
      ctx.numbers = null;
      return undefined;
    },
  });
}

/** The wave's documents created, up to 50 a request per entity (bank transfers one by one), and settled. */
async function createWave(ctx: XeroContext, wave: Wave, waves: PushWaves, context: PushContext) {
  for (const [entity, items] of wave) {
    const size = entity === 'BankTransfer' ? 1 : CREATE_CHUNK;
    for (let start = 0; start < items.length; start += size) {
      const chunk = items.slice(start, start + size);
      const answers = await create(ctx, entity, chunk, context);
      for (const [j, item] of chunk.entries()) {
        let answer = answers[j] as PushResult | Error;
        if (entity === 'Payment' && overpaidRefusal(item.doc, answer))
          answer = await refusalOrThrow(() => pushAsCredit(ctx, item.doc, waves.context));
        waves.settle(item.i, item.doc.key, answer);
      }
    }
  }
  wave.clear();
  waves.created();
}

/** A document planned into the wave, settled at once (found, money in parts), or deferred to the next. */
async function placeInWave(
  ctx: XeroContext,
  wave: Wave,
  waves: PushWaves,
  doc: TargetDocument,
  i: number,
): Promise<Placed> {
  const parts = await splitOf(ctx, doc, waves.context);
  if (parts) return refusalOrThrow(() => pushParts(ctx, doc, parts, waves.context));
  const plan = await planDocument(ctx, doc, waves.context);
  if ('found' in plan) return plan.found;
  const sameNumber =
    plan.entity === 'Invoice' &&
    plan.body.invoiceNumber !== undefined &&
    (wave.get('Invoice') ?? []).some(
      (w) => w.body.invoiceNumber === plan.body.invoiceNumber && w.body.type === plan.body.type,
    );
  if (sameNumber) {
    // Two links of one name: the second is numbered once the first exists.
    return 'deferred';
  }
  if (
    plan.entity !== entitiesOf(doc.key)[0] &&
    waves.context.mayExist(doc.key) &&
    (await lookupOne(ctx, plan.entity, doc))
  )
    return refusalOrThrow(() => pushDocument(ctx, doc, waves.context));
  wave.set(plan.entity, [...(wave.get(plan.entity) ?? []), { i, doc, body: plan.body }]);
  waves.queue(doc.key);
  return 'queued';
}
