import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.js';
import { type ReceivedSpan, spansOf, startOtlpReceiver } from './otlp-receiver.js';

// Where a test sends booksync's traces: Jaeger (v2, the OpenTelemetry Collector with Jaeger's trace store and
// query API), a real OTLP receiver obtained from the Go module proxy by scripts/obtain-jaeger.sh, started on
// loopback ports with its in-memory store; the spans are read back through its query API (api/v3, OTLP JSON).
// Without Jaeger (no Go to build it), the test's own OTLP/HTTP receiver (otlp-receiver.ts), saying so; under
// CI a missing Jaeger fails instead.

export interface TraceCollector {
  /** 'jaeger' or 'receiver' (the test's own). */
  kind: 'jaeger' | 'receiver';
  /** For OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  /** Every span of the service received so far. */
  spans(service: string): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

export function jaegerPath(env: NodeJS.ProcessEnv = process.env): string | null {
  const cache = env.BOOKSYNC_CACHE || path.join(homedir(), '.cache', 'booksync');
  const candidates = [env.JAEGER_PATH, path.join(cache, 'jaeger-v1.76.0', 'jaeger')];
  return candidates.find((file): file is string => !!file && existsSync(file)) ?? null;
}

export async function startTraceCollector(
  log: (line: string) => void = console.log,
): Promise<TraceCollector> {
  // BOOKSYNC_TRACE_COLLECTOR=receiver: the test's own receiver even where Jaeger is (to check that path).
  const forced = process.env.BOOKSYNC_TRACE_COLLECTOR === 'receiver';
  const binary = forced ? null : jaegerPath();
  if (binary) return startJaeger(binary);
  const why = forced
    ? 'BOOKSYNC_TRACE_COLLECTOR=receiver'
    : 'Jaeger not found (JAEGER_PATH, or ~/.cache/booksync/jaeger-v1.76.0/jaeger from `bash scripts/obtain-jaeger.sh`, which needs Go)';
  if (!forced && process.env.CI === 'true') throw new Error(why);
  log(`trace test: ${why}; receiving OTLP/HTTP in the test instead`);
  const receiver = await startOtlpReceiver();
  return {
    kind: 'receiver',
    endpoint: receiver.endpoint,
    spans: async (service) => receiver.spans.filter((s) => s.service === service),
    close: receiver.close,
  };
}

async function startJaeger(binary: string): Promise<TraceCollector> {
  const dir = mkdtempSync(path.join(tmpdir(), 'booksync-jaeger-'));
  const [otlp, query, queryGrpc] = [await freePort(), await freePort(), await freePort()];
  const config = path.join(dir, 'config.yaml');
  // Jaeger's all-in-one configuration reduced to what the test needs: OTLP over HTTP in, memory store, query
  // API out, every port on loopback and chosen free, no telemetry of its own.
  writeFileSync(
    config,
    `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:${query}
    grpc:
      endpoint: 127.0.0.1:${queryGrpc}
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 100000
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${otlp}
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`,
  );
  let output = '';
  const child: ChildProcess = spawn(binary, ['--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    output += c.toString();
  });
  const queryUrl = `http://127.0.0.1:${query}`;
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([gone, sleep(5_000)]);
      child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    const up = await fetch(`${queryUrl}/api/v3/services`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      await close();
      throw new Error(`Jaeger did not start:\n${output.slice(-3000)}`);
    }
    await sleep(200);
  }
  return {
    kind: 'jaeger',
    endpoint: `http://127.0.0.1:${otlp}`,
    async spans(service) {
      const search = new URLSearchParams({
        'query.service_name': service,
        'query.start_time_min': new Date(Date.now() - 24 * 3600_000).toISOString(),
        'query.start_time_max': new Date(Date.now() + 3600_000).toISOString(),
        'query.num_traces': '100000',
      });
      const answer = await fetch(`${queryUrl}/api/v3/traces?${search}`);
      if (answer.status === 404) return []; // no trace of the service yet
      if (!answer.ok) throw new Error(`Jaeger's query API answered ${answer.status}: ${await answer.text()}`);
      // One JSON object per chunk of the stream, each {result: ExportTraceServiceRequest in OTLP JSON}.
      const text = await answer.text();
      return text
        .split(/\n(?=\{)/)
        .filter((chunk) => chunk.trim())
        .flatMap((chunk) => spansOf((JSON.parse(chunk) as { result: Parameters<typeof spansOf>[0] }).result));
    },
    close,
  };
}
