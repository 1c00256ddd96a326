import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { sign } from '@booksync/service-contract/webhook-signature';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { createLogger, type Logger } from '../../src/logging/logger.js';

// Shared by the ingress suites: envelopes, signing, real HTTP against a listening app, captured logs and
// Temporal history lookups. No mocks: the apps talk to a real Temporal dev server.

export const secretA = 'whsec_aW5ncmVzcy10ZXN0LXNlY3JldC1vbmUtMzItYnl0ZXMtbG9uZw';
export const secretB = 'whsec_aW5ncmVzcy10ZXN0LXNlY3JldC10d28tMzItYnl0ZXMtbG9uZw';

export interface Envelope {
  id: string;
  created_at: string;
  category: string;
  associated_object_type: string;
  associated_object_id: string;
  type: string;
}

export function envelope(category: string, objectType: string, overrides: Partial<Envelope> = {}): Envelope {
  return {
    id: randomUUID(),
    created_at: new Date().toISOString(),
    category,
    associated_object_type: objectType,
    associated_object_id: `obj_${randomUUID().slice(0, 8)}`,
    type: 'event',
    ...overrides,
  };
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** Every Service-Signature header the tests sent, so the log check can look for each. */
export const signaturesSent = new Set<string>();

export function signed(secret: string, body: string, t = nowSeconds()): string {
  const header = sign(secret, body, t);
  signaturesSent.add(header.slice(header.indexOf('v1=') + 3));
  return header;
}

export interface Delivery {
  body: string;
  signature?: string;
  contentType?: string;
}

export interface HttpAnswer {
  status: number;
  json: Record<string, unknown>;
  text: string;
}

export async function request(url: string, init: RequestInit = {}): Promise<HttpAnswer> {
  const response = await fetch(url, init);
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Prometheus text and the like.
  }
  return { status: response.status, json, text };
}

export function deliver(baseUrl: string, delivery: Delivery): Promise<HttpAnswer> {
  const headers: Record<string, string> = { 'content-type': delivery.contentType ?? 'application/json' };
  if (delivery.signature !== undefined) headers['service-signature'] = delivery.signature;
  return request(`${baseUrl}/webhooks/service`, { method: 'POST', headers, body: delivery.body });
}

/** A signed, well-formed delivery of `event`. */
export function deliverEvent(baseUrl: string, event: Envelope, secret = secretA): Promise<HttpAnswer> {
  const body = JSON.stringify(event);
  return deliver(baseUrl, { body, signature: signed(secret, body) });
}

/** A pino logger at debug writing JSON lines into memory. */
export function capturedLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });
  return { logger: createLogger({ level: 'debug', format: 'json' }, stream), lines };
}

export async function workflowExists(client: Client, workflowId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** The serviceEvent signals in the workflow's history, payloads decoded. */
export async function serviceEventSignals(client: Client, workflowId: string): Promise<unknown[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const attributes = event.workflowExecutionSignaledEventAttributes;
    if (attributes?.signalName !== 'serviceEvent') return [];
    const payload = attributes?.input?.payloads?.[0];
    return [payload ? defaultPayloadConverter.fromPayload(payload) : undefined];
  });
}

/** The start arguments of the workflow's first run. */
export async function startArgs(client: Client, workflowId: string): Promise<unknown[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  return (started?.input?.payloads ?? []).map((p) => defaultPayloadConverter.fromPayload(p));
}

export async function terminateAll(client: Client, workflowIds: Iterable<string>): Promise<void> {
  await Promise.all(
    [...workflowIds].map((id) =>
      client.workflow
        .getHandle(id)
        .terminate('ingress test over')
        .catch(() => undefined),
    ),
  );
}

/** The value of one Prometheus sample line, e.g. `name{label="x"}`; 0 when absent. */
export function metricValue(text: string, sample: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line ? Number(line.slice(sample.length + 1)) : 0;
}
