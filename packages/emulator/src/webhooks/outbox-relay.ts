import { activeSubscriptions } from '../domain/webhook-subscriptions.js';
import type { Logger } from '../logger.js';
import type { EventRow, Store } from '../store/store.js';
import { nextAttemptNumber } from './delivery-attempt.js';
import type { DeliveryTarget, WebhookDispatcher } from './dispatcher.js';
import { eventEnvelope } from './envelope.js';

/** How held deliveries go out when released: in the order the events happened, or last first. */
export const releaseOrders = ['as-happened', 'reversed'] as const;
export type ReleaseOrder = (typeof releaseOrders)[number];

/**
 * The outbox's other half: after commit, hands each event to the dispatcher once per active subscription of
 * its organization and marks it dispatched. Runs again at startup for rows a crash left behind.
 *
 * A sandbox control holds an organization's deliveries (a receiver that looks late, or a network that
 * delays): its events stay undispatched, in memory and in the outbox, until released, then go out in the
 * order asked, each as many times as asked. A restart ends the hold; the startup relay sends what it held.
 */
export class OutboxRelay {
  private readonly store: Store;
  private readonly dispatcher: WebhookDispatcher;
  private readonly logger: Logger;
  private readonly held = new Map<string, EventRow[]>();
  constructor(store: Store, dispatcher: WebhookDispatcher, logger: Logger) {
    this.store = store;
    this.dispatcher = dispatcher;
    this.logger = logger;
  }

  /** From now on the organization's events wait for release() instead of going out. */
  hold(orgId: string): void {
    if (!this.held.has(orgId)) this.held.set(orgId, []);
  }

  isHeld(orgId: string): boolean {
    return this.held.has(orgId);
  }

  /**
   * Ends the hold: every held event is dispatched in `order` to the subscriptions active now, then sent
   * again (as a redelivery) until each went out `times` times. Answers how many events were held.
   */
  release(orgId: string, { order, times }: { order: ReleaseOrder; times: number }): number {
    const events = this.held.get(orgId) ?? [];
    this.held.delete(orgId);
    const ordered = order === 'reversed' ? [...events].reverse() : events;
    this.relay(ordered);
    const targets = this.store.read((reader) => activeSubscriptions(reader, orgId));
    for (let copy = 1; copy < times; copy++)
      for (const event of ordered)
        for (const target of targets)
          this.send(
            event,
            { subscriptionId: target.id, url: target.url, secret: target.secret },
            { redelivery: true },
          );
    return events.length;
  }

  relay(events: EventRow[]): void {
    for (const event of events) {
      const waiting = this.held.get(event.org_id);
      if (waiting) {
        waiting.push(event);
        continue;
      }
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
