import { randomUUID } from 'node:crypto';
import { foundOrConflict } from '../already-pushed.js';
import { isTargetRefusal, TargetConflictError } from '../errors.js';
import { PushWaves, refusalOrThrow } from '../push-waves.js';
import type { PushContext, PushResult, RemoteRecord, TargetDocument } from '../target-port.js';
import { invoiceNumber } from './documents.js';
import { batchRequestId, entityOf, NUMBERS_PER_QUERY, rowOf } from './helpers.js';
import { BATCH_LIMIT, type BatchItem, PAGE_SIZE, type QboEntity, selectQuery } from './http-client.js';
import { createRequestId, markersIn } from './keys.js';
import { distinctNumber, findIn, invoiceName, lookupQuery } from './look-ups.js';
import { planFor } from './plans.js';
import { type QuickBooksSession, remember } from './session.js';
import { withTransfer } from './unapplied-cash.js';

// pushMany's steps: a backlog's keys looked up in batches, what it will ask for prefetched, then created in
// waves of batches.

/** Looks up the documents an earlier attempt may have created (`candidates`), settling those found. */
export async function lookUpAll(
  s: QuickBooksSession,
  candidates: TargetDocument[],
  documents: TargetDocument[],
  outcomes: (PushResult | Error | undefined)[],
) {
  const wanted = new Set(candidates);
  const looked = documents.flatMap((doc, i) =>
    doc.kind === 'reversal' || !wanted.has(doc) ? [] : [{ doc, i }],
  );
  for (let start = 0; start < looked.length; start += BATCH_LIMIT) {
    const chunk = looked.slice(start, start + BATCH_LIMIT);
    const queries = chunk.map(({ doc }) => lookupQuery(s, entityOf(doc.key), doc));
    const items = queries.filter((q): q is BatchItem => q !== null);
    // A fresh requestid: a replayed read would answer with what QBO held the first time.
    const answers = items.length > 0 ? await s.client.batch(items, randomUUID()) : [];
    let next = 0;
    for (const [j, { doc, i }] of chunk.entries()) {
      const entity = entityOf(doc.key);
      let found: RemoteRecord | null = null;
      const answer = queries[j] ? answers[next++] : undefined;
      if (answer instanceof Error) throw answer;
      const rows = (answer as QboEntity[] | undefined) ?? [];
      const record = rowOf(rows, doc.key);
      const mark = record && markersIn(record.PrivateNote).find((m) => m.key === doc.key);
      if (record && mark) {
        found = { key: doc.key, remoteIds: [`${entity}:${record.Id}`], contentHash: mark.contentHash };
        s.known.set(doc.key, found);
      } else if (!queries[j] || rows.length >= PAGE_SIZE) {
        // Not narrowed to one page: looked up alone, page by page.
        found = await findIn(s, entity, doc.key, doc);
      }
      if (found) outcomes[i] = foundOrConflict(s.name, found, doc);
    }
  }
}

/**
 * What the backlog's documents will ask QBO for, asked in a few requests instead of one or four per
 * document: its parties (PartyDirectory.prefetch) and the numbers its invoices may take (numberInvoice).
 */
export async function prefetch(
  s: QuickBooksSession,
  documents: TargetDocument[],
  outcomes: (PushResult | Error | undefined)[],
) {
  const open = documents.filter((d, i) => !outcomes[i] && d.kind !== 'reversal');
  await s.parties.prefetch(
    'Customer',
    open.flatMap((d) => (d.customer ? [d.customer] : [])),
  );
  await s.parties.prefetch(
    'Vendor',
    open.flatMap((d) => (d.vendor ? [d.vendor] : [])),
  );
  const numbers = [
    ...new Set(
      open
        .filter((d) => d.kind === 'invoice')
        .flatMap((d) => {
          const name = invoiceName(d);
          return [invoiceNumber(name), distinctNumber(d, name)];
        }),
    ),
  ];
  if (numbers.length === 0) return;
  const chunks: string[][] = [];
  for (let i = 0; i < numbers.length; i += NUMBERS_PER_QUERY)
    chunks.push(numbers.slice(i, i + NUMBERS_PER_QUERY));
  const taken = new Map<string, QboEntity[]>(numbers.map((n) => [n, []]));
  for (let i = 0; i < chunks.length; i += BATCH_LIMIT) {
    const items = chunks.slice(i, i + BATCH_LIMIT).map((chunk) => ({
      entity: 'Invoice',
      query: selectQuery('Invoice', { DocNumber: chunk }, { max: PAGE_SIZE }),
    }));
    for (const answer of await s.client.batch(items, randomUUID())) {
      if (answer instanceof Error) throw answer;
      for (const invoice of answer as QboEntity[]) taken.get(String(invoice.DocNumber))?.push(invoice);
    }
  }
  s.numbers = taken;
}

