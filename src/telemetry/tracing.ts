import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  type Attributes,
  type Link,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { ActivityInterceptorsFactory, WorkerOptions } from '@temporalio/worker';
import { ScrubbedSpanExporter } from './scrubbed-exporter.js';

// OpenTelemetry tracing, configured by the standard OTEL_* variables and off when they name no OTLP endpoint:
// then nothing of the SDK is loaded, no interceptor is added and the workflow bundle is the usual one. On, one
// tracer provider per process (the ingress and the worker of `booksync start` share it) exports by OTLP over
// HTTP, and the Temporal interceptors carry the trace from the ingress's signalWithStart through the workflow
// to its activities (see README, "Tracing").

const require = createRequire(import.meta.url);

/** The instrumentation scope of booksync's own spans (ingress request, ledger write, push). */
export const tracerName = 'booksync';

/** Whether and how to trace, read from the OTEL_* variables (the OpenTelemetry SDK's own names). */
export interface TracingSettings {
  enabled: boolean;
  /**
   * TRUST_INBOUND_TRACEPARENT=true: a request's `traceparent` makes its span a child of the sender's trace.
   * Default: the span starts a trace of booksync's own and only links to the sender's, since a webhook or a
   * console request comes from outside and may name any trace (OpenTelemetry's advice at a trust boundary).
   */
  trustInboundTraceparent?: boolean;
  /** Why it is off, for the start-up line. */
  reason?: string;
  protocol: 'http/protobuf' | 'http/json';
}

/**
 * On when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, unless OTEL_SDK_DISABLED is
 * true or OTEL_TRACES_EXPORTER is not otlp. OTLP over gRPC is not shipped: a clear error says to use port 4318.
 */
export function tracingSettings(env: NodeJS.ProcessEnv = process.env): TracingSettings {
  const protocolSetting =
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
  const off = (reason: string): TracingSettings => ({ enabled: false, reason, protocol: 'http/protobuf' });
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return off('OTEL_SDK_DISABLED=true');
  const exporters = (env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').map((e) => e.trim());
  if (!exporters.includes('otlp')) return off(`OTEL_TRACES_EXPORTER=${env.OTEL_TRACES_EXPORTER}`);
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
    return off('no OTEL_EXPORTER_OTLP_ENDPOINT');
  }
  if (protocolSetting !== 'http/protobuf' && protocolSetting !== 'http/json') {
    throw new Error(
      `OTEL_EXPORTER_OTLP_PROTOCOL=${protocolSetting}: booksync exports traces by OTLP over HTTP only (http/protobuf or http/json, a collector's port 4318)`,
    );
  }
  return {
    enabled: true,
    protocol: protocolSetting,
    trustInboundTraceparent: env.TRUST_INBOUND_TRACEPARENT?.trim().toLowerCase() === 'true',
  };
}

/** What a Temporal client and a worker add when tracing is on. */
export interface Tracing {
  tracer: Tracer;
  /** Whether an inbound request's traceparent is its span's parent (TracingSettings), else only a link. */
  trustInboundTraceparent: boolean;
  /** For every Temporal client: signalWithStart, start, signal... as spans carrying the trace in headers. */
  clientInterceptors: { workflow: WorkflowClientInterceptor[] };
  /** Activity spans, child of the workflow's scheduling span (headers), and trace ids on the SDK's log lines. */
  activityInterceptors: ActivityInterceptorsFactory[];
  /** The workflow spans, made in the sandbox and exported through this sink. */
  sinks: NonNullable<WorkerOptions['sinks']>;
  /** The workflow interceptors module: bundled into a workflow bundle of its own (see workflow-bundle.ts). */
  workflowInterceptorModules: string[];
  /** Exports what is buffered. */
  flush(): Promise<void>;
}

let current: Tracing | null = null;
let shutdownProvider: (() => Promise<void>) | null = null;

/** The process's tracing, once startTracing set it up; null when off (or not started). */
export function activeTracing(): Tracing | null {
  return current;
}

function packageVersion(): string {
  try {
    return (
      JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
    ).version;
  } catch {
    return 'unknown';
  }
}

/**
 * Sets up tracing for this process from the OTEL_* variables (process.env, which the SDK's exporter, batch
 * processor and sampler read too), once: later calls return the same; null when they leave it off. The SDK,
 * the exporter and the interceptors are loaded only then.
 */
