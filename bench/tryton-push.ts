import { defaultAccountCodes } from '../src/targets/account-mapping.js';
import { pushOneByOne } from '../src/targets/push-one-by-one.js';
import type { PushContext, RemoteRecord, TargetDocument } from '../src/targets/target-port.js';
import { createTrytonTarget, type TrytonTarget } from '../src/targets/tryton/index.js';
import { dateOf, decimalOf, standardPeriod, type TrytonRpc } from '../src/targets/tryton/json-rpc.js';
import { startTryton } from '../test/support/tryton.js';

// Stage: documents pushed to a real Tryton (PostgreSQL) through booksync's target, against the floor it
// cannot beat: a bare create-and-post of the same move over the same JSON-RPC connection. The target adds
// the invoice settlement (a push looks nothing up: the index's write-ahead marks say no attempt wrote it);
// the ratio is what it costs. Then the same again once Tryton's database holds a business's years of
// history (`historyMoves` moves, 200,000 by default, copied in with SQL, untimed): the push rate must not
// fall with the size of the books (goal: ≥ 0.9 of the empty database's).

export interface TrytonPushResult {
  documents: number;
  pushedPerSecond: number;
  bareCreatePostPerSecond: number;
  /** pushed / bare: the goal is at least 0.5. */
  ratio: number;
  /**
   * Where the time of a push goes, per document kind (the invoices set up untimed, the payments measured):
   * Tryton's JSON-RPC calls a document, and the calls that took the most time in all, each with its count a
   * document and its mean. Tryton's own work dominates (the latency: a customer invoice's post).
   */
  rpcs: Record<'invoice' | 'payment', RpcProfile>;
  /**
   * A backlog of links, each an invoice and the card payment that pays it, as the push workflow hands it
   * to the target (slices of 100): documents a second pushed one by one (push() each) and in batches
   * (pushMany), alternating slices so the machine's load hits both alike; `queue` whether Tryton's task
   * queue was on.
   */
  backlog?: {
    documents: number;
    oneByOnePerSecond: number;
    batchedPerSecond: number;
    queue: boolean;
    /**
     * The same links' documents created and posted bare, batched as Tryton's API allows (the slice's
     * invoices in one create and one post, then its payments' moves, each line paying its invoice, in one
     * create and one post): no reads, marks, index or reconciliation of booksync's. Alternating with the
     * two others, slice by slice.
     */
    bareBatchedPerSecond?: number;
    /** batched ÷ bare batched: the goal is at least 0.6. */
    ratioToBare?: number;
    /** Tryton's calls of the batched slices, by method (where a batched document's time goes). */
    batchRpcs?: RpcProfile;
  };
  /** The same measured once the database holds `moves` more moves (absent when historyMoves is 0). */
  atScale?: { moves: number; pushedPerSecond: number; bareCreatePostPerSecond: number; ratioToEmpty: number };
}

export interface RpcProfile {
  documents: number;
  msPerDocument: number;
  callsPerDocument: number;
  top: { method: string; perDocument: number; meanMs: number }[];
}

