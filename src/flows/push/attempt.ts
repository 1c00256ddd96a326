import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceError } from '@booksync/service-contract/errors';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { BookedEntry } from '../../ledger/entry.js';
import type { Logger } from '../../logging/logger.js';
import { documentFor, UnknownDocumentKindError } from '../../targets/documents.js';
import {
  nonRetryableTargetErrors,
  TargetDisconnectedError,
  TargetUnavailableError,
} from '../../targets/errors.js';
import type {
  AccountingTarget,
  PushContext,
  PushResult,
  RemoteRecord,
  TargetDocument,
} from '../../targets/target-port.js';
import { inPushSpan } from '../../telemetry/tracing.js';
import {
  type ActivityDependencies,
  activityLogger,
  type TargetPushDependencies,
} from '../in-activity/context.js';
import { beatEveryMs } from '../in-activity/heartbeating.js';
import type { PushToTargetInput, PushToTargetResult } from './activities-contract.js';
import { type NextEntry, PushLeaseLostError, TargetCompanyMismatchError } from './target-index.js';

// One attempt of the push activity (pushToTarget) at one target: it takes the target's lease, waits out an
// earlier attempt's write still in flight, marks each entry before writing it, writes the slice (batched when
// the target batches, else one by one) and records each outcome; it ends its attempt whatever way it ends
// (src/targets/README.md, "Pushes: write-ahead attempts and the push lease").

/**
 * Failpoint for the crash tests: set to a target's name, the process SIGKILLs itself right after that
 * target created a document and before the index records it, the window idempotency at the target covers.
 */
const crashFailpoint = 'BOOKSYNC_FAILPOINT_KILL_AFTER_TARGET_CREATE';
/** Failpoint: the process SIGKILLs itself right after marking entries attempted, before writing them. */
const writeAheadFailpoint = 'BOOKSYNC_FAILPOINT_KILL_AFTER_WRITE_AHEAD';

/** The attempt from which an outage (no Retry-After) is shown on the push workflow instead of retried quietly. */
export const outageFlaggedAtAttempt = 3;

const refusals = new Set<string>([...nonRetryableTargetErrors, UnknownDocumentKindError.name]);

/** A failure retrying cannot fix, for this one entry: the target refused, or a reference is gone. */
function refusalOf(error: unknown): string | null {
  if (error instanceof Error && refusals.has(error.name)) {
    return 'targetMessage' in error ? String(error.targetMessage) : error.message;
  }
  if (error instanceof ServiceError && !error.retryable) return `service: ${error.message}`;
  return null;
}

type SliceResult = Omit<PushToTargetResult, 'summary'>;

export class PushAttempt {
  // What the attempt's slice reads (PushSlice below).
  readonly deps: ActivityDependencies;
  readonly push: TargetPushDependencies;
  /** The target's name. */
  readonly name: string;
  readonly limit: number;
  readonly target: AccountingTarget;
  readonly log: Logger;
  readonly #activity = Context.current();

  constructor(
    deps: ActivityDependencies,
    push: TargetPushDependencies,
    { target, limit }: PushToTargetInput,
  ) {
    const found = push.targets.get(target);
    if (!found) throw ApplicationFailure.nonRetryable(`unknown accounting target ${target}`, 'NoTargetError');
    this.deps = deps;
    this.push = push;
    this.name = target;
    this.limit = limit;
    this.target = found;
    this.log = activityLogger(deps, { target });
  }

