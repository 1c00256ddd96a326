import type { EventEnvelope } from '@booksync/service-contract/schemas/index';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Store } from '../store/store.js';
import { attemptDelivery, buildSignedDelivery, recordDeliveryAttempt } from './delivery-attempt.js';

export interface DeliverWebhookAttemptInput {
  eventId: string;
  /** The JSON body, delivered byte for byte on every attempt. */
  envelope: string;
  subscriptionId: string;
  url: string;
  /** False for the legacy subscription (6.1 rule 3). The secret itself is looked up, never put in history. */
  signed: boolean;
  /** The delivery-log number of this workflow's first attempt; redeliveries continue the count (E14). Default 1. */
  firstAttempt?: number;
}

export interface AttemptOutcome {
  /** Temporal's attempt number within this delivery (1-based). */
  attempt: number;
  /** The HTTP status, or null when no answer arrived. */
  statusCode: number | null;
}

export interface DeliveryActivitiesOptions {
  /** The emulator's store: subscription secrets and the delivery log. */
  store: Store;
  /** Per HTTP attempt (decision “Webhook delivery”: 10 s). */
  timeoutMs?: number;
  /** Wall clock for the signature's t and the log; receivers check t against theirs. */
  now?: () => number;
}

export type DeliveryActivities = ReturnType<typeof createDeliveryActivities>;

export function createDeliveryActivities({
  store,
  timeoutMs = 10_000,
  now = Date.now,
}: DeliveryActivitiesOptions) {
  return {
    /** One signed POST; throws (retryable) unless the receiver answers 2xx (6.3 rule 1). */
    async deliverWebhookAttempt(input: DeliverWebhookAttemptInput): Promise<AttemptOutcome> {
      const { attempt } = Context.current().info;
      const secret = input.signed ? subscriptionSecret(store, input.subscriptionId) : null;
      const attemptedAt = new Date(now());
      const delivery = buildSignedDelivery(
        JSON.parse(input.envelope) as EventEnvelope,
        { subscriptionId: input.subscriptionId, url: input.url, secret },
        attemptedAt.getTime(),
      );
      if (delivery.body !== input.envelope)
        throw ApplicationFailure.nonRetryable('envelope is not in canonical form', 'EnvelopeNotCanonical');

      const result = await attemptDelivery(delivery, timeoutMs);
      // The emulator was closed mid-delivery (a test ended): nothing left to record into.
      if (store.db.open)
        recordDeliveryAttempt(store, {
          eventId: input.eventId,
          subscriptionId: input.subscriptionId,
          attempt: (input.firstAttempt ?? 1) + attempt - 1,
          attemptedAt,
          statusCode: result.statusCode,
          error: result.error,
          durationMs: result.durationMs,
        });

      const outcome: AttemptOutcome = { attempt, statusCode: result.statusCode };
      if (!result.ok) throw ApplicationFailure.retryable(result.error, 'WebhookNotAcknowledged', outcome);
      return outcome;
    },
  };
}

/** A signed subscription's secret; rows are replaced, never edited, so the secret of an id never changes. */
function subscriptionSecret(store: Store, subscriptionId: string): string {
  const row = store.read(
    (reader) =>
      reader.db.prepare('SELECT secret FROM webhook_subscriptions WHERE id = ?').get(subscriptionId) as
        | { secret: string | null }
        | undefined,
  );
  if (!row?.secret)
    throw ApplicationFailure.nonRetryable(
      `subscription ${subscriptionId} has no secret`,
      'UnknownSubscription',
      {
        attempt: Context.current().info.attempt,
        statusCode: null,
      } satisfies AttemptOutcome,
    );
  return row.secret;
}