/** Times each JSON-RPC call the target makes, by method, into the profile being filled (none: not counted). */
class RpcClock {
  #calls = new Map<string, { n: number; ms: number }>();
  #counting = false;
  readonly fetch: typeof fetch = async (url, init) => {
    if (!this.#counting) return fetch(url, init);
    const method = String(JSON.parse(String(init?.body ?? '{}')).method ?? '?');
    const started = performance.now();
    const response = await fetch(url, init);
    const body = await response.arrayBuffer();
    const call = this.#calls.get(method) ?? { n: 0, ms: 0 };
    call.n += 1;
    call.ms += performance.now() - started;
    this.#calls.set(method, call);
    return new Response(body, { status: response.status, headers: response.headers });
  };

  reset(): void {
    this.#calls.clear();
  }

  /** Counts the calls `run` makes (and only those: the bench's bare baseline shares the session). */
  async counted<T>(run: () => Promise<T>): Promise<T> {
    this.#counting = true;
    try {
      return await run();
    } finally {
      this.#counting = false;
    }
  }

  /** What was counted since the reset, over `documents` documents that took `ms` in all. */
  profile(documents: number, ms: number, top = 4): RpcProfile {
    const round = (x: number) => Math.round(x * 10) / 10;
    const calls = [...this.#calls].sort((a, b) => b[1].ms - a[1].ms);
    return {
      documents,
      msPerDocument: round(ms / documents),
      callsPerDocument: round(calls.reduce((sum, [, c]) => sum + c.n, 0) / documents),
      top: calls.slice(0, top).map(([method, c]) => ({
        method: method.replace(/^model\./, ''),
        perDocument: round(c.n / documents),
        meanMs: round(c.ms / c.n),
      })),
    };
  }
}

/**
 * `moves` copies of the latest posted move, with its lines, straight into Tryton's tables (columns read from
 * the catalogue, so the copy follows Tryton's schema), each with a description of its own like booksync's.
 */
function historySql(moves: number): string {
  return `DO $$
DECLARE
  template integer := (SELECT max(id) FROM account_move WHERE state = 'posted');
  move_cols text := (SELECT string_agg(quote_ident(column_name), ', ') FROM information_schema.columns
    WHERE table_name = 'account_move' AND column_name NOT IN ('id', 'number', 'post_number', 'description'));
  line_cols text := (SELECT string_agg(quote_ident(column_name), ', ') FROM information_schema.columns
    WHERE table_name = 'account_move_line' AND column_name NOT IN ('id', 'move', 'reconciliation'));
  numbered text := (SELECT string_agg(quote_ident(column_name), ', ') FROM information_schema.columns
    WHERE table_name = 'account_move' AND column_name IN ('number', 'post_number'));
  numbers text := (SELECT string_agg('''H-'' || g', ', ') FROM information_schema.columns
    WHERE table_name = 'account_move' AND column_name IN ('number', 'post_number'));
BEGIN
  EXECUTE format('INSERT INTO account_move (%1$s, %2$s, description) SELECT %1$s, %3$s, '
    '''booksync:history:'' || g || '' '' || repeat(''x'', 64) FROM account_move, generate_series(1, %4$s) g '
    'WHERE id = %5$s', move_cols, numbered, numbers, ${moves}, template);
  EXECUTE format('INSERT INTO account_move_line (%1$s, move) SELECT l.%2$s, m.id FROM account_move m '
    'JOIN account_move_line l ON l.move = %3$s WHERE m.description LIKE ''booksync:history:%%''',
    line_cols, replace(line_cols, ', ', ', l.'), template);
END $$;
ANALYZE account_move;
ANALYZE account_move_line;`;
}

/**
 * The floor a push cannot beat: a bare create and post of a two-line move over the same JSON-RPC session
 * (the tryton stage's baseline, and the latency stage's measure of Tryton's own rate).
 */
export async function bareCreatePost(rpc: TrytonRpc, date: string): Promise<() => Promise<void>> {
  const [account] = await rpc.searchRead<{ id: number }>('account.account', [['code', '=', '1020']], ['id']);
  const [other] = await rpc.searchRead<{ id: number }>('account.account', [['code', '=', '6010']], ['id']);
  const [journal] = await rpc.searchRead<{ id: number }>('account.journal', [['code', '=', 'MISC']], ['id']);
  const period = await standardPeriod(rpc, date);
  return async () => {
    const [id] = await rpc.model<number[]>('account.move', 'create', [
      {
        journal: journal?.id,
        period,
        date: dateOf(date),
        description: 'bare',
        lines: [
          [
            'create',
            [
              { account: account?.id, debit: decimalOf(100), credit: decimalOf(0) },
              { account: other?.id, debit: decimalOf(0), credit: decimalOf(100) },
            ],
          ],
        ],
      },
    ]);
    await rpc.model('account.move', 'post', [id]);
  };
}

export async function benchTrytonPush(options: {
  documents: number;
  /** Moves of history copied into Tryton before the second measure; 0: no second measure. */
  historyMoves: number;
  /** Links of the backlog measure (an invoice and a payment each); 0: none. */
  backlogLinks?: number;
  /** Tryton's task queue on (trytond-worker beside trytond), as production runs it. */
  queue?: boolean;
  progress: (line: string) => void;
}): Promise<TrytonPushResult> {
  const queue = options.queue ?? true;
  const tryton = await startTryton({ queue });
  const clock = new RpcClock();
  try {
    const target = createTrytonTarget({
      fetch: clock.fetch,
      url: tryton.url,
      database: tryton.database,
      username: tryton.username,
      password: tryton.password,
      accounts: defaultAccountCodes,
      matching: 'create',
    });
    await target.verify();
    const rpc = target.rpc;
    const run = Date.now().toString(36);
    const customer = { serviceId: `cus_bench_${run}`, name: 'Bench Customer', email: null };
    const date = new Date().toISOString().slice(0, 10);
    // One invoice per payment, as a business has them (setup, not timed): each payment settles its own.
    const invoiceOf = (i: number) => ({ paymentLinkId: `pl_bench_${run}_${i}`, number: `INV-B-${run}-${i}` });
    // What the index knows, as the push activity hands it to the target (PushContext.pushed).
    const index = new Map<string, RemoteRecord>();
    const context: PushContext = {
      mayExist: () => false,
      refusals: () => 0,
      pushed: (key) => index.get(key) ?? null,
    };
    const invoices = options.documents * (options.historyMoves > 0 ? 2 : 1);
    // The first invoice alone (the party's first use, the session's caches), then the rest profiled.
    const invoiceDoc = (i: number): TargetDocument => ({
      key: `invoice:pl_bench_${run}_${i}`,
      kind: 'invoice',
      date,
      description: 'Bench invoice',
      amountCents: 200,
      lines: [
        { role: 'AccountsReceivable', amountCents: 200 },
        { role: 'Revenue', amountCents: -200 },
      ],
      contentHash: 'b'.repeat(64),
      invoice: invoiceOf(i),
      customer,
    });
    const pushInvoice = async (i: number) => {
      const made = await target.push(invoiceDoc(i), context);
      index.set(made.key, made);
    };
    await pushInvoice(0);
    clock.reset();
    const invoicesStarted = performance.now();
    await clock.counted(async () => {
      for (let i = 1; i < invoices; i++) await pushInvoice(i);
    });
    const invoiceRpcs = clock.profile(invoices - 1, performance.now() - invoicesStarted);
    options.progress(
      `tryton: ${invoices} invoices ready (${invoiceRpcs.msPerDocument} ms and ${invoiceRpcs.callsPerDocument} calls an invoice)`,
    );
    const payment = (i: number): TargetDocument => ({
      key: `payment:bench_${run}_${i}`,
      kind: 'payment',
      date,
      description: `Bench payment ${i}`,
      amountCents: 100,
      lines: [
        { role: 'ProcessorClearing', amountCents: 100 },
        { role: 'AccountsReceivable', amountCents: -100 },
      ],
      contentHash: 'c'.repeat(64),
      invoice: invoiceOf(i),
      customer,
    });
    const bare = await bareCreatePost(rpc, date);
    /** Payments `from` .. `from + documents` pushed, alternating rounds with the bare path so load hits both alike. */
    const measure = async (from: number) => {
      let pushed = 0;
      let bareDone = 0;
      let pushMs = 0;
      let bareMs = 0;
      // Five rounds of each (at least 5 a round: a quick run's 10 still alternate twice).
      const round = Math.max(5, Math.floor(options.documents / 5));
      while (pushed < options.documents) {
        let t = performance.now();
        await clock.counted(async () => {
          for (let i = 0; i < round && pushed < options.documents; i++)
            await target.push(payment(from + pushed++), context);
        });
        pushMs += performance.now() - t;
        t = performance.now();
        for (let i = 0; i < round && bareDone < options.documents; i++, bareDone++) await bare();
        bareMs += performance.now() - t;
        options.progress(`tryton: ${pushed}/${options.documents} pushed`);
      }
      return {
        pushed,
        pushMs,
        pushedPerSecond: Math.round((pushed / pushMs) * 1000 * 10) / 10,
        bareCreatePostPerSecond: Math.round((bareDone / bareMs) * 1000 * 10) / 10,
      };
    };
    clock.reset();
    const empty = await measure(0);
    const paymentRpcs = clock.profile(empty.pushed, empty.pushMs);
    const result: TrytonPushResult = {
      rpcs: { invoice: invoiceRpcs, payment: paymentRpcs },
      documents: empty.pushed,
      pushedPerSecond: empty.pushedPerSecond,
      bareCreatePostPerSecond: empty.bareCreatePostPerSecond,
      ratio: Math.round((empty.pushedPerSecond / empty.bareCreatePostPerSecond) * 100) / 100,
    };
    if ((options.backlogLinks ?? 0) > 0) {
      // Links of their own (numbered from a million), each paid in full by its card payment.
      const links = (from: number, count: number) =>
        Array.from({ length: count }, (_, j) => 1_000_000 + from + j).flatMap((i) => [
          invoiceDoc(i),
          {
            ...payment(i),
            amountCents: 200,
            lines: [
              { role: 'ProcessorClearing' as const, amountCents: 200 },
              { role: 'AccountsReceivable' as const, amountCents: -200 },
            ],
          },
        ]);
      const bare = await bareBatched(rpc, customer.serviceId, date);
      result.backlog = {
        ...(await measureBacklog(target, links, options.backlogLinks ?? 0, index, options.progress, {
          bare,
          clock,
        })),
        queue,
      };
    }
    if (options.historyMoves > 0) {
      const started = performance.now();
      tryton.sql(historySql(options.historyMoves));
      options.progress(
        `tryton: ${options.historyMoves} moves of history copied in (${Math.round((performance.now() - started) / 1000)} s, untimed)`,
      );
      const full = await measure(options.documents);
      result.atScale = {
        moves: options.historyMoves,
        pushedPerSecond: full.pushedPerSecond,
        bareCreatePostPerSecond: full.bareCreatePostPerSecond,
        ratioToEmpty: Math.round((full.pushedPerSecond / empty.pushedPerSecond) * 100) / 100,
      };
    }
    return result;
  } finally {
    await tryton.close();
  }
}

/**
 * The floor of a batched push of links: `links` customer invoices created in one call and posted in one,
 * then a payment move for each (its receivable line the invoice's payment line, as booksync's) created in
 * one call and posted in one. Nothing read, marked or indexed, nothing reconciled.
 */
async function bareBatched(
  rpc: TrytonRpc,
  customerServiceId: string,
  date: string,
): Promise<(links: number) => Promise<void>> {
  const id = async (model: string, domain: unknown[]) =>
    (await rpc.model<number[]>(model, 'search', domain, 0, 1, null))[0] as number;
  const account = (code: string) => id('account.account', [['code', '=', code]]);
  const [receivable, revenue, clearing] = await Promise.all([
    account(defaultAccountCodes.AccountsReceivable),
    account(defaultAccountCodes.Revenue),
    account(defaultAccountCodes.ProcessorClearing),
  ]);
  const party = await id('party.party', [['identifiers.code', '=', `booksync:${customerServiceId}`]]);
  const [held] = await rpc.model<{ addresses: number[] }[]>('party.party', 'read', [party], ['addresses']);
  const revenueJournal = await id('account.journal', [['code', '=', 'REV']]);
  const misc = await id('account.journal', [['code', '=', 'MISC']]);
  const term = await id('account.invoice.payment_term', []);
  const period = await standardPeriod(rpc, date);
  return async (links) => {
    const invoices = await rpc.model<number[]>(
      'account.invoice',
      'create',
      Array.from({ length: links }, () => ({
        type: 'out',
        party,
        invoice_address: held?.addresses[0],
        account: receivable,
        journal: revenueJournal,
        payment_term: term,
        invoice_date: dateOf(date),
        accounting_date: dateOf(date),
        description: 'bare',
        lines: [
          [
            'create',
            [
              {
                type: 'line',
                account: revenue,
                quantity: 1,
                unit_price: decimalOf(200),
                description: 'bare',
              },
            ],
          ],
        ],
      })),
    );
    await rpc.model('account.invoice', 'post', invoices);
    const moves = await rpc.model<number[]>(
      'account.move',
      'create',
      invoices.map((invoice) => ({
        journal: misc,
        period,
        date: dateOf(date),
        description: 'bare',
        lines: [
          [
            'create',
            [
              { account: clearing, debit: decimalOf(200), credit: decimalOf(0), description: 'bare' },
              {
                account: receivable,
                debit: decimalOf(0),
                credit: decimalOf(200),
                party,
                invoice_payment: invoice,
                description: 'bare',
              },
            ],
          ],
        ],
      })),
    );
    await rpc.model('account.move', 'post', moves);
  };
}

/**
 * A backlog of `links` links (an invoice and its payment each) in slices of 100 documents, as the push
 * workflow hands them over: slices go in turn one by one (push() each, what pushMany did before Tryton
 * batched), through pushMany, and bare (bareBatched: the same documents with nothing of booksync's), so the
 * machine's load hits all three alike. Documents a second of each; Tryton's calls of the batched slices.
 */
async function measureBacklog(
  target: TrytonTarget,
  links: (from: number, count: number) => TargetDocument[],
  count: number,
  index: Map<string, RemoteRecord>,
  progress: (line: string) => void,
  baseline: { bare: (links: number) => Promise<void>; clock: RpcClock },
): Promise<NonNullable<TrytonPushResult['backlog']>> {
  const context: PushContext = {
    mayExist: () => false,
    refusals: () => 0,
    pushed: (key) => index.get(key) ?? null,
  };
  // 50 links a slice; a backlog under two slices' worth (a quick run's) in two, so both pushes run.
  const perSlice = Math.min(50, Math.ceil(count / 2));
  const ms = { oneByOne: 0, batched: 0, bare: 0 };
  const done = { oneByOne: 0, batched: 0, bare: 0 };
  const ways = ['oneByOne', 'batched', 'bare'] as const;
  baseline.clock.reset();
  for (let from = 0, slice = 0; from < count; from += perSlice, slice++) {
    const way = ways[slice % 3] as (typeof ways)[number];
    const docs = links(from, Math.min(perSlice, count - from));
    const started = performance.now();
    if (way === 'bare') await baseline.bare(docs.length / 2);
    else {
      const outcomes =
        way === 'batched'
          ? await baseline.clock.counted(() => target.pushMany(docs, context))
          : await pushOneByOne(target, docs, context);
      for (const o of outcomes) {
        if (o instanceof Error) throw o;
        index.set(o.key, o);
      }
    }
    ms[way] += performance.now() - started;
    done[way] += docs.length;
    progress(`tryton: backlog ${from + docs.length / 2}/${count} links (${way})`);
  }
  // A backlog too short for a bare slice in turn gets one of its own.
  if (done.bare === 0) {
    const n = Math.min(perSlice, count);
    const started = performance.now();
    await baseline.bare(n);
    ms.bare += performance.now() - started;
    done.bare += 2 * n;
  }
  const rate = (n: number, t: number) => Math.round((n / t) * 1000 * 100) / 100;
  const batchedPerSecond = rate(done.batched, ms.batched);
  const bareBatchedPerSecond = rate(done.bare, ms.bare);
  return {
    documents: done.oneByOne + done.batched,
    oneByOnePerSecond: rate(done.oneByOne, ms.oneByOne),
    batchedPerSecond,
    queue: true,
    bareBatchedPerSecond,
    ratioToBare: Math.round((batchedPerSecond / bareBatchedPerSecond) * 100) / 100,
    batchRpcs: baseline.clock.profile(done.batched, ms.batched, 8),
  };
}