  async run(): Promise<PushToTargetResult> {
    const index = this.push.index;
    // This attempt's fencing token: from here on an earlier attempt (timed out, still running somewhere)
    // can mark nothing attempted, so it creates nothing. The index must be the target's company's: what
    // another company's index records as pushed is not in this one.
    const lease = await index.lease(this.name, this.target.company).catch((error: unknown) => {
      if (!(error instanceof TargetCompanyMismatchError)) throw error;
      // Nothing can go until the operator reconnects the index's company or switches: flagged, not retried.
      this.log.error({ reason: error.message }, 'accounting target index belongs to another company');
      throw ApplicationFailure.nonRetryable(error.message, error.name);
    });
    // A sign of life while the attempt waits on the target (its rate limit, its task queue): a third of the
    // heartbeat timeout, so a live attempt is never taken for a dead one and a dead one is noticed soon.
    const beat = setInterval(
      () => this.#activity.heartbeat(this.#lastKey),
      beatEveryMs(this.#activity.info.heartbeatTimeoutMs),
    );
    try {
      return await new PushSlice(this, lease).run();
    } finally {
      clearInterval(beat);
      // Whatever way this attempt ends, none of its writes is in flight any more.
      await index.endAttempt(this.name, lease).catch((error: unknown) => {
        this.log.warn({ err: error, lease }, 'could not record the end of the push attempt');
      });
    }
  }

  heartbeat(key: string | undefined): void {
    this.#lastKey = key;
    this.#activity.heartbeat(key);
  }

  #lastKey: string | undefined;

  /**
   * Before every write to the target: this attempt must still be the push's only one. An attempt that
   * timed out (the worker cancels it locally at its start-to-close timeout) or lost its heartbeat (the
   * server answers the heartbeat with a cancellation) stops before it writes, so the retry Temporal
   * started is never joined by a straggler writing the same documents beside it.
   */
  beforeRemoteWrite(key: string | undefined): void {
    const activity = this.#activity;
    this.#lastKey = key;
    activity.heartbeat(key);
    if (activity.cancellationSignal.aborted) {
      throw new CancelledFailure(
        `push attempt ${activity.info.attempt} to ${this.name} was cancelled (${String(activity.cancellationSignal.reason ?? 'cancelled')}); it writes nothing more`,
      );
    }
  }
}

/** The slice one attempt pushes: the next entries, their context at the target, and what became of each. */
class PushSlice {
  readonly #attempt: PushAttempt;
  readonly #lease: number;
  #next: NextEntry[] = [];
  /** Only an entry an earlier attempt may have written is looked up at the target (PushContext.mayExist). */
  readonly #mayExist = new Set<string>();
  readonly #entries = new Map<string, BookedEntry | null>();
  #known = new Map<string, RemoteRecord>();
  #result: SliceResult = { pushed: 0, failed: [], more: false };

  constructor(attempt: PushAttempt, lease: number) {
    this.#attempt = attempt;
    this.#lease = lease;
  }

