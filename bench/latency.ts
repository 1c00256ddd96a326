import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { QuickBooksDouble, qboLimits } from '@booksync/vendor-doubles/quickbooks/double';
import { entryKeys } from '../src/ledger/entry-key.js';
import { defaultAccountCodes } from '../src/targets/account-mapping.js';
import { markersIn } from '../src/targets/markers.js';
import { QuickBooksConnectionFile, TokenCipher } from '../src/targets/quickbooks/index.js';
import { createTrytonTarget } from '../src/targets/tryton/index.js';
import { quickBooksBooksyncChart } from '../test/support/booksync-charts.js';
import { startTryton, type TrytonServer } from '../test/support/tryton.js';
import { payPaced } from './end-to-end.js';
import { onInterrupt } from './interrupt.js';
import { activityDuration, type PaymentStack, startPaymentStack } from './payment-stack.js';
import { type LatencySummary, summarize } from './stats.js';
import { bareCreatePost } from './tryton-push.js';

// Stage: latency to the accounting software. Card payments through the whole stack (emulator,
// deliveries, ingress, `node bin/booksync.js worker` with ACCOUNTING_TARGET set: the worker wakes the
// target's push workflow on each ledger write) until the payment's document is in the target, read from
// the target itself. Per payment: the ledger entry's createdAt → posted in the target (booksync's push),
// and the pay call → posted (the whole way). Goal: p99 of the first ≤ 2 s; reported, not asserted.
// - Tryton (real, on PostgreSQL): paced at a quarter of the bare create+post rate measured first in this
//   stage (Tryton's own ceiling). Posted = the posted move's write_date in Tryton's database: the start of
//   the transaction that posted it (PostgreSQL's CURRENT_TIMESTAMP, which Tryton writes), read once at the
//   end with SQL, so the measure puts no load on Tryton while it runs; it is early by the post's own
//   duration (tens of ms). Checked against the bench's clock on a bare move first.
// - QuickBooks Online (the double, 20 ms a request, QBO's limits enforced): paced at half of what QBO's
//   limits allow at the requests a payment took in a warm-up of the same stack: 500 requests a minute, and
//   40 batch requests a minute, which binds first at a trickle (each payment's small slice is a batch
//   request or more; paced by the 500 alone, the 41st batch of a minute waits for the window, 40 s here).
//   Posted = the document's MetaData.CreateTime, which the double sets when it stores it (QBO has no drafts).
// Each target runs on a whole stack of its own (fresh dev server), one after the other.

export interface TargetLatency {
  payments: number;
  offeredPerSecond: number;
  /** Ledger entry payment:{id} created (its createdAt) → its document posted in the target. */
  bookedToPosted: LatencySummary;
  /** The pay call (client side) → posted. */
  payToPosted: LatencySummary;
  /** The pay call → the ledger entry (the e2e stage's measure, for where the time went). */
  payToBooked: LatencySummary;
  /** The goal for bookedToPosted p99 (reported, not asserted). */
  goalP99Ms: number;
  /** Payments posted a second over the measured run (first pay call to last posted): what the target took. */
  postedPerSecond: number;
  /** bookedToPosted of each payment in the order they were paid: a backlog shows as a rising series. */
  bookedToPostedInOrderMs: number[];
  /** The worker's pushToTarget activities over the whole run (warm-up included), from its /metrics. */
  pushActivity: { count: number; meanMs: number };
  postedTimeFrom: string;
  workerStartSeconds: number;
}

/** One pace of the Tryton sweep: its payments' ledger entry → posted, the backlog drained before the next. */
export interface PaceLatency {
  offeredPerSecond: number;
  payments: number;
  bookedToPosted: LatencySummary;
  postedPerSecond: number;
}

export interface LatencyResult {
  tryton: TargetLatency & {
    bareCreatePostPerSecond: number;
    bareMoves: number;
    /**
     * The pace sweep after the measure at 1/s: `paces` in order, each until its p99 is over the goal (the
     * sweep stops there); `crossesAt` the first pace whose p99 is over 2 s (null: none of those run).
     */
    sweep: {
      paces: PaceLatency[];
      crossesAtPerSecond: number | null;
      highestUnderGoalPerSecond: number | null;
    };
  };
  quickbooks: TargetLatency & {
    /** Requests the double served per payment in the warm-up (what the pace is derived from). */
    warmupRequestsPerPayment: number;
    /** The same during the measured payments. */
    requestsPerPayment: number;
    warmupBatchesPerPayment: number;
    batchesPerPayment: number;
    limitRequestsPerMinute: number;
    limitBatchesPerMinute: number;
    /** Which of QBO's limits set the pace (the one that allows fewer payments a minute). */
    boundBy: 'requests' | 'batch requests';
    /** The pace half of 500 requests a minute alone would give. */
    pacedByRequestsAlonePerSecond: number;
    refusedForLimit: number;
  };
}

