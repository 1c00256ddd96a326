import type { FastifyInstance } from 'fastify';
import { EmulatorHttpError } from '../errors.js';
import type { RouteDeps } from './deps.js';

/**
 * Probes answer without a key: a container healthcheck or a load balancer has none, and they reveal
 * nothing about any organization. The server's authentication hook lets exactly these paths through.
 */
export const HEALTH_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz']);

export function healthRoutes(app: FastifyInstance, { store }: RouteDeps): void {
  // Liveness: answering at all is the signal.
  app.get('/healthz', async () => ({ status: 'ok' }));

  // Readiness: the database answers a query.
  app.get('/readyz', async (request) => {
    try {
      store.read(({ db }) => db.prepare('SELECT 1').get());
    } catch (err) {
      request.log.warn({ err }, 'not ready');
      throw new EmulatorHttpError(503, 'the database is not readable', 'not_ready');
    }
    return { status: 'ready' };
  });
}