  async run(): Promise<PushToTargetResult> {
    const a = this.#attempt;
    const { index } = a.push;
    // What an earlier attempt may still be writing (it lost the lease but its request is on its way) is
    // waited out first: looked up before it lands, it would be found absent and created twice.
    this.#next = await waitForEarlierWrites(
      () => index.next(a.name, a.limit),
      this.#lease,
      a.push.inFlightWaitMs,
      (key) => a.beforeRemoteWrite(key),
    );
    for (const n of this.#next) if (n.mayExist) this.#mayExist.add(n.key);
    this.#result = { pushed: 0, failed: [], more: this.#next.length === a.limit };
    // The targets look up earlier documents synchronously (PushContext.pushed): the records this slice may
    // ask for (the link's invoice, the bill, what a reversal reverses) are read from the index up front,
    // and each push of the slice is added as it is recorded. A key not found here the target finds itself.
    // The slice's entries in one query; a key the ledger does not hold stays null (skipped below).
    const entries = await a.deps.ledger.getMany(this.#next.map((n) => n.key));
    for (const { key } of this.#next) this.#entries.set(key, entries.get(key) ?? null);
    this.#known = await index.remoteMany(
      a.name,
      [...this.#entries.values()].flatMap((e) => (e ? earlierKeys(e) : [])),
    );
    const context = await this.#context();
    // A target that batches (QBO) takes the slice's documents at once; outcomes are recorded in order and
    // the first outage stops there, as one by one would.
    if (a.target.batches && this.#next.length > 1) await this.#batched(context);
    else await this.#oneByOne(context);
    return { ...this.#result, summary: await index.summary(a.name), warning: a.target.warning() };
  }

  async #context(): Promise<PushContext> {
    const refusalCounts = new Map(this.#next.map((n) => [n.key, n.refusals]));
    return {
      pushed: (k: string) => this.#known.get(k) ?? null,
      mayExist: (k: string) => this.#mayExist.has(k),
      refusals: (k: string) => refusalCounts.get(k) ?? 0,
      // The ledger's closed period: its entries are already dated after it; a target locked later dates after its own.
      closedThrough: await this.#attempt.deps.ledger.booksClosedThrough(),
    };
  }

  async #batched(context: PushContext): Promise<void> {
    const a = this.#attempt;
    const { target } = a;
    const first = this.#next[0]?.key;
    a.heartbeat(first);
    const ready: { entry: BookedEntry; document: TargetDocument }[] = [];
    for (const { key } of this.#next) {
      const entry = this.#entries.get(key);
      if (!entry) continue;
      try {
        ready.push({
          entry,
          document: await documentFor(entry, a.push.references, a.deps.ledger, a.target.payoutFacts ?? []),
        });
      } catch (error) {
        await this.#failed(entry, error);
      }
    }
    // A batch of a hundred may wait on the target's rate limit: keep telling Temporal the push lives.
    a.beforeRemoteWrite(first);
    await this.#writeAhead(ready.map((r) => r.entry));
    const outcomes = await inPushSpan(
      a.name,
      ready.map((r) => r.entry.key),
      () =>
        target.pushMany(
          ready.map((r) => r.document),
          context,
        ),
    );
    // The first outage (or lost connection) ends the slice there: later outcomes wait for the retry.
    // A refusal is FAILED only when it is that document's own answer: one error given for several
    // documents (a whole request refused) is no document's verdict, so the first of them is pushed
    // alone for its own answer and the rest stay PENDING for the next slice.
    const answers = new Map<Error, number>();
    for (const o of outcomes) if (o instanceof Error) answers.set(o, (answers.get(o) ?? 0) + 1);
    for (const [i, { entry, document }] of ready.entries()) {
      const outcome = outcomes[i] ?? new Error('no outcome');
      if (!(outcome instanceof Error)) await this.#pushed(entry, outcome, document.kind);
      else if (refusalOf(outcome) === null) throw this.#unavailable(outcome, entry.key);
      else if ((answers.get(outcome) ?? 0) > 1) {
        a.beforeRemoteWrite(entry.key);
        // Marked attempted before the batch: the batch may have reached the target with it.
        this.#mayExist.add(entry.key);
        await this.#pushOne(entry, document, context);
        this.#result.more = true;
        break;
      } else await this.#failed(entry, outcome);
    }
  }

  async #oneByOne(context: PushContext): Promise<void> {
    const a = this.#attempt;
    for (const { key } of this.#next) {
      const entry = this.#entries.get(key);
      if (!entry) continue;
      a.beforeRemoteWrite(key);
      let document: TargetDocument;
      try {
        document = await documentFor(entry, a.push.references, a.deps.ledger, a.target.payoutFacts ?? []);
      } catch (error) {
        await this.#failed(entry, error);
        continue;
      }
      await this.#writeAhead([entry]);
      await this.#pushOne(entry, document, context);
    }
  }

  /** One document to the target, its outcome recorded. */
  async #pushOne(entry: BookedEntry, document: TargetDocument, context: PushContext): Promise<void> {
    const a = this.#attempt;
    try {
      const remote = await inPushSpan(a.name, [entry.key], () => a.target.push(document, context));
      await this.#pushed(entry, remote, document.kind);
    } catch (error) {
      await this.#failed(entry, error);
    }
  }

  /** Marks the entries attempted under this attempt's lease, then (and only then) they may be written. */
  async #writeAhead(refs: BookedEntry[]): Promise<void> {
    const a = this.#attempt;
    try {
      await a.push.index.writeAhead(a.name, this.#lease, refs);
    } catch (error) {
      if (!(error instanceof PushLeaseLostError)) throw error;
      a.log.warn({ lease: this.#lease }, error.message);
      throw ApplicationFailure.retryable(error.message, error.name);
    }
    if (process.env[writeAheadFailpoint] === a.name) process.kill(process.pid, 'SIGKILL');
  }

  async #pushed(entry: BookedEntry, remote: PushResult, kind: string): Promise<void> {
    const a = this.#attempt;
    if (remote.created && process.env[crashFailpoint] === a.name) process.kill(process.pid, 'SIGKILL');
    await a.push.index.record(a.name, entry, { status: 'PUSHED', remoteIds: remote.remoteIds });
    this.#known.set(entry.key, {
      key: entry.key,
      remoteIds: remote.remoteIds,
      contentHash: entry.contentHash,
    });
    this.#result.pushed++;
    a.log.info(
      { entryKey: entry.key, kind, remoteIds: remote.remoteIds, created: remote.created },
      remote.created ? 'entry pushed to accounting target' : 'entry already at accounting target',
    );
  }

