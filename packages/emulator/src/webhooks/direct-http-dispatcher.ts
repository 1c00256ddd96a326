import { setTimeout as sleep } from 'node:timers/promises';
import type { EventEnvelope } from '@booksync/service-contract/schemas/index';
import type { Store } from '../store/store.js';
import {
  attemptDelivery,
  buildSignedDelivery,
  nextAttemptNumber,
  recordDeliveryAttempt,
} from './delivery-attempt.js';
import type { DeliveryTarget, WebhookDispatcher } from './dispatcher.js';

/** 6.3: 3 s, 6 s, 12 s, 24 s between attempts, 5 attempts in all. */
export const defaultBackoffMs: readonly number[] = [3_000, 6_000, 12_000, 24_000];

export interface DirectHttpDispatcherOptions {
  store: Store;
  /** Waits between attempts; its length + 1 is the number of attempts. Tests pass milliseconds. */
  backoffMs?: readonly number[];
  /** Per attempt (decision “Webhook delivery”: 10 s). */
  timeoutMs?: number;
  /** Wall-clock for the signature's t; real time by default (receivers check it against theirs). */
  now?: () => number;
}

/** An in-process sender: no durability across restarts (the Temporal dispatcher is the durable one). */
export class DirectHttpDispatcher implements WebhookDispatcher {
  private readonly backoffMs: readonly number[];
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly inFlight = new Set<Promise<void>>();

  private readonly options: DirectHttpDispatcherOptions;
  constructor(options: DirectHttpDispatcherOptions) {
    this.options = options;
    this.backoffMs = options.backoffMs ?? defaultBackoffMs;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  dispatch(event: EventEnvelope, subscription: DeliveryTarget): Promise<void> {
    const run = this.deliver(event, subscription).finally(() => this.inFlight.delete(run));
    this.inFlight.add(run);
    return run;
  }

  /** Resolves when every delivery under way has finished (delivered or attempts spent). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async deliver(event: EventEnvelope, subscription: DeliveryTarget): Promise<void> {
    const first = nextAttemptNumber(this.options.store, event.id, subscription.subscriptionId);
    for (let i = 0; i <= this.backoffMs.length; i++) {
      const attemptedAt = new Date(this.now());
      const delivery = buildSignedDelivery(event, subscription, attemptedAt.getTime());
      const result = await attemptDelivery(delivery, this.timeoutMs);
      // The emulator was closed mid-delivery (a test ended): nothing left to record into.
      if (!this.options.store.db.open) return;
      recordDeliveryAttempt(this.options.store, {
        eventId: event.id,
        subscriptionId: subscription.subscriptionId,
        attempt: first + i,
        attemptedAt,
        statusCode: result.statusCode,
        error: result.error,
        durationMs: result.durationMs,
      });
      if (result.ok) return;
      const wait = this.backoffMs[i];
      if (wait === undefined) return;
      await sleep(wait);
    }
  }
}
