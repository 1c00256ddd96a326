import type { Logger } from '../../logging/logger.js';
import { activeSubscriptions } from '../domain/webhook-subscriptions.js';
import type { EventRow, Store } from '../store/store.js';
import { nextAttemptNumber } from './delivery-attempt.js';
import type { DeliveryTarget, WebhookDispatcher } from './dispatcher.js';
import { eventEnvelope } from './envelope.js';

/**
 * The outbox's other half: after commit, hands each event to the dispatcher once per active subscription of
 * its organization and marks it dispatched. Runs again at startup for rows a crash left behind.
 */
export class OutboxRelay {
  private readonly store: Store;
  private readonly dispatcher: WebhookDispatcher;
  private readonly logger: Logger;
  constructor(store: Store, dispatcher: WebhookDispatcher, logger: Logger) {
    this.store = store;
    this.dispatcher = dispatcher;
    this.logger = logger;
  }

  relay(events: EventRow[]): void {
    for (const event of events) {
      const targets = this.store.read((reader) => activeSubscriptions(reader, event.org_id));
      this.store.db
        .prepare('UPDATE events SET dispatched_at = ? WHERE id = ?')
        .run(this.store.clock.now().toISOString(), event.id);
      this.logger.info(
        {
          orgId: event.org_id,
          eventId: event.id,
          category: event.category,
          objectId: event.associated_object_id,
        },
        'event emitted',
      );
      for (const target of targets)
        this.send(event, { subscriptionId: target.id, url: target.url, secret: target.secret });
    }
  }

  send(event: EventRow, target: DeliveryTarget, { redelivery = false } = {}): void {
    const envelope = eventEnvelope(event);
    const sent =
      redelivery && this.dispatcher.redeliver
        ? this.dispatcher.redeliver(
            envelope,
            target,
            nextAttemptNumber(this.store, event.id, target.subscriptionId),
          )
        : this.dispatcher.dispatch(envelope, target);
    sent.catch((error: unknown) => {
      this.logger.error({ err: error, orgId: event.org_id, eventId: event.id }, 'webhook dispatch failed');
    });
  }
}