  async #failed(entry: BookedEntry, error: unknown): Promise<void> {
    const a = this.#attempt;
    if (error instanceof CancelledFailure) throw error;
    const refusal = refusalOf(error);
    if (refusal === null) throw this.#unavailable(error, entry.key);
    await a.push.index.record(a.name, entry, { status: 'FAILED', reason: refusal });
    this.#result.failed.push({ key: entry.key, reason: refusal });
    a.log.error(
      { entryKey: entry.key, reason: refusal },
      'accounting target refused the entry; marked FAILED',
    );
  }

  #unavailable(error: unknown, key: string): ApplicationFailure {
    const log = this.#attempt.log;
    if (error instanceof TargetDisconnectedError) {
      // Nothing can go until the operator reconnects: the entry stays PENDING, the workflow flags the
      // reason and tries again at its next poll or `targets retry`.
      log.error({ entryKey: key, reason: error.targetMessage }, 'accounting target disconnected');
      return ApplicationFailure.nonRetryable(error.targetMessage, error.name);
    }
    const retryAfterMs = error instanceof TargetUnavailableError ? error.retryAfterMs : undefined;
    const { attempt } = Context.current().info;
    if (retryAfterMs === undefined && attempt >= outageFlaggedAtAttempt) {
      // Still down after a few quick retries (an outage, not a blip): end the attempt so the workflow
      // shows it (WAITING_FOR_TARGET, NeedsAttention, LastError) and tries again at its next poll, a
      // minute on, or at the next ledger write. A rate limit (Retry-After) is waited out instead.
      log.error(
        { entryKey: key, attempt, err: error },
        'accounting target unavailable; flagged, retried at the next poll',
      );
      return ApplicationFailure.nonRetryable(
        error instanceof Error ? error.message : String(error),
        TargetUnavailableError.name,
      );
    }
    log.warn({ entryKey: key, attempt, err: error }, 'accounting target unavailable; the push is retried');
    return ApplicationFailure.create({
      message: error instanceof Error ? error.message : String(error),
      type: error instanceof Error ? error.name : 'Error',
      // At least a second: a zero delay is no delay Temporal honours, and a storm wants a pause.
      ...(retryAfterMs !== undefined ? { nextRetryDelay: Math.max(retryAfterMs, 1_000) } : {}),
    });
  }
}

/**
 * The next entries, once no earlier attempt's write to them may still be in flight: an attempt that timed out
 * while running (or whose worker was killed) marked them and may have a request on its way to the target. Such
 * an attempt can mark nothing more (this attempt holds the lease); the wait ends when it ends (it clears its
 * marks' time), or `waitMs` after its mark, the longest one of its requests can take. Polled every second,
 * telling Temporal this attempt lives and honouring its cancellation.
 */
async function waitForEarlierWrites(
  read: () => Promise<NextEntry[]>,
  lease: number,
  waitMs: number,
  alive: (key: string | undefined) => void,
): Promise<NextEntry[]> {
  for (;;) {
    const next = await read();
    const until = Math.max(
      0,
      ...next
        .filter((n) => n.inFlight !== null && n.inFlight.lease !== lease)
        .map((n) => Date.parse(n.inFlight!.since) + waitMs),
    );
    if (until <= Date.now()) return next;
    alive(next[0]?.key);
    await sleep(Math.min(1_000, until - Date.now()));
  }
}

/** The earlier documents a target may look up while pushing this entry (see PushContext.pushed). */
function earlierKeys(entry: BookedEntry): string[] {
  const keys: string[] = [];
  if (entry.reverses) keys.push(entry.reverses);
  if (entry.links.paymentLinkId) keys.push(`invoice:${entry.links.paymentLinkId}`);
  if (entry.links.billId) keys.push(`bill:${entry.links.billId}`);
  return keys;
}
