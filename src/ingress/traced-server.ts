import http from 'node:http';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { FastifyServerFactory } from 'fastify';
import type { Tracing } from '../telemetry/tracing.js';
import type { IngressApp } from './ingress-app.js';

// With tracing on, each request to an ingress listener is a server span (the root of a delivered webhook's
// trace, linked to a `traceparent` the sender gave; its child only with TRUST_INBOUND_TRACEPARENT), active while Fastify handles the request: its body
// parsing, its hooks, the handler's signalWithStart (whose client span is the span's child) and every log line
// of the request (the logger's mixin reads the active span). Fastify's instrumentation package would patch the
// framework; this is the one server span booksync needs, made where the request enters.

const spans = new WeakMap<http.IncomingMessage, Span>();

/**
 * A Fastify server factory: the HTTP server Fastify makes (with its timeouts), its requests each in a span.
 * The request and response emitters are bound to the span's context, so what runs on their events (the body
 * parser, "request completed") stays in the trace.
 */
export function tracedServerFactory(tracing: Tracing): FastifyServerFactory {
  return (handler, fastifyOptions) => {
    // What Fastify's own server takes from its options (lib/server.js), defaults applied.
    const options = fastifyOptions as {
      http?: http.ServerOptions;
      keepAliveTimeout?: number;
      requestTimeout?: number;
      connectionTimeout?: number;
    };
    const server = http.createServer(options.http ?? {}, (req, res) => {
      // A sender's traceparent is believed only when the setting says so; else the span roots a trace of
      // booksync's own and links to the sender's, so a caller cannot graft booksync's spans onto any trace.
      const sender = propagation.extract(ROOT_CONTEXT, req.headers);
      const senderSpan = trace.getSpanContext(sender);
      const parent = tracing.trustInboundTraceparent ? sender : ROOT_CONTEXT;
      const span = tracing.tracer.startSpan(
        req.method ?? 'HTTP',
        {
          kind: SpanKind.SERVER,
          ...(!tracing.trustInboundTraceparent && senderSpan ? { links: [{ context: senderSpan }] } : {}),
          attributes: {
            'http.request.method': req.method ?? '',
            'url.path': (req.url ?? '').split('?')[0] ?? '',
            'url.scheme': 'http',
            ...(req.socket.localPort ? { 'server.port': req.socket.localPort } : {}),
          },
        },
        parent,
      );
      spans.set(req, span);
      const active = trace.setSpan(parent, span);
      context.bind(active, req);
      context.bind(active, res);
      res.once('close', () => {
        span.setAttribute('http.response.status_code', res.statusCode);
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        if (!res.writableFinished) span.setAttribute('http.response.aborted', true);
        span.end();
      });
      context.with(active, () => handler(req, res));
    });
    server.keepAliveTimeout = options.keepAliveTimeout ?? server.keepAliveTimeout;
    server.requestTimeout = options.requestTimeout ?? server.requestTimeout;
    server.setTimeout(options.connectionTimeout ?? 0);
    return server;
  };
}

/** Names each request's span by its route (`POST /webhooks/service`), once Fastify has matched it. */
export function nameSpansByRoute(app: IngressApp): void {
  app.addHook('onRequest', async (request) => {
    const span = spans.get(request.raw);
    const route = request.routeOptions.url;
    if (!span || route === undefined) return;
    span.updateName(`${request.method} ${route}`);
    span.setAttribute('http.route', route);
  });
}
