import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { createEmulator, type Emulator } from '@booksync/emulator/server';
import { MAX_SIGNATURE_HEADER_LENGTH } from '@booksync/service-contract/webhook-signature';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type RunningIngress, startIngress } from '../../src/ingress/main.js';
import { silentLogger } from '../../src/logging/logger.js';
import {
  deliver,
  deliverEvent,
  envelope,
  nowSeconds,
  request,
  secretA,
  signed,
  terminateAll,
  workflowExists,
} from '../ingress/harness.js';
import { startDevServer, uniqueTaskQueue } from '../support/temporal.js';

// What a hostile review found at booksync's doors, over real HTTP against a real Temporal dev
// server: object ids that cannot be workflow ids, the signature header's edge cases (decision “Signature details”)
// and probes behind authentication. The dev server's id limit is lowered to 60 characters, so an id
// booksync accepts can still be one Temporal refuses.

const temporalIdLimit = 60;
const commandKey = 'command-key-for-ingress-hardening';
const taskQueue = uniqueTaskQueue('hardening');
const started = new Set<string>();

let env: TestWorkflowEnvironment;
let ingress: RunningIngress;
let url: string;
let emulator: Emulator;
let emulatorUrl: string;

beforeAll(async () => {
  env = await startDevServer(['--dynamic-config-value', `limit.maxIDLength=${temporalIdLimit}`]);
  ingress = await startIngress({
    temporal: { client: env.client },
    taskQueue,
    webhookSecrets: [secretA],
    commandApiKey: commandKey,
    logger: silentLogger,
  });
  url = ingress.address;
  emulator = createEmulator();
  emulatorUrl = await emulator.app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await ingress?.close();
  await emulator?.app.close();
  if (env) {
    await terminateAll(env.client, started);
    await env.teardown();
  }
});

async function workflowsOnQueue(): Promise<number> {
  return (await env.client.workflow.count(`TaskQueue = "${taskQueue}"`)).count;
}

