import type { AccountRole } from '../account-mapping.js';
import { datedOpen } from '../closed-periods.js';
import { isTargetRefusal } from '../errors.js';
import { PushWaves, refusalOrThrow, WaitForWave } from '../push-waves.js';
import type { PushContext, PushResult, TargetDocument } from '../target-port.js';
import {
  closedPeriodRefusal,
  type InvoiceRow,
  lowersInvoice,
  numberedBefore,
  writesOffInvoice,
} from './helpers.js';
import { invoiceResult, planInvoice } from './invoices.js';
import { planMove } from './moves.js';
import { openingSideOf, settlesOpeningPayable } from './opening-payables.js';
import { planOpeningMove, settlesOpeningReceivable } from './opening-receivables.js';
import { postRecords } from './posting.js';
import {
  indexedInvoiceId,
  ownInvoiceKey,
  reconcilePaid,
  SliceInvoices,
  settledInvoiceFields,
} from './reconciliation.js';
import type { TrytonSession } from './session.js';

// pushMany's steps: a slice's documents planned one by one (what they name looked up), then created in
// waves: the wave's invoices (customer and supplier) in one account.invoice create and one post, its moves
// in one account.move create and one post, the invoices its money pays off reconciled. Tryton runs each
// call in one transaction, all or nothing: a refused call is split (halves, then one by one) until the
// refused document is alone, which fails with Tryton's message while the rest is pushed. A document that
// may be at Tryton already (an earlier attempt marked it), a reversal, a credit note applied to its
// invoice, goes through push() alone, after the wave gathered so far is created (so Tryton sees the slice
// in its order, and numbers customer invoices in issue-date order).
// Reads: the invoices a round's money settles are read in one call before the round is planned (an invoice
// the slice posted itself is known from its post's read), and a party's address once per slice, instead of
// a read per document.

/** Documents a wave holds at most: a slice is 100 entries; a wave of 50 is two creates and two posts each. */
const WAVE_LIMIT = 50;

/** How pushMany reaches the rest of the adapter. */
export interface BatchSteps {
  accounts: Map<AccountRole, number>;
  /** The effective lock (Tryton's closed periods or the ledger's closed day). */
  lock: string | null;
  /** push() of one document, as the port's push does it (look-up, closed-period retry, reversals). */
  one(document: TargetDocument, context: PushContext): Promise<PushResult>;
}

interface Planned {
  i: number;
  /** The document as the slice gave it (push() dates it itself). */
  given: TargetDocument;
  /** Dated out of a closed period. */
  document: TargetDocument;
  model: 'account.invoice' | 'account.move';
  values: Record<string, unknown>;
  pays: number[];
  paysOff: number[];
  id?: number;
}

/** The slice's documents in waves; one outcome per document, an outage given to those it left unsettled. */
export async function pushInBatches(
  s: TrytonSession,
  documents: TargetDocument[],
  context: PushContext,
  steps: BatchSteps,
): Promise<(PushResult | Error)[]> {
  const outcomes: (PushResult | Error | undefined)[] = documents.map(() => undefined);
  const waves = new PushWaves(outcomes, context);
  const wave: Planned[] = [];
  const reads: SliceReads = { invoices: new SliceInvoices(), addresses: new Map() };
  // A document pushed alone may change any invoice it settles: the slice's reads of invoices start again.
  const one: BatchSteps['one'] = async (document, ctx) => {
    try {
      return await steps.one(document, ctx);
    } finally {
      reads.invoices.clear();
    }
  };
  const batchSteps = { ...steps, one };
  const flush = async () => {
    const batch = wave.splice(0);
    for (const model of ['account.invoice', 'account.move'] as const) {
      await createAndPost(
        s,
        batch.filter((w) => w.model === model),
        model,
        waves,
        batchSteps,
        reads.invoices,
      );
    }
    waves.created();
  };
  const alone = async (doc: TargetDocument) => {
    await flush();
    return one(doc, waves.context);
  };
  try {
    await waves.run(documents, {
      beforeRound: async (round) => {
        await reads.invoices.read(
          s,
          round.flatMap((i) => settledBy(documents[i] as TargetDocument, waves.context)),
        );
      },
      reverse: alone,
      create: flush,
      place: async (given, i) => {
        const document = datedOpen(given, steps.lock);
        // Money closing a link's opening receivable (a bill's opening payable) is reconciled with it once
        // posted, and a lowering's credit notes and a charge taking the customer's credit are applied once
        // posted: pushed alone.
        if (
          waves.context.mayExist(given.key) ||
          lowersInvoice(document) ||
          document.reapplies?.length ||
          writesOffInvoice(document) ||
          settlesOpeningReceivable(document, waves.context) ||
          settlesOpeningPayable(document, waves.context)
        )
          return refusalOrThrow(() => alone(given));
        const planned = await plan(s, document, steps.accounts, waves.context, reads);
        if (!('values' in planned)) return planned;
        wave.push({ i, given, document, ...planned });
        waves.queue(given.key);
        if (wave.length === WAVE_LIMIT) await flush();
        return 'queued';
      },
    });
  } catch (error) {
    // An outage ends the slice: what it left unsettled waits for the retry (marked, so looked up then).
    if (isTargetRefusal(error)) throw error;
    const outage = error instanceof Error ? error : new Error(String(error));
    return outcomes.map((o) => o ?? outage);
  }
  return outcomes.map((o) => o ?? new Error('no outcome'));
}

/** What a slice reads once for all its documents: the invoices its money settles, the parties' addresses. */
interface SliceReads {
  invoices: SliceInvoices;
  /** A party's invoice address, by party id. */
  addresses: Map<number, number>;
}