export interface LatencyOptions {
  /** Card payments to Tryton at the goal's pace, 1 a second. */
  trytonPayments: number;
  /** The paces of the Tryton sweep (payments a second), slowest first; [] skips it. */
  trytonSweepPaces: readonly number[];
  /** Payments at each pace of the sweep. */
  trytonSweepPayments: number;
  quickbooksPayments: number;
  warmupPayments: number;
  bareMoves: number;
  /**
   * The QuickBooks pace at least (payments a second): the quick run's few payments are far inside QBO's
   * limits, so it need not trickle at half of them (its figures only show the stage runs); 0 in the full run.
   */
  quickbooksAtLeastPerSecond: number;
  /** Which targets' latency to measure (BENCH_LATENCY_TARGETS overrides). */
  targets: readonly ('tryton' | 'quickbooks')[];
  progress: (line: string) => void;
  workerNodeFlags: readonly string[];
  workerEnv: Readonly<Record<string, string>>;
}

const goalP99Ms = 2_000;

interface Paid {
  paymentId: string;
  payStartedAt: number;
}

/** A stack of its own in a fresh folder; `run` gets it, everything is stopped after. */
async function withStack<T>(
  label: string,
  options: LatencyOptions,
  payments: number,
  targetEnv: (dir: string) => Promise<Record<string, string>>,
  run: (stack: PaymentStack, dir: string) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), `booksync-bench-${label}-`));
  const cleanups: (() => Promise<void> | void)[] = [() => rmSync(dir, { recursive: true, force: true })];
  const cleanup = async () => {
    for (const step of cleanups.splice(0).reverse()) {
      await Promise.resolve(step()).catch((error) => options.progress(`${label}: cleanup: ${String(error)}`));
    }
  };
  const forget = onInterrupt(cleanup);
  try {
    const stack = await startPaymentStack(
      {
        label,
        links: options.warmupPayments + payments,
        progress: options.progress,
        workerNodeFlags: options.workerNodeFlags,
        workerLog: process.env.BENCH_LATENCY_WORKER_LOG
          ? `${process.env.BENCH_LATENCY_WORKER_LOG}.${label}`
          : undefined,
        workerEnv: {
          ...options.workerEnv,
          ...(await targetEnv(dir)),
          // The worker's log lines at this level (default warn) in BENCH_LATENCY_WORKER_LOG.<stack>, to see where a push waited.
          ...(process.env.BENCH_LATENCY_LOG_LEVEL ? { LOG_LEVEL: process.env.BENCH_LATENCY_LOG_LEVEL } : {}),
        },
      },
      dir,
      cleanups,
    );
    return await run(stack, dir);
  } finally {
    forget();
    await cleanup();
  }
}

/** Pays `links` paced at `perSecond`; the payments and when each pay call started. */
async function pay(stack: PaymentStack, links: string[], perSecond: number): Promise<Paid[]> {
  const paid: Paid[] = [];
  await payPaced(links.length, perSecond, async (i) => {
    const payStartedAt = Date.now();
    const payment = await stack.sandbox.payLink(links[i]!, 'Card');
    paid.push({ paymentId: payment.id, payStartedAt });
  });
  return paid;
}

/** Polls `posted` (payment id → posted time, or absent) until every payment is there. */
async function untilPosted(
  label: string,
  paid: Paid[],
  posted: () => Promise<Map<string, number>>,
): Promise<Map<string, number>> {
  const deadline = Date.now() + 120_000 + paid.length * 1_000;
  for (;;) {
    const now = await posted();
    const missing = paid.filter((p) => !now.has(p.paymentId)).length;
    if (missing === 0) return now;
    if (Date.now() > deadline)
      throw new Error(`${label}: ${missing} of ${paid.length} payments never posted`);
    await sleep(250);
  }
}