export async function createInWaves(
  s: QuickBooksSession,
  documents: TargetDocument[],
  outcomes: (PushResult | Error | undefined)[],
  context: PushContext,
) {
  const wave: { i: number; doc: TargetDocument; entity: string; body: Record<string, unknown> }[] = [];
  const waves = new PushWaves(outcomes, context);
  const flush = async () => {
    if (wave.length === 0) return;
    const items: BatchItem[] = wave.map((w) => ({ entity: w.entity, body: w.body }));
    const ids = wave.map((w) => createRequestId(w.doc.key, w.body, context.refusals(w.doc.key)));
    const answers = await s.client.batch(items, batchRequestId(ids));
    for (const [j, w] of wave.entries()) {
      const answer = answers[j] as QboEntity | Error;
      if (answer instanceof Error) {
        if (!isTargetRefusal(answer)) throw answer;
        outcomes[w.i] = answer;
        continue;
      }
      remember(s, w.entity, answer);
      s.known.set(w.doc.key, {
        key: w.doc.key,
        remoteIds: [`${w.entity}:${answer.Id}`],
        contentHash: w.doc.contentHash,
      });
      const stored = markersIn(answer.PrivateNote).find((m) => m.key === w.doc.key);
      const result: PushResult = {
        key: w.doc.key,
        remoteIds: [`${w.entity}:${answer.Id}`],
        contentHash: w.doc.contentHash,
        created: true,
      };
      const outcome =
        stored && stored.contentHash !== w.doc.contentHash
          ? new TargetConflictError(s.name, w.doc.key, stored.contentHash, w.doc.contentHash)
          : await withTransfer(s, w.doc, result, context);
      waves.settle(w.i, w.doc.key, outcome, outcome instanceof Error ? result : outcome);
    }
    s.options.logger?.info({ documents: wave.length }, 'pushed a batch to quickbooks');
    wave.length = 0;
    waves.created();
    // Numbers read before this wave may be taken now.
    s.numbers = null;
  };
  // Rounds: a document that needs one still in the wave (or deferred) waits for the next round, so an
  // invoice and its payment cost two batches for the whole backlog, not two per pair.
  await waves.run(documents, {
    reverse: (doc) => s.push(doc, waves.context),
    create: flush,
    place: async (doc, i) => {
      const plan = await planFor(s, doc, waves.context);
      if ('found' in plan) return withTransfer(s, doc, plan.found, waves.context);
      if (
        plan.entity === 'Invoice' &&
        wave.some((w) => w.entity === 'Invoice' && w.body.DocNumber === plan.body.DocNumber)
      ) {
        // Two links of one name: the second is numbered once the first exists.
        return 'deferred';
      }
      if (
        plan.entity !== entityOf(doc.key) &&
        waves.context.mayExist(doc.key) &&
        (await findIn(s, plan.entity, doc.key, doc))
      )
        return refusalOrThrow(() => s.push(doc, waves.context));
      wave.push({ i, doc, entity: plan.entity, body: plan.body });
      waves.queue(doc.key);
      if (wave.length === BATCH_LIMIT) await flush();
      return 'queued';
    },
  });
}
