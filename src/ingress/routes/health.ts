import type { FastifyPluginAsync } from 'fastify';
import { IngressError } from '../errors.js';

export interface HealthRoutesOptions {
  /** Resolves when the ingress can do its job (Temporal reachable); throws otherwise. */
  readinessCheck: () => Promise<void>;
}

const statusSchema = {
  type: 'object',
  properties: { status: { type: 'string' } },
  required: ['status'],
} as const;

export const healthRoutes: FastifyPluginAsync<HealthRoutesOptions> = async (app, options) => {
  // Liveness: answering at all is the signal; never depends on Temporal, so an outage does not restart us.
  app.get('/healthz', { schema: { response: { 200: statusSchema } } }, async () => ({ status: 'ok' }));

  // Readiness: a load balancer stops sending deliveries while Temporal cannot take signals.
  app.get('/readyz', { schema: { response: { 200: statusSchema } } }, async (request) => {
    try {
      await options.readinessCheck();
    } catch (err) {
      request.log.warn({ err }, 'not ready');
      throw new IngressError(503, 'not_ready', 'Temporal is not reachable');
    }
    return { status: 'ready' };
  });
};
