import type { Client } from '@temporalio/client';
import type { FastifyError, FastifyPluginAsync } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ServiceEventSignal } from '../../flows/in-workflow/service-event.js';
import { type AuthenticationPolicy, authenticateDelivery } from '../authentication.js';
import { parseEnvelope } from '../envelope.js';
import { IngressError, toErrorReply } from '../errors.js';
import type { IngressMetrics } from '../metrics.js';
import { routeEvent } from '../routing.js';
import { invalidArgumentDetails, signalServiceEvent } from '../temporal-signal.js';
import type { UnroutedEvents } from '../unrouted-events.js';

export interface WebhookRoutesOptions {
  temporalClient: Client;
  taskQueue: string;
  authentication: AuthenticationPolicy;
  bodyLimitBytes: number;
  signalTimeoutMs: number;
  metrics: IngressMetrics;
  unrouted: UnroutedEvents;
}

const errorBody = z.object({ error: z.string(), code: z.string().optional() });

// The route's schemas in zod through the same type provider as the command API (fastify-type-provider-zod).
// No body schema: the signature covers the exact bytes, so the body stays the raw buffer the parser below keeps.
const schema = {
  // Loose: a delivery carries many other headers, and validation must not strip them from the request.
  headers: z.looseObject({ 'service-signature': z.string().optional() }),
  response: {
    200: z.object({ received: z.boolean(), routed: z.boolean(), workflowId: z.string().optional() }),
    '4xx': errorBody,
    '5xx': errorBody,
  },
};

/**
 * POST /webhooks/service (spec part 6). Not wrapped in fastify-plugin on purpose: the raw-body JSON parser
 * below must stay scoped to this route, since the signature covers the exact bytes received.
 */
export const webhookRoutes: FastifyPluginAsync<WebhookRoutesOptions> = async (app, options) => {
  const { metrics, unrouted } = options;

  // Only application/json is a delivery (6.2); every other media type is a 415 from Fastify.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: options.bodyLimitBytes },
    (_request, body, done) => done(null, body),
  );

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  app.addHook('onRequest', async () => {
    metrics.deliveriesReceived.inc();
  });
  // Every 4xx of this route, including Fastify's own 413/415, counted once by its reason code.
  app.addHook('onError', async (_request, _reply, error: FastifyError) => {
    const { statusCode, body } = toErrorReply(error);
    if (statusCode < 500) metrics.deliveriesRejected.inc({ reason: body.code ?? `http_${statusCode}` });
  });

  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.post('/webhooks/service', { schema, bodyLimit: options.bodyLimitBytes }, async (request, reply) => {
    // A POST without a body never goes through the parser above.
    const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const mode = authenticateDelivery(rawBody, request.headers['service-signature'], options.authentication);
    metrics.deliveriesVerified.inc({ mode });

    const envelope = parseEnvelope(rawBody);
    const event: ServiceEventSignal = {
      eventId: envelope.id,
      category: envelope.category,
      objectType: envelope.associated_object_type,
      objectId: envelope.associated_object_id,
      createdAt: envelope.created_at,
    };
    // From here every line about this request names the event, Fastify's "request completed" included.
    let log = request.log.child({
      eventId: event.eventId,
      category: event.category,
      objectId: event.objectId,
    });
    request.log = log;
    reply.log = log;

    const route = routeEvent(event.category, event.objectId);
    if (route === undefined) {
      unrouted.record({ ...event, receivedAt: new Date().toISOString() });
      metrics.unroutedEvents.inc();
      log.warn(
        { objectType: event.objectType, mode },
        'event category not routed; acknowledged and recorded',
      );
      return { received: true, routed: false };
    }

    log = log.child({ workflowId: route.workflowId, workflowType: route.workflowType });
    request.log = log;
    reply.log = log;
    try {
      await signalServiceEvent(
        options.temporalClient,
        options.taskQueue,
        route,
        event,
        options.signalTimeoutMs,
      );
    } catch (err) {
      const refused = invalidArgumentDetails(err);
      if (refused !== undefined) {
        // Permanent: a 503 would have the sender retry what Temporal refuses every time.
        log.warn({ err }, 'Temporal refused the event; answering 400');
        throw new IngressError(400, 'rejected_by_temporal', `Temporal refused the event: ${refused}`);
      }
      metrics.signalFailures.inc({ workflow_type: route.workflowType });
      log.error({ err }, 'Temporal did not accept the signal; answering 503 so the sender retries');
      throw new IngressError(
        503,
        'temporal_unavailable',
        'could not hand the event to Temporal; retry later',
      );
    }
    metrics.signalsSent.inc({ workflow_type: route.workflowType });
    log.info({ mode }, 'event signalled');
    return { received: true, routed: true, workflowId: route.workflowId };
  });
};
