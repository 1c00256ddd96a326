// test tier: integration
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, propagation } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tracedServerFactory } from '../../src/ingress/traced-server.js';
import { type Tracing, tracingSettings } from '../../src/telemetry/tracing.js';

// A request from outside names whatever trace it likes in `traceparent`. By default booksync's server span
// roots a trace of its own and only links to the sender's; TRUST_INBOUND_TRACEPARENT=true makes it a child.

const senderTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
const senderSpan = '00f067aa0ba902b7';
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const manager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  context.setGlobalContextManager(manager.enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});
afterAll(async () => {
  manager.disable();
  context.disable();
  propagation.disable();
  await provider.shutdown();
});

async function requestWithTraceparent(trust: boolean) {
  exporter.reset();
  const tracing = {
    tracer: provider.getTracer('test'),
    trustInboundTraceparent: trust,
  } as unknown as Tracing;
  const server = tracedServerFactory(tracing)((_req, res) => res.end('ok'), {}) as http.Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve, reject) => {
    http
      .get(
        {
          host: '127.0.0.1',
          port,
          path: '/',
          headers: { traceparent: `00-${senderTrace}-${senderSpan}-01` },
        },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      )
      .on('error', reject);
  });
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const [span] = exporter.getFinishedSpans();
  if (!span) throw new Error('no span');
  // The parent's span id, as this SDK version exposes it.
  const parentId =
    (span as unknown as { parentSpanId?: string }).parentSpanId ??
    (span as unknown as { parentSpanContext?: { spanId: string } }).parentSpanContext?.spanId;
  return { span, parentId };
}

describe("an inbound request's traceparent", () => {
  it("by default roots a trace of its own, linked to the sender's, never grafted onto it", async () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).trustInboundTraceparent).toBe(
      false,
    );
    const { span, parentId } = await requestWithTraceparent(false);
    expect(span.spanContext().traceId).not.toBe(senderTrace);
    expect(parentId).toBeUndefined();
    expect(span.links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([[senderTrace, senderSpan]]);
  });

  it("with TRUST_INBOUND_TRACEPARENT=true is the parent of the request's span", async () => {
    expect(
      tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', TRUST_INBOUND_TRACEPARENT: 'true' })
        .trustInboundTraceparent,
    ).toBe(true);
    const { span, parentId } = await requestWithTraceparent(true);
    expect(span.spanContext().traceId).toBe(senderTrace);
    expect(parentId).toBe(senderSpan);
    expect(span.links).toEqual([]);
  });
});