describe('object ids at the ingress', () => {
  it.each([
    ['a NUL', 'pay_\u0000x'],
    ['a slash', 'pay/1'],
    ['a space', 'pay 1'],
    ['a control character', 'pay_\u0007'],
    ['a line break', 'pay_1\n'],
    ['a comma', 'pay,1'],
    ['5,000 characters', 'p'.repeat(5_000)],
  ])('an associated_object_id with %s answers 400 and starts nothing', async (_what, objectId) => {
    const before = await workflowsOnQueue();
    const answer = await deliverEvent(
      url,
      envelope('payment.made', 'payment', { associated_object_id: objectId }),
    );
    expect(answer).toMatchObject({ status: 400, json: { code: 'invalid_object_id' } });
    expect(answer.json.error).toMatch(/^associated_object_id: /);
    if (`payment-${objectId}`.length <= temporalIdLimit) {
      expect(await workflowExists(env.client, `payment-${objectId}`)).toBe(false);
    }
    expect(await workflowsOnQueue()).toBe(before);
  });

  it('an id Temporal refuses (INVALID_ARGUMENT) answers 400, never 503, on the webhook and the command API', async () => {
    // Within booksync's 200 characters (and Fastify's 100 for a path parameter), over the server's limit.
    const objectId = `p_${'x'.repeat(temporalIdLimit)}`;
    const webhook = await deliverEvent(
      url,
      envelope('payment.made', 'payment', { associated_object_id: objectId }),
    );
    expect(webhook).toMatchObject({ status: 400, json: { code: 'rejected_by_temporal' } });
    const command = await request(`${url}/commands/paymentLinks/${objectId}/sync`, {
      method: 'POST',
      headers: { authorization: `Bearer ${commandKey}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(command).toMatchObject({ status: 400, json: { code: 'rejected_by_temporal' } });
    const metrics = (await request(`${url}/metrics`, { headers: { authorization: `Bearer ${commandKey}` } }))
      .text;
    expect(metrics).toContain('booksync_ingress_deliveries_rejected_total{reason="rejected_by_temporal"} 1');
    expect(metrics).not.toMatch(/booksync_ingress_signal_failures_total\{[^}]*\} [1-9]/);
  });

  it('a well-formed id still starts its workflow (control)', async () => {
    const event = envelope('payment.made', 'payment', { associated_object_id: 'pay_Ok-1.2:3~4' });
    const answer = await deliverEvent(url, event);
    expect(answer).toMatchObject({
      status: 200,
      json: { routed: true, workflowId: 'payment-pay_Ok-1.2:3~4' },
    });
    started.add('payment-pay_Ok-1.2:3~4');
  });
});

describe('signature header form (decision “Signature details”)', () => {
  const body = () => JSON.stringify(envelope('payment.made', 'payment'));
  const hex = (b: string, t: number) => createHmac('sha256', secretA).update(`${t}.${b}`).digest('hex');

  /** A header at exactly `length` characters: the valid one padded with an ignored v0 entry. */
  const padded = (valid: string, length: number) => {
    const room = length - valid.length - ',v0='.length;
    return `${valid},v0=${'0'.repeat(room)}`;
  };

  it.each([
    ['whitespace after a comma', 401, (b: string, t: number) => `t=${t}, v1=${hex(b, t)}`],
    ['whitespace around "="', 401, (b: string, t: number) => `t = ${t},v1 = ${hex(b, t)}`],
    ['a tab inside', 401, (b: string, t: number) => `t=${t},\tv1=${hex(b, t)}`],
    ['uppercase hex', 401, (b: string, t: number) => `t=${t},v1=${hex(b, t).toUpperCase()}`],
    ['a repeated t (same value)', 401, (b: string, t: number) => `t=${t},t=${t},v1=${hex(b, t)}`],
    ['a trailing comma', 401, (b: string, t: number) => `t=${t},v1=${hex(b, t)},`],
    ['an empty entry', 401, (b: string, t: number) => `t=${t},,v1=${hex(b, t)}`],
    ['an over-long header (4 KiB)', 401, (b: string, t: number) => padded(`t=${t},v1=${hex(b, t)}`, 4_096)],
    [
      `a header one character over ${MAX_SIGNATURE_HEADER_LENGTH}`,
      401,
      (b: string, t: number) => padded(`t=${t},v1=${hex(b, t)}`, MAX_SIGNATURE_HEADER_LENGTH + 1),
    ],
    [
      `a header of exactly ${MAX_SIGNATURE_HEADER_LENGTH} characters`,
      200,
      (b: string, t: number) => padded(`t=${t},v1=${hex(b, t)}`, MAX_SIGNATURE_HEADER_LENGTH),
    ],
    [
      'several v1 entries, one of them matching (rotation)',
      200,
      (b: string, t: number) => `t=${t},v1=${'a'.repeat(64)},v1=${hex(b, t)}`,
    ],
    [
      'whitespace around the whole value (HTTP strips it)',
      200,
      (b: string, t: number) => ` ${signed(secretA, b, t)} `,
    ],
  ] as const)('%s answers %i', async (_what, status, header) => {
    const b = body();
    const answer = await deliver(url, { body: b, signature: header(b, nowSeconds()) });
    expect(answer.status).toBe(status);
    if (status === 401) {
      expect(answer.json).toEqual({
        error: 'signature rejected: malformed header',
        code: 'malformed_header',
      });
    } else {
      started.add(String(answer.json.workflowId));
    }
    const workflowId = `payment-${(JSON.parse(b) as { associated_object_id: string }).associated_object_id}`;
    expect(await workflowExists(env.client, workflowId)).toBe(status === 200);
  });

  it('a repeated Service-Signature header (two lines, each valid alone) answers 401', async () => {
    const b = body();
    const valid = signed(secretA, b);
    const { port } = new URL(url);
    // Raw bytes: fetch would merge the two lines into one before sending.
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.end(
          [
            'POST /webhooks/service HTTP/1.1',
            'Host: 127.0.0.1',
            'Content-Type: application/json',
            `Service-Signature: ${valid}`,
            `Service-Signature: ${valid}`,
            `Content-Length: ${Buffer.byteLength(b)}`,
            'Connection: close',
            '',
            b,
          ].join('\r\n'),
        );
      });
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 401 /);
    expect(raw).toContain('"code":"malformed_header"');
  });
});

describe('health outside authentication', () => {
  /** The URL each booksync service's docker-compose healthcheck fetches. */
  const composeProbe = (service: string): string => {
    const compose = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as {
      services: Record<string, { healthcheck: { test: string[] } }>;
    };
    const match = /fetch\('http:\/\/127\.0\.0\.1:\d+(\/[a-z]+)'\)/.exec(
      compose.services[service]!.healthcheck.test.join(' '),
    );
    return match![1]!;
  };

  it('the emulator answers /healthz and /readyz without a key (its docker-compose healthcheck included)', async () => {
    for (const path of ['/healthz', '/readyz', composeProbe('emulator')]) {
      expect((await request(`${emulatorUrl}${path}`)).status, path).toBe(200);
      const wrongKey = await request(`${emulatorUrl}${path}`, {
        headers: { authorization: 'Bearer sk_not_a_key' },
      });
      expect(wrongKey.status, `${path} with a wrong key`).toBe(200);
    }
    expect(await request(`${emulatorUrl}/healthz`)).toMatchObject({ json: { status: 'ok' } });
    expect(await request(`${emulatorUrl}/readyz`)).toMatchObject({ json: { status: 'ready' } });
    // Control: the API itself still wants its key.
    expect((await request(`${emulatorUrl}/paymentLinks`)).status).toBe(401);
    expect((await request(`${emulatorUrl}/healthz/x`)).status).toBe(401);
  });

  it('the ingress answers /healthz and /readyz without a key while the command API wants one', async () => {
    for (const path of ['/healthz', '/readyz', composeProbe('ingress')]) {
      expect((await request(`${url}${path}`)).status, path).toBe(200);
      const wrongKey = await request(`${url}${path}`, { headers: { authorization: 'Bearer nope' } });
      expect(wrongKey.status, `${path} with a wrong key`).toBe(200);
    }
    expect((await request(`${url}/commands/paymentLinks/pl_1`)).status).toBe(401);
  });
});
