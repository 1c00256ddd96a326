import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENCRYPTED_ENCODING } from '../../src/temporal/payload-codec.js';
import { BooksyncProcess } from '../support/booksync-start.js';
import type { ReceivedSpan } from '../support/otlp-receiver.js';
import { startTraceCollector, type TraceCollector } from '../support/trace-collector.js';

// One trace per delivered webhook: the demo business day through the real `booksync start`
// (embedded dev server, emulator, ingress and worker in one process, payloads encrypted, the ledger mirror as
// accounting target) with tracing configured only by the standard OTEL_* variables, exporting by OTLP/HTTP
// (protobuf, the SDK's default) to Jaeger (v2: the OpenTelemetry Collector with Jaeger's store), started by the
// test (test/support/trace-collector.ts; without Go to build it, the test's own OTLP receiver). A payment's trace holds the ingress request, the
// signalWithStart, the workflow, syncPayment and its ledger write, each the child of the one before; the push
// of the entry to the target, later and in the push workflow's own trace, links to that ledger write. The log
// lines of that work carry its trace id. And the emulator's webhook deliveries, workflows carrying each event's
// envelope, are encrypted with the same keys.

const booksync = new BooksyncProcess();
let collector: TraceCollector;
const service = 'booksync-under-test';

beforeAll(async () => {
  collector = await startTraceCollector();
  await booksync.prepare(
    {
      ACCOUNTING_TARGET: 'ledger-mirror',
      PAYLOAD_KEYS: `k1=${randomBytes(32).toString('base64')}`,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_SERVICE_NAME: service,
      OTEL_BSP_SCHEDULE_DELAY: '200',
    },
    // Its embedded dev server, whose `default` namespace the checks of stored payloads read.
    { temporal: 'own' },
  );
}, 60_000);

afterAll(async () => {
  await booksync.stop('trace-end-to-end');
  await collector?.close();
});

/** The span and its ancestors, nearest first, as far as the received spans go. */
function ancestry(span: ReceivedSpan, byId: Map<string, ReceivedSpan>): ReceivedSpan[] {
  const chain = [span];
  for (let at = byId.get(span.parentSpanId); at; at = byId.get(at.parentSpanId)) chain.push(at);
  return chain;
}

/** The start inputs of every webhookDelivery workflow, as the server stores them (a client without the codec). */
async function deliveryInputsAsStored(address: string): Promise<Payload[]> {
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection });
    const inputs: Payload[] = [];
    for await (const run of client.workflow.list({ query: 'WorkflowType = "webhookDelivery"' })) {
      const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
      const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
      inputs.push(...((started?.input?.payloads ?? []) as Payload[]));
    }
    return inputs;
  } finally {
    await connection.close();
  }
}

/**
 * Every workflow's search attributes as the server indexes them (what the Web UI lists and filters by), read
 * raw: they never pass through the payload codec.
 */
async function everySearchAttribute(address: string): Promise<string[]> {
  const connection = await Connection.connect({ address });
  try {
    const found: string[] = [];
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await connection.workflowService.listWorkflowExecutions({
        namespace: 'default',
        pageSize: 500,
        ...(nextPageToken ? { nextPageToken } : {}),
      });
      for (const run of page.executions ?? []) {
        const fields = run.searchAttributes?.indexedFields ?? {};
        found.push(
          Object.entries(fields)
            .map(([name, p]) => `${name}=${Buffer.from(p.data ?? new Uint8Array()).toString()}`)
            .join(' '),
        );
      }
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken);
    return found;
  } finally {
    await connection.close();
  }
}

/** The demo's customer text: names, addresses, invoice numbers, a memo's words (src/demo/business-day.ts). */
const customerText = [
  'Bluebird Bakery',
  'books@bluebird.example',
  'INV-100',
  'Prairie Flour Mill',
  'ar@prairie.example',
  'Late payment fee',
];
let searchAttributes: string[] = [];

