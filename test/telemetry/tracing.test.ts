import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { traceFields } from '../../src/logging/logger.js';
import { entryTraceLinks, rememberEntryTrace, tracingSettings } from '../../src/telemetry/tracing.js';

// Tracing is configured by the OpenTelemetry SDK's own variables and is off unless an OTLP endpoint is named
// (test/telemetry/trace-end-to-end.test.ts runs it on the whole stack). Here: the decision, the trace fields
// every log line takes from the active span, and the memory of which span posted an entry.

describe('the tracing settings', () => {
  it('are off without an OTLP endpoint, whatever else is set', () => {
    expect(tracingSettings({}).enabled).toBe(false);
    expect(tracingSettings({ OTEL_SERVICE_NAME: 'booksync' })).toMatchObject({
      enabled: false,
      reason: 'no OTEL_EXPORTER_OTLP_ENDPOINT',
    });
  });

  it('are on with OTEL_EXPORTER_OTLP_ENDPOINT or the traces endpoint, by protobuf unless told JSON', () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({
      enabled: true,
      protocol: 'http/protobuf',
      trustInboundTraceparent: false,
    });
    expect(
      tracingSettings({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      }),
    ).toEqual({ enabled: true, protocol: 'http/json', trustInboundTraceparent: false });
  });

  it('are off when the SDK is disabled or the traces exporter is not OTLP', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingSettings({ ...endpoint, OTEL_SDK_DISABLED: 'true' }).enabled).toBe(false);
    expect(tracingSettings({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }).enabled).toBe(false);
    expect(tracingSettings({ ...endpoint, OTEL_TRACES_EXPORTER: 'console,otlp' }).enabled).toBe(true);
  });

  it('refuse OTLP over gRPC with one line saying what to use', () => {
    expect(() =>
      tracingSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      }),
    ).toThrow(/OTLP over HTTP only \(http\/protobuf or http\/json, a collector's port 4318\)/);
  });
});

describe('the trace fields of a log line', () => {
  const manager = new AsyncLocalStorageContextManager();
  beforeAll(() => {
    context.setGlobalContextManager(manager.enable());
  });
  afterAll(() => {
    manager.disable();
    context.disable();
  });
  const span = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 };

  it('name the active span, and nothing outside one', () => {
    expect(traceFields({})).toEqual({});
    const inside = context.with(trace.setSpan(ROOT_CONTEXT, trace.wrapSpanContext(span)), () =>
      traceFields({}),
    );
    expect(inside).toEqual({ trace_id: span.traceId, span_id: span.spanId });
  });

  it('leave a line that carries its own (the Temporal SDK adds them to workflow lines) as it is', () => {
    const own = context.with(trace.setSpan(ROOT_CONTEXT, trace.wrapSpanContext(span)), () =>
      traceFields({ trace_id: 'from-the-workflow' }),
    );
    expect(own).toEqual({});
  });
});

describe('the entries posted in this process', () => {
  it('give the push a link to the span that posted each one it remembers', () => {
    const posted = { traceId: '1'.repeat(32), spanId: '2'.repeat(16), traceFlags: 1 };
    rememberEntryTrace('payment:p1', posted);
    expect(entryTraceLinks(['payment:p1', 'payment:unknown'])).toEqual([
      { context: posted, attributes: { 'booksync.entry.key': 'payment:p1' } },
    ]);
  });
});