/**
 * The invoices the index holds that a document's money may settle (its own, those its `settles` names);
 * none for a document that goes through push() alone or names an invoice still to be created.
 */
function settledBy(document: TargetDocument, context: PushContext): number[] {
  if (context.mayExist(document.key) || document.kind === 'reversal') return [];
  const keys = [ownInvoiceKey(document), ...(document.settles?.applied ?? []).map((a) => a.reopens ?? a.key)];
  return keys.flatMap((key) => {
    if (key === null) return [];
    try {
      const id = indexedInvoiceId(context, key);
      return id === null ? [] : [id];
    } catch (error) {
      if (error instanceof WaitForWave) return [];
      throw error;
    }
  });
}

async function plan(
  s: TrytonSession,
  document: TargetDocument,
  accounts: Map<AccountRole, number>,
  context: PushContext,
  reads: SliceReads,
): Promise<Omit<Planned, 'i' | 'given' | 'document'> | PushResult> {
  const opening = openingSideOf(document);
  if (opening)
    return { model: 'account.move', ...(await planOpeningMove(s, document, accounts, context, opening)) };
  switch (document.kind) {
    case 'invoice':
    case 'invoice-adjustment':
    case 'debit-memo':
    case 'refund-reopen':
    case 'bill': {
      const planned = await planInvoice(
        s,
        document,
        document.kind === 'bill' ? 'in' : 'out',
        accounts,
        reads.addresses,
      );
      if (!('values' in planned)) return planned;
      return { model: 'account.invoice', values: planned.values, pays: [], paysOff: [] };
    }
    default:
      return { model: 'account.move', ...(await planMove(s, document, accounts, context, reads.invoices)) };
  }
}

/**
 * One wave's records of one model: created in one call, posted in one call (each split when refused),
 * then what the port reports read in one call (an invoice's move, with what a payment of it reads: kept
 * for the slice) and the invoices the moves pay off reconciled (the slice reads them again).
 */
async function createAndPost(
  s: TrytonSession,
  group: Planned[],
  model: Planned['model'],
  waves: PushWaves,
  steps: BatchSteps,
  invoices: SliceInvoices,
): Promise<void> {
  if (group.length === 0) return;
  const refused = (w: Planned, error: Error) => settleRefused(w, error, waves, steps);
  const ids = await inSplits(group, (part) =>
    s.rpc.model<number[]>(
      model,
      'create',
      part.map((w) => w.values),
    ),
  );
  const created: Planned[] = [];
  for (const [j, w] of group.entries()) {
    const id = ids[j];
    if (id instanceof Error) await refused(w, id);
    else created.push({ ...w, id: id as number });
  }
  const posts = await inSplits(created, async (part) => {
    await postRecords(
      s,
      model,
      part.map((w) => w.id as number),
    );
    return part.map(() => true);
  });
  const posted: Planned[] = [];
  for (const [j, w] of created.entries()) {
    const outcome = posts[j];
    if (outcome instanceof Error) await refused(w, outcome);
    else posted.push(w);
  }
  if (posted.length === 0) return;
  if (model === 'account.invoice') {
    const rows = await s.rpc.model<InvoiceRow[]>(
      'account.invoice',
      'read',
      posted.map((w) => w.id),
      settledInvoiceFields,
    );
    for (const row of rows) invoices.keep(row);
    const moves = new Map(rows.map((r) => [r.id, r.move]));
    for (const w of posted)
      waves.settle(
        w.i,
        w.given.key,
        invoiceResult(w.document, w.id as number, moves.get(w.id as number) ?? null),
      );
    return;
  }
  // What the moves pay is no longer what the slice read of it.
  invoices.forget(group.flatMap((w) => w.pays));
  // An invoice two moves of the wave pay may be paid off by both together.
  const counts = new Map<number, number>();
  for (const w of posted) for (const id of w.pays) counts.set(id, (counts.get(id) ?? 0) + 1);
  await reconcilePaid(s, [
    ...posted.flatMap((w) => w.paysOff),
    ...[...counts].flatMap(([id, n]) => (n > 1 ? [id] : [])),
  ]);
  for (const w of posted) {
    waves.settle(w.i, w.given.key, {
      key: w.given.key,
      remoteIds: [`account.move,${w.id}`],
      contentHash: w.given.contentHash,
      created: true,
    });
  }
}

/**
 * A document Tryton refused alone. A refusal push() gets past (a period closed since the lock was read, an
 * issue date before the last numbered one) goes through push() again, the draft looked up; any other
 * refusal is the document's, with Tryton's message.
 */
async function settleRefused(w: Planned, error: Error, waves: PushWaves, steps: BatchSteps): Promise<void> {
  const message = (error as { targetMessage?: string }).targetMessage ?? error.message;
  const outcome =
    closedPeriodRefusal.test(message) || numberedBefore.test(message)
      ? await refusalOrThrow(() => steps.one(w.given, { ...waves.context, mayExist: () => true }))
      : error;
  waves.settle(w.i, w.given.key, outcome);
}

/**
 * `call` on all the items at once; refused, on each half, down to one item, whose refusal is its own
 * outcome. Tryton's call is one transaction: a refused part wrote nothing. Anything but a refusal throws.
 */
export async function inSplits<T, R>(items: T[], call: (part: T[]) => Promise<R[]>): Promise<(R | Error)[]> {
  if (items.length === 0) return [];
  try {
    return await call(items);
  } catch (error) {
    if (!isTargetRefusal(error)) throw error;
    if (items.length === 1) return [error];
    const half = Math.ceil(items.length / 2);
    return [...(await inSplits(items.slice(0, half), call)), ...(await inSplits(items.slice(half), call))];
  }
}