async function measure(
  stack: PaymentStack,
  paid: Paid[],
  posted: Map<string, number>,
): Promise<
  Pick<
    TargetLatency,
    | 'bookedToPosted'
    | 'payToPosted'
    | 'payToBooked'
    | 'postedPerSecond'
    | 'bookedToPostedInOrderMs'
    | 'pushActivity'
  >
> {
  const booked = new Map<string, number>();
  for (const p of paid) {
    const entry = await stack.ledger.get(entryKeys.payment(p.paymentId));
    if (!entry) throw new Error(`payment:${p.paymentId} posted in the target but not in the ledger`);
    booked.set(p.paymentId, Date.parse(entry.createdAt));
  }
  return {
    bookedToPosted: summarize(paid.map((p) => posted.get(p.paymentId)! - booked.get(p.paymentId)!)),
    payToPosted: summarize(paid.map((p) => posted.get(p.paymentId)! - p.payStartedAt)),
    payToBooked: summarize(paid.map((p) => booked.get(p.paymentId)! - p.payStartedAt)),
    postedPerSecond: round2(
      paid.length /
        ((Math.max(...paid.map((p) => posted.get(p.paymentId)!)) -
          Math.min(...paid.map((p) => p.payStartedAt))) /
          1000),
    ),
    bookedToPostedInOrderMs: [...paid]
      .sort((a, b) => a.payStartedAt - b.payStartedAt)
      .map((p) => posted.get(p.paymentId)! - booked.get(p.paymentId)!),
    pushActivity: await activityDuration(stack.metricsUrl, 'pushToTarget'),
  };
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const round2 = (x: number) => Math.round(x * 100) / 100;

/** Posted booksync payment moves in Tryton: payment id → write_date (or create_date) in epoch ms. */
function trytonPosted(tryton: TrytonServer): Map<string, number> {
  const rows = tryton.sql(
    `SELECT description, round(extract(epoch from (coalesce(write_date, create_date) AT TIME ZONE current_setting('TimeZone'))) * 1000)
       FROM account_move WHERE state = 'posted' AND description LIKE 'booksync:payment:%'`,
  );
  const out = new Map<string, number>();
  for (const line of rows.split('\n')) {
    const [description, ms] = line.split('|');
    const key = /^booksync:payment:(\S+) /.exec(description ?? '')?.[1];
    if (key && ms) out.set(key, Number(ms));
  }
  return out;
}

async function trytonLatency(options: LatencyOptions): Promise<LatencyResult['tryton']> {
  const tryton = await startTryton();
  try {
    const target = createTrytonTarget({
      url: tryton.url,
      database: tryton.database,
      username: tryton.username,
      password: tryton.password,
      accounts: defaultAccountCodes,
      matching: 'create',
    });
    const date = new Date().toISOString().slice(0, 10);
    const bare = await bareCreatePost(target.rpc, date);
    await bare(); // the session's first call, not timed
    const started = performance.now();
    for (let i = 0; i < options.bareMoves; i++) await bare();
    const bareRate = options.bareMoves / ((performance.now() - started) / 1000);
    // Tryton's clock, as this stage reads it (write_date through SQL), against the bench's around one move.
    const before = Date.now();
    await bare();
    const after = Date.now();
    const [stamp] = tryton
      .sql(
        `SELECT round(extract(epoch from (coalesce(write_date, create_date) AT TIME ZONE current_setting('TimeZone'))) * 1000)
           FROM account_move WHERE description = 'bare' ORDER BY id DESC LIMIT 1`,
      )
      .trim()
      .split('\n');
    if (!(Number(stamp) >= before - 1_000 && Number(stamp) <= after + 1_000))
      throw new Error(`Tryton's write_date ${stamp} is not within [${before}, ${after}]: clock or time zone`);
    await target.close();
    // The goal's pace: a card payment a second; then faster paces until the p99 crosses the goal.
    const perSecond = 1;
    options.progress(
      `latency tryton: bare create+post ${round1(bareRate)}/s; payments paced at ${perSecond}/s`,
    );
    const sweepLinks = options.trytonSweepPaces.length * options.trytonSweepPayments;

    return await withStack(
      'latency-tryton',
      options,
      options.trytonPayments + sweepLinks,
      async () => ({
        ACCOUNTING_TARGET: 'tryton',
        TRYTON_URL: tryton.url,
        TRYTON_DATABASE: tryton.database,
        TRYTON_USER: tryton.username,
        TRYTON_PASSWORD: tryton.password,
      }),
      async (stack) => {
        const posted = async () => trytonPosted(tryton);
        const warm = await pay(stack, stack.links.slice(0, options.warmupPayments), 1);
        await untilPosted('latency tryton warm-up', warm, posted);
        options.progress(`latency tryton: ${options.trytonPayments} payments paced at ${perSecond}/s`);
        const measured = options.warmupPayments + options.trytonPayments;
        const paid = await pay(stack, stack.links.slice(options.warmupPayments, measured), perSecond);
        const all = await untilPosted('latency tryton', paid, posted);
        const figures = await measure(stack, paid, all);
        options.progress(
          `latency tryton: booked→posted p50 ${figures.bookedToPosted.p50Ms} ms, p99 ${figures.bookedToPosted.p99Ms} ms; pay→posted p50 ${figures.payToPosted.p50Ms} ms, p99 ${figures.payToPosted.p99Ms} ms`,
        );
        const paces: PaceLatency[] = [];
        let from = measured;
        for (const pace of options.trytonSweepPaces) {
          const links = stack.links.slice(from, from + options.trytonSweepPayments);
          from += links.length;
          const paidAtPace = await pay(stack, links, pace);
          const at = await measure(
            stack,
            paidAtPace,
            await untilPosted(`latency tryton ${pace}/s`, paidAtPace, posted),
          );
          paces.push({
            offeredPerSecond: pace,
            payments: paidAtPace.length,
            bookedToPosted: at.bookedToPosted,
            postedPerSecond: at.postedPerSecond,
          });
          options.progress(
            `latency tryton: at ${pace}/s booked→posted p50 ${at.bookedToPosted.p50Ms} ms, p99 ${at.bookedToPosted.p99Ms} ms, ${at.postedPerSecond} posted/s`,
          );
          if (at.bookedToPosted.p99Ms > goalP99Ms) break;
        }
        const over = paces.find((p) => p.bookedToPosted.p99Ms > goalP99Ms);
        const under = paces.filter((p) => p.bookedToPosted.p99Ms <= goalP99Ms).at(-1);
        return {
          payments: paid.length,
          offeredPerSecond: perSecond,
          ...figures,
          sweep: {
            paces,
            crossesAtPerSecond: over?.offeredPerSecond ?? null,
            highestUnderGoalPerSecond: under?.offeredPerSecond ?? null,
          },
          goalP99Ms,
          postedTimeFrom:
            "Tryton's account_move.write_date of the posted move (its post transaction's start), read with SQL after the run",
          workerStartSeconds: stack.workerStartSeconds,
          bareCreatePostPerSecond: round1(bareRate),
          bareMoves: options.bareMoves,
        };
      },
    );
  } finally {
    await tryton.close();
  }
}

/** Where a card payment's document lives in QuickBooks: a Payment on its invoice, or a SalesReceipt. */
const qboPaymentEntities = ['Payment', 'SalesReceipt', 'JournalEntry', 'Deposit'];

async function quickbooksLatency(options: LatencyOptions): Promise<LatencyResult['quickbooks']> {
  const double = await new QuickBooksDouble({ latencyMs: 20 }).start();
  try {
    // booksync's accounts already in place: the bench measures the push, not set-up.
    const realmId = double.createRealm(undefined, { chart: quickBooksBooksyncChart });
    const payments = options.quickbooksPayments;
    const tokenKey = 'bench-latency-the-refresh-token-is-sealed-with';
    const posted = async () => {
      const out = new Map<string, number>();
      for (const entity of qboPaymentEntities)
        for (const record of double.all(realmId, entity)) {
          const created = (record.MetaData as { CreateTime?: string } | undefined)?.CreateTime;
          for (const { key } of markersIn(record.PrivateNote))
            if (key.startsWith('payment:') && created)
              out.set(key.slice('payment:'.length), Date.parse(created));
        }
      return out;
    };
    const requests = () => double.requests.filter((r) => r.realmId === realmId).length;
    const batches = () => double.batches(realmId);
    return await withStack(
      'latency-quickbooks',
      options,
      payments,
      async (dir) => {
        const tokenFile = path.join(dir, 'quickbooks-connection.json');
        await new QuickBooksConnectionFile(tokenFile).writeConnection({
          companyId: realmId,
          refreshToken: new TokenCipher(tokenKey).seal(double.connect(realmId)),
          connectedAt: new Date().toISOString(),
        });
        return {
          ACCOUNTING_TARGET: 'quickbooks',
          QBO_CLIENT_ID: double.clientId,
          QBO_CLIENT_SECRET: double.clientSecret,
          QBO_TOKEN_KEY: tokenKey,
          QBO_TOKEN_FILE: tokenFile,
          QBO_REALM_ID: realmId,
          QBO_BASE_URL: double.url,
          QBO_OAUTH_URL: double.url,
        };
      },
      async (stack) => {
        // The warm-up's requests a payment, first ones included (customers, the company's settings): the
        // pace errs on the slow side.
        const warmFrom = requests();
        const warmBatchesFrom = batches();
        const warm = await pay(stack, stack.links.slice(0, options.warmupPayments), 1);
        await untilPosted('latency quickbooks warm-up', warm, posted);
        await sleep(500); // the slice's last requests (index writes are local; invoices' links) settle
        const warmupRequestsPerPayment = round2((requests() - warmFrom) / warm.length);
        const warmupBatchesPerPayment = round2((batches() - warmBatchesFrom) / warm.length);
        // Half of what the binding limit allows: 500 requests a minute, or 40 batch requests a minute (a
        // small slice still goes as a batch request, so at a trickle the batch limit binds first).
        const byRequests = qboLimits.perMinute / 60 / Math.max(warmupRequestsPerPayment, 0.1);
        const byBatches = qboLimits.batchesPerMinute / 60 / Math.max(warmupBatchesPerPayment, 0.1);
        const perSecond = round2(
          Math.max(0.5 * Math.min(byRequests, byBatches), options.quickbooksAtLeastPerSecond),
        );
        const boundBy = byBatches < byRequests ? 'batch requests' : 'requests';
        options.progress(
          `latency quickbooks: ${warmupRequestsPerPayment} requests (${warmupBatchesPerPayment} batch requests) a payment in the warm-up, so ${payments} payments paced at ${perSecond}/s (half of what QBO's ${boundBy} a minute allow; by requests alone ${round2(0.5 * byRequests)}/s)`,
        );
        const from = requests();
        const batchesFrom = batches();
        const paid = await pay(stack, stack.links.slice(options.warmupPayments), perSecond);
        const all = await untilPosted('latency quickbooks', paid, posted);
        await sleep(500);
        const figures = await measure(stack, paid, all);
        if (double.violations.length > 0) throw new Error(`XSD violations: ${double.violations.join('; ')}`);
        const refused = Object.values(double.refusedForLimit(realmId)).reduce((a, b) => a + b, 0);
        options.progress(
          `latency quickbooks: booked→posted p50 ${figures.bookedToPosted.p50Ms} ms, p99 ${figures.bookedToPosted.p99Ms} ms; pay→posted p50 ${figures.payToPosted.p50Ms} ms, p99 ${figures.payToPosted.p99Ms} ms`,
        );
        return {
          payments: paid.length,
          offeredPerSecond: perSecond,
          ...figures,
          goalP99Ms,
          postedTimeFrom:
            "the double's MetaData.CreateTime of the payment's document (set when it stores it)",
          workerStartSeconds: stack.workerStartSeconds,
          warmupRequestsPerPayment,
          requestsPerPayment: round2((requests() - from) / paid.length),
          warmupBatchesPerPayment,
          batchesPerPayment: round2((batches() - batchesFrom) / paid.length),
          limitRequestsPerMinute: qboLimits.perMinute,
          limitBatchesPerMinute: qboLimits.batchesPerMinute,
          boundBy,
          pacedByRequestsAlonePerSecond: round2(0.5 * byRequests),
          refusedForLimit: refused,
        };
      },
    );
  } finally {
    await double.stop();
  }
}

export async function benchLatency(options: LatencyOptions): Promise<Partial<LatencyResult>> {
  // BENCH_LATENCY_TARGETS=quickbooks (or tryton) runs one of the two; options.targets is the default.
  const only = process.env.BENCH_LATENCY_TARGETS?.split(',') ?? options.targets;
  return {
    ...(only.includes('tryton') ? { tryton: await trytonLatency(options) } : {}),
    ...(only.includes('quickbooks') ? { quickbooks: await quickbooksLatency(options) } : {}),
  };
}
