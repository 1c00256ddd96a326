import type { EventEnvelope } from '@booksync/service-contract/schemas/index';

/** Where an event goes: the organization's API subscription (signed) or its legacy one (secret null, unsigned). */
export interface DeliveryTarget {
  subscriptionId: string;
  url: string;
  secret: string | null;
}

/**
 * The port the emulator calls after a transaction that emitted events has committed, once per event and
 * subscription. Implementations decide how (and whether) to deliver; a rejected promise is logged, never
 * retried by the caller.
 */
export interface WebhookDispatcher {
  dispatch(event: EventEnvelope, subscription: DeliveryTarget): Promise<void>;
  /**
   * A redelivery the sandbox asked for (POST /sandbox/events/{id}/redeliver); its attempts are numbered from
   * `firstAttempt` (E14). Optional: without it, redeliveries go through `dispatch` again.
   */
  redeliver?(event: EventEnvelope, subscription: DeliveryTarget, firstAttempt: number): Promise<void>;
}
