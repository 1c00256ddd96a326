import type { EventEnvelope } from '@booksync/service-contract/schemas/index';
import type { DeliveryTarget, WebhookDispatcher } from './dispatcher.js';

/** Delivers nothing: tests read the outbox (GET /sandbox/events) or `dispatched` instead. */
export class RecordingDispatcher implements WebhookDispatcher {
  readonly dispatched: { event: EventEnvelope; subscription: DeliveryTarget }[] = [];

  async dispatch(event: EventEnvelope, subscription: DeliveryTarget): Promise<void> {
    this.dispatched.push({ event, subscription });
  }

  categories(): string[] {
    return this.dispatched.map((entry) => entry.event.category);
  }
}