export async function startTracing(): Promise<Tracing | null> {
  if (current) return current;
  const settings = tracingSettings(process.env);
  if (!settings.enabled) return null;
  const [
    { Resource, detectResourcesSync, envDetectorSync },
    { BatchSpanProcessor },
    { NodeTracerProvider },
    exporters,
    temporalClient,
    temporalWorker,
  ] = await Promise.all([
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/sdk-trace-node'),
    settings.protocol === 'http/json'
      ? import('@opentelemetry/exporter-trace-otlp-http')
      : import('@opentelemetry/exporter-trace-otlp-proto'),
    import('@temporalio/interceptors-opentelemetry/lib/client/index.js'),
    import('@temporalio/interceptors-opentelemetry/lib/worker/index.js'),
  ]);
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over booksync's defaults.
  const resource = Resource.default()
    .merge(new Resource({ 'service.name': 'booksync', 'service.version': packageVersion() }))
    .merge(detectResourcesSync({ detectors: [envDetectorSync] }));
  // The exporter reads OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, _HEADERS, _TIMEOUT and _COMPRESSION; the batch
  // processor OTEL_BSP_*; the provider OTEL_TRACES_SAMPLER(_ARG) and the span limits.
  // Error texts stay behind (scrubbed-exporter.ts): a span keeps its error status and exception types.
  const spanProcessor: SpanProcessor = new BatchSpanProcessor(
    new ScrubbedSpanExporter(new exporters.OTLPTraceExporter()),
  );
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // The global provider, AsyncLocalStorage context and the W3C trace-context propagator (OTEL_PROPAGATORS).
  provider.register();
  const tracer = trace.getTracer(tracerName, packageVersion());
  const interceptorOptions = { tracer };
  current = {
    tracer,
    trustInboundTraceparent: settings.trustInboundTraceparent === true,
    clientInterceptors: {
      workflow: [new temporalClient.OpenTelemetryWorkflowClientInterceptor(interceptorOptions)],
    },
    activityInterceptors: [
      (ctx) => ({
        inbound: new temporalWorker.OpenTelemetryActivityInboundInterceptor(ctx, interceptorOptions),
        outbound: new temporalWorker.OpenTelemetryActivityOutboundInterceptor(ctx),
      }),
    ],
    sinks: { exporter: temporalWorker.makeWorkflowExporter(spanProcessor, resource) },
    workflowInterceptorModules: [
      require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
    ],
    flush: () => provider.forceFlush(),
  };
  shutdownProvider = () => provider.shutdown();
  return current;
}

/** Exports what is left and stops the exporter (the process is ending); nothing when tracing is off. */
export async function stopTracing(): Promise<void> {
  const shutdown = shutdownProvider;
  current = null;
  shutdownProvider = null;
  await shutdown?.();
}

/**
 * Runs `work` in a span of booksync's own (the ledger write, a push), the active one while it runs; an error
 * marks the span and is thrown on. Without tracing, `work` alone.
 */
export async function inSpan<T>(
  name: string,
  options: { attributes?: Attributes; links?: Link[]; kind?: SpanKind },
  work: () => Promise<T>,
): Promise<T> {
  if (!current) return work();
  return current.tracer.startActiveSpan(
    name,
    {
      kind: options.kind ?? SpanKind.INTERNAL,
      attributes: options.attributes ?? {},
      links: options.links ?? [],
    },
    async (span) => {
      try {
        return await work();
      } catch (error) {
        // The exception's type, not its message (which may quote a customer): see scrubbed-exporter.ts.
        span.recordException({ name: error instanceof Error ? error.name : typeof error });
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** The span context active now (the ledger write's, inside inSpan), or null. */
export function activeSpanContext(): SpanContext | null {
  const context = trace.getActiveSpan()?.spanContext();
  return context && trace.isSpanContextValid(context) ? context : null;
}

// The entries this process posted, with the span that posted each, so that the push of an entry (later, in the
// accounting-target workflow's own trace) links to the trace of the webhook that booked it. Kept in memory and
// bounded: a push in another process, or after a restart, has no link (its span and trace are whole anyway).
const entryTraces = new Map<string, SpanContext>();
const entryTracesKept = 20_000;

/** Remembers that `key` was posted in this span (the ledger write of a new entry). */
export function rememberEntryTrace(key: string, context: SpanContext): void {
  entryTraces.delete(key);
  entryTraces.set(key, context);
  if (entryTraces.size > entryTracesKept) {
    const oldest = entryTraces.keys().next().value;
    if (oldest !== undefined) entryTraces.delete(oldest);
  }
}

/** Links to the spans that posted these entries, those this process remembers. */
export function entryTraceLinks(keys: readonly string[]): Link[] {
  return keys.flatMap((key) => {
    const context = entryTraces.get(key);
    return context ? [{ context, attributes: { 'booksync.entry.key': key } }] : [];
  });
}

/**
 * Runs a push of entries to an accounting target (one, or a target's batch) in a span linked to the trace of
 * each entry's ledger write: the push runs later, in the accounting-target workflow's own trace.
 */
export function inPushSpan<T>(target: string, keys: readonly string[], work: () => Promise<T>): Promise<T> {
  if (!current) return work();
  return inSpan(
    `push ${target}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'booksync.target': target,
        'booksync.entries': keys.length,
        ...(keys.length === 1 ? { 'booksync.entry.key': keys[0] } : {}),
      },
      links: entryTraceLinks(keys),
    },
    work,
  );
}
