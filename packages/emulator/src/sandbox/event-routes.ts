import { CreateWebhookRequest, pageQuery } from '@booksync/service-contract/schemas/index';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { orgIdOf } from '../auth/authenticate.js';
import { type DeliveryAttemptRow, eventAttempts, getEventRow, listEvents } from '../domain/events.js';
import { activeSubscriptions, createWebhookSubscription } from '../domain/webhook-subscriptions.js';
import { notFound } from '../errors.js';
import type { RouteDeps } from '../routes/deps.js';
import { parseInput } from '../routes/input.js';
import { webhookSubscriptionView } from '../routes/webhooks.js';
import type { EventRow } from '../store/store.js';
import { eventEnvelope } from '../webhooks/envelope.js';

const ListEventsQuery = z.object({ ...pageQuery, category: z.string().optional() });

function attemptView(row: DeliveryAttemptRow) {
  return {
    subscriptionId: row.subscription_id,
    attempt: row.attempt,
    attemptedAt: row.attempted_at,
    statusCode: row.status_code,
    error: row.error,
    durationMs: row.duration_ms,
  };
}

function logEntryView(event: EventRow, attempts: DeliveryAttemptRow[]) {
  return {
    event: eventEnvelope(event),
    dispatchedAt: event.dispatched_at,
    attempts: attempts.map(attemptView),
  };
}

/** Decision “Webhook delivery” delivery log, redelivery, and the legacy unsigned subscription (decision “Webhook subscription”). */
export function sandboxEventRoutes(app: FastifyInstance, { store, relay }: RouteDeps): void {
  app.get('/sandbox/events', async (request) => {
    const query = parseInput(ListEventsQuery, request.query, 'query');
    const orgId = orgIdOf(request);
    return store.read((r) => {
      const { rows, total } = listEvents(r, orgId, query);
      return { events: rows.map((row) => logEntryView(row, eventAttempts(r, row.id))), totalResults: total };
    });
  });

  app.get<{ Params: { eventId: string } }>('/sandbox/events/:eventId', async (request) => {
    const orgId = orgIdOf(request);
    return store.read((r) => {
      const row = getEventRow(r, orgId, request.params.eventId);
      if (!row) throw notFound('event', request.params.eventId);
      return logEntryView(row, eventAttempts(r, row.id));
    });
  });

  /** Sends the event again, same id, to the organization's current subscriptions. */
  app.post<{ Params: { eventId: string } }>('/sandbox/events/:eventId/redeliver', async (request, reply) => {
    const orgId = orgIdOf(request);
    const { row, targets } = store.read((r) => {
      const event = getEventRow(r, orgId, request.params.eventId);
      if (!event) throw notFound('event', request.params.eventId);
      return { row: event, targets: activeSubscriptions(r, orgId) };
    });
    for (const target of targets)
      relay.send(
        row,
        { subscriptionId: target.id, url: target.url, secret: target.secret },
        { redelivery: true },
      );
    return reply.code(202).send({ message: `redelivering to ${targets.length} subscription(s)` });
  });

  app.post('/sandbox/webhook/legacy', async (request, reply) => {
    const input = parseInput(CreateWebhookRequest, request.body);
    const orgId = orgIdOf(request);
    const row = store.write((tx) => createWebhookSubscription(tx, orgId, input.url, 'LEGACY'));
    return reply.code(201).send(webhookSubscriptionView(row));
  });
}
