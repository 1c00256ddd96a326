import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { SERVICE_BASE_URLS } from '@booksync/service-contract/base-urls';
import {
  ServiceConflictError,
  ServiceNetworkError,
  ServiceNotFoundError,
  ServiceRateLimitedError,
  ServiceSchemaError,
  ServiceServerError,
  ServiceTimeoutError,
  ServiceValidationError,
} from '@booksync/service-contract/errors';
import * as fx from '@booksync/service-contract/examples';
import type { Customer } from '@booksync/service-contract/schemas/index';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src/service/client.js';

// Real HTTP on 127.0.0.1 with a scripted handler, so retries, timeouts and headers go through fetch for real.

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}
interface Reply {
  status?: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
  delayMs?: number;
}

const API_KEY = 'sk_test_do_not_log_me_123';
let server: Server | undefined;

async function serve(handler: (seen: Seen, index: number) => Reply): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      seen.push(request);
      const reply = handler(request, seen.length - 1);
      const send = () => {
        if (res.destroyed) return;
        const body = reply.text ?? JSON.stringify(reply.json ?? {});
        res.writeHead(reply.status ?? 200, {
          'content-type': reply.text === undefined ? 'application/json' : 'text/plain',
          ...reply.headers,
        });
        res.end(body);
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen };
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

function capturingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

function client(url: string, extra: Partial<ConstructorParameters<typeof ServiceClient>[0]> = {}) {
  return new ServiceClient({
    apiKey: API_KEY,
    baseUrl: url,
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    timeoutMs: 2_000,
    ...extra,
  });
}

describe('requests', () => {
  it('sends the bearer key, logs method, path, status, duration and attempt, never the key', async () => {
    const { url, seen } = await serve(() => ({ json: fx.payment }));
    const { logger, lines } = capturingLogger();
    const payment = await client(url, { logger }).getPayment('pay_1');
    expect(payment).toEqual(fx.payment);
    expect(seen[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0] ?? '{}');
    expect(entry).toMatchObject({ method: 'GET', path: '/payment/pay_1', status: 200, attempt: 1 });
    expect(typeof entry.durationMs).toBe('number');
    expect(lines.join('\n')).not.toContain(API_KEY);
  });

  it('URL-encodes opaque ids in the path', async () => {
    const voided = { externalPayment: { ...fx.externalPayment, voided: true }, paymentLink: fx.paymentLink };
    const { url, seen } = await serve(() => ({ json: voided }));
    await client(url).voidExternalPayment('pl/1?x', 'ep 1#');
    expect(seen[0]?.url).toBe('/paymentLink/pl%2F1%3Fx/externalPayment/ep%201%23/void');
    expect(seen[0]?.method).toBe('POST');
  });

  it('sends validated JSON bodies and rejects invalid ones before any request', async () => {
    const { url, seen } = await serve(() => ({ json: fx.payment }));
    await client(url).refundPayment('pay_1', { amountCents: 100, reason: 'duplicate' });
    expect(seen[0]?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen[0]?.body.toString() ?? '')).toEqual({ amountCents: 100, reason: 'duplicate' });
    await expect(client(url).refundPayment('pay_1', { amountCents: 0 })).rejects.toBeInstanceOf(
      ServiceValidationError,
    );
    expect(seen).toHaveLength(1);
  });

  it('uploads a file as multipart/form-data', async () => {
    const { url, seen } = await serve(() => ({ status: 201, json: fx.file }));
    const file = await client(url).uploadFile({
      file: new TextEncoder().encode('%PDF-1.4 test'),
      filename: 'inv.pdf',
      type: 'INVOICE_PDF',
    });
    expect(file.id).toBe('file_1');
    expect(seen[0]?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const body = seen[0]?.body.toString() ?? '';
    expect(body).toContain('name="type"');
    expect(body).toContain('INVOICE_PDF');
    expect(body).toContain('filename="inv.pdf"');
    expect(body).toContain('%PDF-1.4 test');
  });

  it('picks base URLs by environment, or the explicit one', () => {
    expect(new ServiceClient({ apiKey: 'k', environment: 'production' }).baseUrl).toBe(
      SERVICE_BASE_URLS.production,
    );
    expect(new ServiceClient({ apiKey: 'k', environment: 'sandbox' }).baseUrl).toBe(
      SERVICE_BASE_URLS.sandbox,
    );
    expect(new ServiceClient({ apiKey: 'k', environment: 'production', baseUrl: 'http://x' }).baseUrl).toBe(
      'http://x',
    );
  });
});