describe('tracing with OTEL_EXPORTER_OTLP_ENDPOINT set', { timeout: 900_000 }, () => {
  it("runs the demo day with payloads encrypted, the emulator's webhook deliveries too", async () => {
    booksync.start();
    await booksync.untilOutput('each flow in the Temporal UI', 0);
    expect(booksync.output).toContain(`Tracing               OTLP to ${collector.endpoint}`);
    const pushed = await booksync.untilPushed();
    expect(pushed.failed).toBe(0);
    searchAttributes = await everySearchAttribute(`127.0.0.1:${booksync.env.TEMPORAL_DEV_PORT}`);
    expect(searchAttributes.length).toBeGreaterThan(10);
    // The emulator's delivery workflows carry each event's whole envelope (amounts, memos, references): read
    // without the codec, as the server and a Web UI without the codec server see them, only ciphertext.
    const inputs = await deliveryInputsAsStored(`127.0.0.1:${booksync.env.TEMPORAL_DEV_PORT}`);
    expect(inputs.length).toBeGreaterThan(10);
    for (const payload of inputs) {
      expect(Buffer.from(payload.metadata?.encoding ?? new Uint8Array()).toString()).toBe(ENCRYPTED_ENCODING);
      const bytes = Buffer.from(payload.data ?? new Uint8Array()).toString('latin1');
      expect(bytes).not.toMatch(/envelope|eventId|amount|payment\.|"data"/);
    }
  });

  it("exports a payment's trace from the webhook to the ledger, and the push to the target links to it", async () => {
    // Ctrl-C: the process exports what it still buffers before it exits.
    await booksync.halt();
    await sleep(2_000);

    const spans = await collector.spans(service);
    expect(spans.length).toBeGreaterThan(100);
    const byId = new Map(spans.map((s) => [s.spanId, s]));

    // A payment booked by its first webhook: the ledger write of `payment:{id}` and the spans above it.
    // A card payment's entries (the payment, its fee) are one postMany; a payment alone one post.
    const paymentKey = (s: ReceivedSpan) =>
      s.name === 'ledger.post'
        ? [String(s.attributes['booksync.entry.key'])]
        : s.name === 'ledger.postMany'
          ? String(s.attributes['booksync.entry.keys'] ?? '').split(',')
          : [];
    const posts = spans.filter(
      (s) =>
        paymentKey(s).some((k) => k.startsWith('payment:')) &&
        Number(s.attributes['booksync.entries.created']) >= 1,
    );
    expect(posts.length).toBeGreaterThan(0);
    const chains = posts.map((post) => ancestry(post, byId));
    const whole = chains.filter((chain) => chain.at(-1)?.name === 'POST /webhooks/service');
    expect(whole.length, chains.map((c) => c.map((s) => s.name).join(' < ')).join('\n')).toBeGreaterThan(0);
    const chain = whole[0] as ReceivedSpan[];
    const post = chain[0] as ReceivedSpan;
    const paymentId = (paymentKey(post).find((k) => k.startsWith('payment:')) as string).slice(
      'payment:'.length,
    );
    expect(chain.map((s) => s.name)).toEqual([
      post.name,
      'RunActivity:syncPayment',
      'StartActivity:syncPayment',
      'RunWorkflow:payment',
      'SignalWithStartWorkflow:payment',
      'POST /webhooks/service',
    ]);
    // One trace, parent links intact, the ingress request its root (no parent).
    expect(new Set(chain.map((s) => s.traceId)).size).toBe(1);
    const [, , , run, signal, request] = chain as ReceivedSpan[];
    expect(request?.parentSpanId).toBe('');
    expect(request?.kind).toBe(2);
    expect(request?.attributes['http.response.status_code']).toBe(200);
    expect(signal?.attributes.temporalWorkflowId).toBe(`payment-${paymentId}`);
    expect(run?.attributes.temporalWorkflowId ?? `payment-${paymentId}`).toBe(`payment-${paymentId}`);
    // The signal the workflow handled is in the same trace, under the signalWithStart.
    const handled = spans.filter(
      (s) => s.parentSpanId === signal?.spanId && s.name.startsWith('HandleSignal:'),
    );
    expect(handled.length).toBeGreaterThan(0);
    // Spans nest in time too.
    for (const [child, parent] of chain.slice(0, -1).map((s, i) => [s, chain[i + 1]] as const)) {
      expect(child.startNs >= (parent?.startNs ?? 0n), `${child.name} starts within ${parent?.name}`).toBe(
        true,
      );
    }

    // The push of that entry to the target: in the accountingTarget workflow's trace, linked to the ledger write
    // (one write may hold several entries, the link's invoice, the payment, its fee: each push links to it).
    const push = spans.find(
      (s) =>
        s.name === 'push ledger-mirror' &&
        s.links.some(
          (l) =>
            l.traceId === post.traceId &&
            l.spanId === post.spanId &&
            l.attributes['booksync.entry.key'] === `payment:${paymentId}`,
        ),
    );
    expect(push, 'a push span of the payment linked to its ledger write').toBeDefined();
    expect(ancestry(push as ReceivedSpan, byId).map((s) => s.name)).toEqual(
      expect.arrayContaining([
        'push ledger-mirror',
        'RunActivity:pushToTarget',
        'StartActivity:pushToTarget',
      ]),
    );

    // The log lines of that work carry its trace id: the ingress's and the activity's.
    const lines = booksync.output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.trace_id === post.traceId);
    expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['event signalled', 'payment booked']));
    expect(lines.find((l) => l.msg === 'payment booked')?.paymentId).toBe(paymentId);
  });
  it("keeps the customers' text out of search attributes, spans and log lines", async () => {
    // Read after the second test's halt: every span the process exported, every JSON log line it wrote.
    const spans = await collector.spans(service);
    expect(spans.length).toBeGreaterThan(100);
    const spanText = spans.map((s) =>
      JSON.stringify({ name: s.name, attributes: s.attributes, links: s.links }),
    );
    const logLines = booksync.output.split('\n').filter((line) => line.startsWith('{'));
    expect(logLines.length).toBeGreaterThan(50);
    // The demo did use them: its progress lines (for the person at the terminal) name them.
    expect(booksync.output).toContain('INV-1001');
    for (const text of customerText) {
      expect(
        searchAttributes.filter((a) => a.includes(text)),
        `search attributes holding ${text}`,
      ).toEqual([]);
      expect(
        spanText.filter((a) => a.includes(text)),
        `spans holding ${text}`,
      ).toEqual([]);
      expect(
        logLines.filter((l) => l.includes(text)),
        `log lines holding ${text}`,
      ).toEqual([]);
    }
  });
});
