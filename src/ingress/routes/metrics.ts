import type { FastifyPluginAsync } from 'fastify';
import type { Registry } from 'prom-client';

export interface MetricsRoutesOptions {
  registry: Registry;
}

/** GET /metrics in the Prometheus text format. */
export const metricsRoutes: FastifyPluginAsync<MetricsRoutesOptions> = async (app, { registry }) => {
  app.get('/metrics', async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
};
