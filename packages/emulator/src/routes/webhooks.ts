import { CreateWebhookRequest, type WebhookSubscription } from '@booksync/service-contract/schemas/index';
import type { FastifyInstance } from 'fastify';
import { orgIdOf, requirePermission } from '../auth/authenticate.js';
import type { WebhookSubscriptionRow } from '../domain/rows.js';
import { activeSubscriptions, createWebhookSubscription } from '../domain/webhook-subscriptions.js';
import type { RouteDeps } from './deps.js';
import { parseInput } from './input.js';

export function webhookSubscriptionView(row: WebhookSubscriptionRow): WebhookSubscription {
  return { id: row.id, url: row.url, secret: row.secret, createdAt: row.created_at };
}

export function webhookRoutes(app: FastifyInstance, { store }: RouteDeps): void {
  // Decision “Webhook subscription”: replaces the API subscription; needs WEBHOOKS_MANAGE.
  app.post('/webhook', async (request, reply) => {
    requirePermission(request, 'WEBHOOKS_MANAGE');
    const input = parseInput(CreateWebhookRequest, request.body);
    const orgId = orgIdOf(request);
    const row = store.write((tx) => createWebhookSubscription(tx, orgId, input.url));
    request.log.info({ webhookId: row.id }, 'webhook subscription created');
    return reply.code(201).send(webhookSubscriptionView(row));
  });

  app.get('/webhook', async (request) => {
    const orgId = orgIdOf(request);
    return { webhooks: store.read((r) => activeSubscriptions(r, orgId, 'API')).map(webhookSubscriptionView) };
  });
}
