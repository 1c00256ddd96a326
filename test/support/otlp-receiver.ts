import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

// A small OTLP/HTTP trace receiver on loopback, for the tests that export booksync's traces: POST /v1/traces in
// protobuf (the OpenTelemetry SDK's default, http/protobuf) or JSON (http/json), gzip or not, decoded into
// plain spans. The protobuf types are the generated ones the SDK's exporter encodes with
// (@opentelemetry/otlp-transformer), so what is read is what was sent on the wire.

const require = createRequire(import.meta.url);

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string; attributes: Record<string, string | number | boolean> }[];
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: number;
}

export interface OtlpReceiver {
  /** For OTEL_EXPORTER_OTLP_ENDPOINT: the exporter posts to `${endpoint}/v1/traces`. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Requests answered, by content type. */
  requests: Record<string, number>;
  close(): Promise<void>;
}

type ProtoValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string | { toString(): string };
  doubleValue?: number;
};
type ProtoKeyValue = { key: string; value?: ProtoValue };
type Id = Uint8Array | string | undefined;

const hex = (id: Id): string =>
  id === undefined ? '' : typeof id === 'string' ? id : Buffer.from(id).toString('hex');
const nanos = (value: unknown): bigint => BigInt(String(value ?? 0));

function attributesOf(list: ProtoKeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    if (!value) continue;
    if (value.stringValue !== undefined && value.stringValue !== null) out[key] = value.stringValue;
    else if (value.boolValue !== undefined && value.boolValue !== null) out[key] = value.boolValue;
    else if (value.intValue !== undefined && value.intValue !== null)
      out[key] = Number(String(value.intValue));
    else if (value.doubleValue !== undefined && value.doubleValue !== null) out[key] = value.doubleValue;
  }
  return out;
}

interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: ProtoKeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId: Id;
        spanId: Id;
        parentSpanId?: Id;
        name: string;
        kind?: number;
        startTimeUnixNano?: unknown;
        endTimeUnixNano?: unknown;
        attributes?: ProtoKeyValue[];
        links?: { traceId: Id; spanId: Id; attributes?: ProtoKeyValue[] }[];
        status?: { code?: number };
      }[];
    }[];
  }[];
}

/** Spans of one OTLP export request (JSON ids are already hex; protobuf ids are bytes). */
export function spansOf(request: ExportRequest): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        service,
        traceId: hex(span.traceId),
        spanId: hex(span.spanId),
        parentSpanId: hex(span.parentSpanId),
        name: span.name,
        kind: span.kind ?? 0,
        startNs: nanos(span.startTimeUnixNano),
        endNs: nanos(span.endTimeUnixNano),
        attributes: attributesOf(span.attributes),
        links: (span.links ?? []).map((link) => ({
          traceId: hex(link.traceId),
          spanId: hex(link.spanId),
          attributes: attributesOf(link.attributes),
        })),
        status: span.status?.code ?? 0,
      })),
    );
  });
}

const protoRoot = () =>
  require('@opentelemetry/otlp-transformer/build/src/generated/root.js') as {
    opentelemetry: {
      proto: {
        collector: {
          trace: {
            v1: {
              ExportTraceServiceRequest: {
                decode(buffer: Uint8Array): unknown;
                toObject(message: unknown, options: Record<string, unknown>): ExportRequest;
              };
            };
          };
        };
      };
    };
  };

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: Record<string, number> = {};
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        if (req.method !== 'POST' || req.url !== '/v1/traces') {
          res.writeHead(404).end();
          return;
        }
        let body = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        const type = String(req.headers['content-type'] ?? '').split(';')[0] as string;
        requests[type] = (requests[type] ?? 0) + 1;
        if (type === 'application/json') {
          spans.push(...spansOf(JSON.parse(body.toString('utf8')) as ExportRequest));
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        } else if (type === 'application/x-protobuf') {
          const message = protoRoot().opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
          const decoded = message.toObject(message.decode(body), {
            longs: String,
            bytes: Array,
            defaults: false,
          });
          spans.push(...spansOf(toBytes(decoded)));
          // An empty ExportTraceServiceResponse.
          res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(Buffer.alloc(0));
        } else {
          res.writeHead(415).end();
        }
      } catch (error) {
        res.writeHead(400).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** toObject's `bytes: Array` gives number arrays: back to bytes for the ids. */
function toBytes(request: ExportRequest): ExportRequest {
  const bytes = (id: unknown): Id => (Array.isArray(id) ? Uint8Array.from(id as number[]) : (id as Id));
  for (const resourceSpans of request.resourceSpans ?? []) {
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        span.traceId = bytes(span.traceId);
        span.spanId = bytes(span.spanId);
        span.parentSpanId = bytes(span.parentSpanId);
        for (const link of span.links ?? []) {
          link.traceId = bytes(link.traceId);
          link.spanId = bytes(link.spanId);
        }
      }
    }
  }
  return request;
}
