import Fastify, { type FastifyServerOptions } from 'fastify';
import { type Logger, silentLogger } from '../logging/logger.js';
import { activeTracing } from '../telemetry/tracing.js';
import { closeConnectionsWhenClosing } from './drain-on-close.js';
import { toErrorReply } from './errors.js';
import type { IngressApp } from './ingress-app.js';
import type { IngressMetrics } from './metrics.js';
import { nameSpansByRoute, tracedServerFactory } from './traced-server.js';

/** Fastify's trustProxy: the proxies whose X-Forwarded-* headers are believed (TRUST_PROXY). */
export type TrustProxy = NonNullable<FastifyServerOptions['trustProxy']>;

export interface BaseAppOptions {
  logger?: Logger;
  bodyLimitBytes: number;
  requestTimeoutMs: number;
  connectionTimeoutMs: number;
  metrics: IngressMetrics;
  /** Unset: no proxy is trusted, request.ip is the connection's address and X-Forwarded-For is ignored. */
  trustProxy?: TrustProxy;
}

/**
 * What every ingress listener shares, before any route: the one error handler answering `{error, code?}`, the
 * 404, the close-time connection drain and the request duration metric.
 */
export function createBaseApp(options: BaseAppOptions): IngressApp {
  // With tracing on (OTEL_*), every request is a server span (traced-server.ts); off, Fastify's own server.
  const tracing = activeTracing();
  const app = Fastify({
    loggerInstance: options.logger ?? silentLogger,
    bodyLimit: options.bodyLimitBytes,
    requestTimeout: options.requestTimeoutMs,
    connectionTimeout: options.connectionTimeoutMs,
    ...(options.trustProxy !== undefined ? { trustProxy: options.trustProxy } : {}),
    ...(tracing ? { serverFactory: tracedServerFactory(tracing) } : {}),
  });
  if (tracing) nameSpansByRoute(app);

  app.setErrorHandler((error, request, reply) => {
    const { statusCode, body } = toErrorReply(error);
    if (statusCode >= 500 && body.code !== 'temporal_unavailable' && body.code !== 'not_ready') {
      request.log.error({ err: error }, 'request failed');
    } else if (statusCode === 401) {
      // Failed authentication is worth an operator's look (wrong secret after rotation, or a probe).
      request.log.warn({ statusCode, code: body.code }, body.error);
    } else if (statusCode < 500) {
      request.log.info({ statusCode, code: body.code }, body.error);
    }
    return reply.status(statusCode).send(body);
  });
  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send({ error: `no route ${request.method} ${request.url}`, code: 'not_found' }),
  );

  closeConnectionsWhenClosing(app);
  app.addHook('onResponse', async (request, reply) => {
    options.metrics.requestDuration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status_code: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
  });
  return app;
}
