import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { BookedEntry } from '../src/accounting/entry.js';
import {
  documentFor,
  type ReferenceData,
  UnknownDocumentKindError,
} from '../src/accounting/targets/documents.js';
import {
  nonRetryableTargetErrors,
  TargetDisconnectedError,
  TargetUnavailableError,
} from '../src/accounting/targets/errors.js';
import {
  type NextEntry,
  PushLeaseLostError,
  type TargetIndexStore,
  type TargetSummary,
} from '../src/accounting/targets/target-index.js';
import type {
  AccountingTarget,
  PushResult,
  RemoteRecord,
  TargetDocument,
} from '../src/accounting/targets/target-port.js';
import { ServiceError } from '../src/service/errors.js';
import { inPushSpan } from '../src/telemetry/tracing.js';
import { type ActivityDependencies, activityLogger } from './context.js';

/** What the push needs besides the other activities' dependencies; built by the worker when targets exist. */
export interface TargetPushDependencies {
  targets: ReadonlyMap<string, AccountingTarget>;
  index: TargetIndexStore;
  references: ReferenceData;
  /**
   * PUSH_IN_FLIGHT_WAIT_SECONDS in ms: the longest an attempt waits for an earlier attempt's write still in
   * flight (waitForEarlierWrites) before it looks the entry up at the target.
   */
  inFlightWaitMs: number;
}

export interface PushToTargetInput {
  target: string;
  /** At most this many entries per activity run, so a backlog is pushed in heartbeated slices. */
  limit: number;
}

export interface PushToTargetResult {
  pushed: number;
  /** Entries this run marked FAILED, with the target's message. */
  failed: { key: string; reason: string }[];
  /** true when the slice was full: more entries wait. */
  more: boolean;
  summary: TargetSummary;
  /** The target's warning after this slice (AccountingTarget.warning); absent from older results. */
  warning?: string | null;
}

export interface RequeueTargetEntriesInput {
  target: string;
  keys: 'failed' | string[];
}

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

