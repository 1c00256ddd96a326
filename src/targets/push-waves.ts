import { isTargetRefusal } from './errors.js';
import type { PushContext, PushResult, RemoteRecord, TargetDocument } from './target-port.js';

// How a target that creates many documents in one request (QuickBooks' batch endpoint, Xero's collections)
// pushes a backlog: in waves, round by round. A round goes through the documents not settled yet: each is
// settled at once (found, pushed one by one, refused), queued into the wave, or deferred to the next round
// when it needs one that the wave (or this round's deferred) still has to create, a payment and its invoice
// say; then the wave is created. So an invoice and its payment cost two waves for the whole backlog, not two
// requests per pair. Each target gives how it plans, queues and creates a document.

/** A planned document needs one that is created in the wave being gathered: send that wave first. */
export class WaitForWave extends Error {}

/** A refusal of this one document (push() would have thrown it); anything else stops the backlog. */
export async function refusalOrThrow(run: () => Promise<PushResult>): Promise<PushResult | Error> {
  try {
    return await run();
  } catch (error) {
    if (!isTargetRefusal(error)) throw error;
    return error as Error;
  }
}

/** A document's place in the round: settled (its outcome), queued into the wave, or deferred to the next round. */
export type Placed = PushResult | Error | 'queued' | 'deferred';

/** What a target does in the waves. */
export interface WaveSteps {
  /**
   * A document of the round (not a reversal): its outcome, or 'queued' once it is in the wave (after
   * `waves.queue`; a full wave may be created at once with `create`), or 'deferred'. A WaitForWave thrown
   * (from `waves.context`) defers it; a refusal settles it; anything else stops the backlog.
   */
  place(doc: TargetDocument, i: number): Promise<Placed>;
  /** Before a round's documents are placed: what they will read may be read for all of them at once. */
  beforeRound?(round: number[]): Promise<void>;
  /** A reversal, pushed one by one once its original is no longer waiting. */
  reverse(doc: TargetDocument): Promise<PushResult>;
  /** Creates what the wave holds, settling each with `waves.settle`, and ends with `waves.created()`. */
  create(): Promise<void>;
  /** After a round's wave: 'stop' ends the waves (the target settled the deferred itself). */
  afterRound?(deferred: number[], round: number[]): 'stop' | undefined;
}

/** The state of the waves: what is in the wave, what waits for the next round, what the waves created. */
export class PushWaves {
  private readonly createdRecords = new Map<string, RemoteRecord>();
  private readonly inWave = new Set<string>();
  private readonly deferredKeys = new Set<string>();
  /** The push context the waves' documents are planned with: a key still to be created waits. */
  readonly context: PushContext;

  readonly outcomes: (PushResult | Error | undefined)[];
  constructor(outcomes: (PushResult | Error | undefined)[], outer: PushContext) {
    this.outcomes = outcomes;
    this.context = {
      pushed: (key) => {
        if (this.inWave.has(key) || this.deferredKeys.has(key)) throw new WaitForWave();
        return this.createdRecords.get(key) ?? outer.pushed(key);
      },
      mayExist: (key) => outer.mayExist(key),
      refusals: (key) => outer.refusals(key),
      closedThrough: outer.closedThrough ?? null,
    };
  }

  /** The document is in the wave being gathered. */
  queue(key: string): void {
    this.inWave.add(key);
  }

  /**
   * A document of the wave created (or refused): its outcome, and the record later documents of the waves
   * find for its key (the outcome unless it is an error; a target may give the record it created even so).
   */
  settle(
    i: number,
    key: string,
    outcome: PushResult | Error,
    record: RemoteRecord | null = outcome instanceof Error ? null : outcome,
  ): void {
    this.outcomes[i] = outcome;
    if (record) this.createdRecords.set(key, record);
  }

  /** The wave is created: a new one is gathered. */
  created(): void {
    this.inWave.clear();
  }

  /** Round by round until every document is settled (or `afterRound` stops). */
  async run(documents: TargetDocument[], steps: WaveSteps): Promise<void> {
    const outcomes = this.outcomes;
    let round = documents.flatMap((_doc, i) => (outcomes[i] ? [] : [i]));
    while (round.length > 0) {
      const deferred: number[] = [];
      this.deferredKeys.clear();
      await steps.beforeRound?.(round);
      for (const i of round) {
        const doc = documents[i] as TargetDocument;
        const defer = () => {
          deferred.push(i);
          this.deferredKeys.add(doc.key);
        };
        try {
          if (doc.kind === 'reversal') {
            if (doc.reverses && (this.inWave.has(doc.reverses) || this.deferredKeys.has(doc.reverses)))
              defer();
            else outcomes[i] = await refusalOrThrow(() => steps.reverse(doc));
            continue;
          }
          const placed = await steps.place(doc, i);
          if (placed === 'deferred') defer();
          else if (placed !== 'queued') outcomes[i] = placed;
        } catch (error) {
          if (error instanceof WaitForWave) defer();
          else if (isTargetRefusal(error)) outcomes[i] = error as Error;
          else throw error;
        }
      }
      await steps.create();
      if (steps.afterRound?.(deferred, round) === 'stop') break;
      round = deferred;
    }
  }
}