describe('retries', () => {
  it('retries a GET on 503 and logs each attempt', async () => {
    const { url, seen } = await serve((_r, i) =>
      i < 2 ? { status: 503, text: 'busy' } : { json: fx.payment },
    );
    const { logger, lines } = capturingLogger();
    await expect(client(url, { logger }).getPayment('pay_1')).resolves.toEqual(fx.payment);
    expect(seen).toHaveLength(3);
    expect(lines.map((l) => JSON.parse(l).attempt)).toEqual([1, 2, 3]);
    expect(lines.map((l) => JSON.parse(l).status)).toEqual([503, 503, 200]);
  });

  it('gives up after maxAttempts with the last error, still retryable', async () => {
    const { url, seen } = await serve(() => ({ status: 502, json: { error: 'bad gateway' } }));
    const error = await client(url, { retry: { maxAttempts: 2, baseDelayMs: 1 } })
      .getPayment('pay_1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceServerError);
    expect((error as ServiceServerError).retryable).toBe(true);
    expect(seen).toHaveLength(2);
  });

  it('does not retry a refund on 503, and marks the error not retryable', async () => {
    const { url, seen } = await serve(() => ({ status: 503, text: 'Service Unavailable' }));
    const error = await client(url)
      .refundPayment('pay_1', { amountCents: 100 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceServerError);
    expect((error as ServiceServerError).retryable).toBe(false);
    expect((error as ServiceServerError).transient).toBe(true);
    expect(seen).toHaveLength(1);
  });

  it('retries apply-deposit only when an externalReferenceId makes it idempotent', async () => {
    const result = { externalPayment: fx.externalPayment, paymentLink: fx.paymentLink };
    const first = await serve((_r, i) => (i === 0 ? { status: 500, text: 'oops' } : { json: result }));
    await expect(
      client(first.url).applyCheckDeposit('cd_1', { paymentLinkId: 'pl_1' }),
    ).rejects.toBeInstanceOf(ServiceServerError);
    expect(first.seen).toHaveLength(1);
    server?.closeAllConnections();
    server?.close();

    const second = await serve((_r, i) => (i === 0 ? { status: 500, text: 'oops' } : { json: result }));
    await expect(
      client(second.url).applyCheckDeposit('cd_1', {
        paymentLinkId: 'pl_1',
        externalReferenceId: 'apply-cd_1-pl_1',
      }),
    ).resolves.toEqual(result);
    expect(second.seen).toHaveLength(2);
    expect(second.seen[0]?.body.equals(second.seen[1]?.body ?? Buffer.alloc(0))).toBe(true);
  });

  it('honours Retry-After on 429', async () => {
    const { url, seen } = await serve((_r, i) =>
      i === 0
        ? { status: 429, json: { error: 'slow down' }, headers: { 'retry-after': '1' } }
        : { json: fx.customer },
    );
    const started = Date.now();
    await expect(client(url).getCustomer('cus_1')).resolves.toEqual(fx.customer);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(seen).toHaveLength(2);
  });

  it('returns a 429 at once when Retry-After is longer than it will wait', async () => {
    const { url, seen } = await serve(() => ({
      status: 429,
      json: { error: 'later' },
      headers: { 'retry-after': '3600' },
    }));
    const error = await client(url)
      .getCustomer('cus_1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceRateLimitedError);
    expect((error as ServiceRateLimitedError).retryAfterMs).toBe(3_600_000);
    expect(seen).toHaveLength(1);
  });

  it('does not retry 4xx', async () => {
    const { url, seen } = await serve(() => ({ status: 404, json: { error: 'payment not found' } }));
    const error = await client(url)
      .getPayment('pay_x')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceNotFoundError);
    expect((error as Error).message).toBe('payment not found');
    expect(seen).toHaveLength(1);
  });
});

describe('timeouts and network errors', () => {
  it('times out a slow response with ServiceTimeoutError', async () => {
    const { url } = await serve(() => ({ json: fx.payment, delayMs: 500 }));
    const error = await client(url, { timeoutMs: 100, retry: { maxAttempts: 1 } })
      .getPayment('pay_1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceTimeoutError);
    expect((error as ServiceTimeoutError).retryable).toBe(true);
  });

  it('retries a GET after a timeout', async () => {
    const { url, seen } = await serve((_r, i) => ({ json: fx.payment, delayMs: i === 0 ? 500 : 0 }));
    await expect(client(url, { timeoutMs: 150 }).getPayment('pay_1')).resolves.toEqual(fx.payment);
    expect(seen).toHaveLength(2);
  });

  it('maps a refused connection to ServiceNetworkError', async () => {
    const { url } = await serve(() => ({ json: {} }));
    server?.close();
    server = undefined;
    const error = await client(url, { retry: { maxAttempts: 2, baseDelayMs: 1 } })
      .getPayment('pay_1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceNetworkError);
    expect(error).not.toBeInstanceOf(ServiceTimeoutError);
  });

  it('a caller abort stops at once with the caller reason', async () => {
    const { url } = await serve(() => ({ json: fx.payment, delayMs: 1_000 }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('cancelled by workflow')), 50);
    await expect(client(url).getPayment('pay_1', { signal: controller.signal })).rejects.toThrow(
      'cancelled by workflow',
    );
  });
});

describe('error mapping', () => {
  it('maps 409 REFERENCE_CONFLICT with its code', async () => {
    const { url } = await serve(() => ({
      status: 409,
      json: { error: 'reference used', code: 'REFERENCE_CONFLICT' },
    }));
    const error = await client(url)
      .recordExternalPayment('pl_1', { amountCents: 5, paidAt: '2026-11-21', externalReferenceId: 'r1' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceConflictError);
    expect((error as ServiceConflictError).code).toBe('REFERENCE_CONFLICT');
    expect((error as ServiceConflictError).retryable).toBe(false);
  });

  it('maps a plain-text 500 and keeps the text', async () => {
    const { url } = await serve(() => ({ status: 500, text: 'upstream exploded' }));
    const error = await client(url)
      .updateCustomer('cus_1', { name: 'X' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceServerError);
    expect((error as ServiceServerError).bodyText).toBe('upstream exploded');
    expect((error as ServiceServerError).message).toBe('upstream exploded');
  });

  it('a response that breaks the schema is a ServiceSchemaError, not retried', async () => {
    const { url, seen } = await serve(() => ({ json: { ...fx.payment, amountInCents: '100' } }));
    const error = await client(url)
      .getPayment('pay_1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceSchemaError);
    expect((error as ServiceSchemaError).issues).toEqual(['amountInCents']);
    expect((error as ServiceSchemaError).retryable).toBe(false);
    expect(seen).toHaveLength(1);
  });

  it('a 2xx that is not JSON is a ServiceSchemaError', async () => {
    const { url } = await serve(() => ({ text: '<html>' }));
    await expect(client(url).getPayment('pay_1')).rejects.toBeInstanceOf(ServiceSchemaError);
  });
});

describe('pagination', () => {
  it('customers() walks every page with the filters and page size 100', async () => {
    const all: Customer[] = Array.from({ length: 230 }, (_, i) => ({ ...fx.customer, id: `cus_${i}` }));
    const { url, seen } = await serve((req) => {
      const q = new URL(req.url, 'http://x').searchParams;
      const page = Number(q.get('page'));
      const size = Number(q.get('pageSize'));
      return { json: { customers: all.slice((page - 1) * size, page * size), totalResults: all.length } };
    });
    const ids: string[] = [];
    for await (const c of client(url).customers({ name: 'acme', email: '@acme' })) ids.push(c.id);
    expect(ids).toEqual(all.map((c) => c.id));
    expect(seen.map((s) => s.url)).toEqual([
      '/customers?page=1&pageSize=100&name=acme&email=%40acme',
      '/customers?page=2&pageSize=100&name=acme&email=%40acme',
      '/customers?page=3&pageSize=100&name=acme&email=%40acme',
    ]);
  });

  it('stops on an empty page even if totalResults says more', async () => {
    const { url, seen } = await serve((req) => {
      const page = Number(new URL(req.url, 'http://x').searchParams.get('page'));
      return { json: { customers: page === 1 ? [fx.customer] : [], totalResults: 50 } };
    });
    const got: Customer[] = [];
    for await (const c of client(url).customers({ pageSize: 1 })) got.push(c);
    expect(got).toHaveLength(1);
    expect(seen).toHaveLength(2);
  });

  it('clamps a page size over 100 before sending', async () => {
    const { url, seen } = await serve(() => ({ json: { customers: [], totalResults: 0 } }));
    await client(url).listCustomers({ pageSize: 500 });
    expect(seen[0]?.url).toBe('/customers?page=1&pageSize=100');
  });
});