export function createAccountingTargetActivities(deps: ActivityDependencies) {
  const push = () => {
    if (!deps.targets)
      throw ApplicationFailure.nonRetryable('no accounting target configured', 'NoTargetError');
    return deps.targets;
  };
  const targetOf = (name: string): AccountingTarget => {
    const target = push().targets.get(name);
    if (!target) throw ApplicationFailure.nonRetryable(`unknown accounting target ${name}`, 'NoTargetError');
    return target;
  };

  return {
    /**
     * Pushes the next entries, in posting order, to one target. Each entry ends PUSHED or FAILED (a refusal
     * retrying cannot fix, with the target's message) and the slice goes on; an outage or rate limit fails
     * the activity, which Temporal retries (after the target's Retry-After), resuming at the same entry.
     */
    async pushToTarget({ target: name, limit }: PushToTargetInput): Promise<PushToTargetResult> {
      const { index, references } = push();
      const target = targetOf(name);
      const log = activityLogger(deps, { target: name });
      const activity = Context.current();
      /**
       * Before every write to the target: this attempt must still be the push's only one. An attempt that
       * timed out (the worker cancels it locally at its start-to-close timeout) or lost its heartbeat (the
       * server answers the heartbeat with a cancellation) stops before it writes, so the retry Temporal
       * started is never joined by a straggler writing the same documents beside it.
       */
      const beforeRemoteWrite = (key: string | undefined) => {
        activity.heartbeat(key);
        if (activity.cancellationSignal.aborted) {
          throw new CancelledFailure(
            `push attempt ${activity.info.attempt} to ${name} was cancelled (${String(activity.cancellationSignal.reason ?? 'cancelled')}); it writes nothing more`,
          );
        }
      };
      // This attempt's fencing token: from here on an earlier attempt (timed out, still running somewhere)
      // can mark nothing attempted, so it creates nothing.
      const lease = await index.lease(name);
      try {
        return await pushSlice(lease);
      } finally {
        // Whatever way this attempt ends, none of its writes is in flight any more.
        await index.endAttempt(name, lease).catch((error: unknown) => {
          log.warn({ err: error, lease }, 'could not record the end of the push attempt');
        });
      }

      async function pushSlice(lease: number): Promise<PushToTargetResult> {
        // What an earlier attempt may still be writing (it lost the lease but its request is on its way) is
        // waited out first: looked up before it lands, it would be found absent and created twice.
        const next = await waitForEarlierWrites(
          () => index.next(name, limit),
          lease,
          deps.targets?.inFlightWaitMs ?? 0,
          beforeRemoteWrite,
        );
        // Only an entry an earlier attempt may have written is looked up at the target (PushContext.mayExist).
        const mayExist = new Set(next.filter((n) => n.mayExist).map((n) => n.key));
        const refusals = new Map(next.map((n) => [n.key, n.refusals]));
        /** Marks the entries attempted under this attempt's lease, then (and only then) they may be written. */
        const writeAhead = async (refs: BookedEntry[]) => {
          try {
            await index.writeAhead(name, lease, refs);
          } catch (error) {
            if (!(error instanceof PushLeaseLostError)) throw error;
            log.warn({ lease }, error.message);
            throw ApplicationFailure.retryable(error.message, error.name);
          }
          if (process.env[writeAheadFailpoint] === name) process.kill(process.pid, 'SIGKILL');
        };
        const result: Omit<PushToTargetResult, 'summary'> = {
          pushed: 0,
          failed: [],
          more: next.length === limit,
        };
        // The targets look up earlier documents synchronously (PushContext.pushed): the records this slice may
        // ask for (the link's invoice, the bill, what a reversal reverses) are read from the index up front,
        // and each push of the slice is added as it is recorded. A key not found here the target finds itself.
        const entries = new Map<string, BookedEntry | null>();
        for (const { key } of next) entries.set(key, await deps.ledger.get(key));
        const known: Map<string, RemoteRecord> = await index.remoteMany(
          name,
          [...entries.values()].flatMap((e) => (e ? earlierKeys(e) : [])),
        );
        const context = {
          pushed: (k: string) => known.get(k) ?? null,
          mayExist: (k: string) => mayExist.has(k),
          refusals: (k: string) => refusals.get(k) ?? 0,
          // The ledger's closed period: its entries are already dated after it; a target locked later dates after its own.
          closedThrough: await deps.ledger.booksClosedThrough(),
        };
        const pushed = async (entry: BookedEntry, remote: PushResult, kind: string) => {
          if (remote.created && process.env[crashFailpoint] === name) process.kill(process.pid, 'SIGKILL');
          await index.record(name, entry, { status: 'PUSHED', remoteIds: remote.remoteIds });
          known.set(entry.key, {
            key: entry.key,
            remoteIds: remote.remoteIds,
            contentHash: entry.contentHash,
          });
          result.pushed++;
          log.info(
            { entryKey: entry.key, kind, remoteIds: remote.remoteIds, created: remote.created },
            remote.created ? 'entry pushed to accounting target' : 'entry already at accounting target',
          );
        };
        const failed = async (entry: BookedEntry, error: unknown) => {
          if (error instanceof CancelledFailure) throw error;
          const refusal = refusalOf(error);
          if (refusal === null) throw unavailable(error, entry.key);
          await index.record(name, entry, { status: 'FAILED', reason: refusal });
          result.failed.push({ key: entry.key, reason: refusal });
          log.error(
            { entryKey: entry.key, reason: refusal },
            'accounting target refused the entry; marked FAILED',
          );
        };
        const unavailable = (error: unknown, key: string) => {
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
          log.warn(
            { entryKey: key, attempt, err: error },
            'accounting target unavailable; the push is retried',
          );
          return ApplicationFailure.create({
            message: error instanceof Error ? error.message : String(error),
            type: error instanceof Error ? error.name : 'Error',
            // At least a second: a zero delay is no delay Temporal honours, and a storm wants a pause.
            ...(retryAfterMs !== undefined ? { nextRetryDelay: Math.max(retryAfterMs, 1_000) } : {}),
          });
        };

        // A target that batches (QBO) takes the slice's documents at once; outcomes are recorded in order and
        // the first outage stops there, as one by one would.
        if (target.batches && next.length > 1) {
          const pushMany = target.pushMany.bind(target);
          activity.heartbeat(next[0]?.key);
          const ready: { entry: BookedEntry; document: TargetDocument }[] = [];
          for (const { key } of next) {
            const entry = entries.get(key);
            if (!entry) continue;
            try {
              ready.push({ entry, document: await documentFor(entry, references, deps.ledger) });
            } catch (error) {
              await failed(entry, error);
            }
          }
          // A batch of a hundred may wait on the target's rate limit: keep telling Temporal the push lives.
          beforeRemoteWrite(next[0]?.key);
          await writeAhead(ready.map((r) => r.entry));
          const beat = setInterval(() => activity.heartbeat(next[0]?.key), 10_000);
          const outcomes = await inPushSpan(
            name,
            ready.map((r) => r.entry.key),
            () =>
              pushMany(
                ready.map((r) => r.document),
                context,
              ),
          ).finally(() => clearInterval(beat));
          // The first outage (or lost connection) ends the slice there: later outcomes wait for the retry.
          // A refusal is FAILED only when it is that document's own answer: one error given for several
          // documents (a whole request refused) is no document's verdict, so the first of them is pushed
          // alone for its own answer and the rest stay PENDING for the next slice.
          const answers = new Map<Error, number>();
          for (const o of outcomes) if (o instanceof Error) answers.set(o, (answers.get(o) ?? 0) + 1);
          for (const [i, { entry, document }] of ready.entries()) {
            const outcome = outcomes[i] ?? new Error('no outcome');
            if (!(outcome instanceof Error)) await pushed(entry, outcome, document.kind);
            else if (refusalOf(outcome) === null) throw unavailable(outcome, entry.key);
            else if ((answers.get(outcome) ?? 0) > 1) {
              beforeRemoteWrite(entry.key);
              // Marked attempted before the batch: the batch may have reached the target with it.
              mayExist.add(entry.key);
              try {
                const remote = await inPushSpan(name, [entry.key], () => target.push(document, context));
                await pushed(entry, remote, document.kind);
              } catch (error) {
                await failed(entry, error);
              }
              result.more = true;
              break;
            } else await failed(entry, outcome);
          }
          return { ...result, summary: await index.summary(name), warning: target.warning() };
        }

        for (const { key } of next) {
          const entry = entries.get(key);
          if (!entry) continue;
          beforeRemoteWrite(key);
          let document: TargetDocument;
          try {
            document = await documentFor(entry, references, deps.ledger);
          } catch (error) {
            await failed(entry, error);
            continue;
          }
          await writeAhead([entry]);
          try {
            const remote = await inPushSpan(name, [key], () => target.push(document, context));
            await pushed(entry, remote, document.kind);
          } catch (error) {
            await failed(entry, error);
          }
        }
        return { ...result, summary: await index.summary(name), warning: target.warning() };
      }
    },

    /** `booksync targets retry`: FAILED entries (all, or the keys given) are queued for the next push. */
    async requeueTargetEntries({ target, keys }: RequeueTargetEntriesInput): Promise<number> {
      const requeued = await push().index.requeue(target, keys);
      activityLogger(deps, { target }).info({ requeued, keys }, 'target entries queued again');
      return requeued;
    },
  };
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

export type AccountingTargetActivities = ReturnType<typeof createAccountingTargetActivities>;
