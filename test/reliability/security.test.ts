import { connect, type Socket } from 'node:net';
import { sign } from '@booksync/service-contract/webhook-signature';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcessStack } from '../support/process-stack.js';
import { waitFor } from '../support/wait-for.js';
import { hasAll, runPaymentScenario } from './scenario.js';

// Keys, logs and listener limits, on the stack as processes (worker logging at debug, JSON, captured).

const commandKey = 'cmd-key-7f3c9a1e5b2d4f60-security';

describe('security', () => {
  let stack: ProcessStack;
  const presented: string[] = [];

  beforeAll(async () => {
    stack = await ProcessStack.start({ commandApiKey: commandKey });
  }, 300_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('refuses the emulator API, its sandbox, organization creation and the command API without their keys (401)', async () => {
    const wrong = 'sk_wrong_0123456789abcdef';
    presented.push(wrong);
    const statuses = {
      apiNoKey: (await fetch(`${stack.emulatorUrl}/paymentLinks`)).status,
      apiWrongKey: (
        await fetch(`${stack.emulatorUrl}/paymentLinks`, { headers: { authorization: `Bearer ${wrong}` } })
      ).status,
      sandboxNoKey: (await fetch(`${stack.emulatorUrl}/sandbox/events`)).status,
      faultsNoKey: (
        await fetch(`${stack.emulatorUrl}/sandbox/faults`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ rate: 1, kinds: ['500'] }),
        })
      ).status,
      organizationWithApiKey: (
        await fetch(`${stack.emulatorUrl}/sandbox/organizations`, {
          method: 'POST',
          headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'intruder' }),
        })
      ).status,
      commandsNoKey: (await fetch(`${stack.ingressUrl}/commands/paymentLinks/pl_1`)).status,
      commandsWrongKey: (
        await fetch(`${stack.ingressUrl}/commands/paymentLinks/pl_1`, {
          headers: { authorization: `Bearer ${wrong}` },
        })
      ).status,
      commandsEmulatorKey: (
        await fetch(`${stack.ingressUrl}/commands/paymentLinks/pl_1`, {
          headers: { authorization: `Bearer ${stack.apiKey}` },
        })
      ).status,
    };
    expect(statuses).toEqual({
      apiNoKey: 401,
      apiWrongKey: 401,
      sandboxNoKey: 401,
      faultsNoKey: 401,
      organizationWithApiKey: 401,
      commandsNoKey: 401,
      commandsWrongKey: 401,
      commandsEmulatorKey: 401,
    });
    // Control: the right keys get in.
    const admin = await fetch(`${stack.emulatorUrl}/sandbox/organizations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'second org', members: [{ name: 'owner' }] }),
    });
    expect(admin.status).toBe(201);
    const adminBody = JSON.parse(await admin.text()) as { members: { apiKeys: string[] }[] };
    presented.push(...adminBody.members.flatMap((m) => m.apiKeys));
    expect(
      (
        await fetch(`${stack.emulatorUrl}/paymentLinks`, {
          headers: { authorization: `Bearer ${stack.apiKey}` },
        })
      ).status,
    ).toBe(200);
  });

  it('writes no secret to any log: API keys, webhook secret, command key, admin token, signatures (ingress, worker process, emulator, service client, CLI)', async () => {
    // A full scenario: payments and refunds over signed webhooks, forged and stale deliveries, the command
    // API with a wrong and the right key, a reconciliation from the CLI.
    const expected = await runPaymentScenario(stack, { count: 6, label: 'logs' });
    const link = await stack.service.createPaymentLink({
      name: 'logs: paid by check',
      requestedAmountCents: 7_00,
    });
    const signatures: string[] = [];
    const body = JSON.stringify((await stack.events())[0]?.event);
    const forged = sign('whsec_forgedforgedforgedforged', body, Math.floor(Date.now() / 1000));
    const stale = sign(stack.webhookSecret, body, Math.floor(Date.now() / 1000) - 3_600);
    signatures.push(forged, stale);
    for (const header of [forged, stale]) {
      const r = await fetch(`${stack.ingressUrl}/webhooks/service`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'service-signature': header },
        body,
      });
      expect(r.status).toBe(401);
    }
    const recordCheck = (key: string) =>
      fetch(`${stack.ingressUrl}/commands/paymentLinks/${link.id}/externalPayments`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'idempotency-key': 'security-record-check-1001',
        },
        body: JSON.stringify({ amountCents: 7_00, paidAt: '2026-01-05', externalReferenceId: 'chk-1001' }),
      });
    expect((await recordCheck(`${commandKey}-nope`)).status).toBe(401);
    presented.push(`${commandKey}-nope`);
    expect((await recordCheck(commandKey)).status).toBe(201);
    await waitFor('books', async () => hasAll(expected.expected)(await stack.books()), 300_000, 1_000);
    await waitFor(
      'the external payment booked',
      async () => Object.keys((await stack.books()).entries).some((k) => k.startsWith('external-payment:')),
      120_000,
      1_000,
    );
    await stack.waitForQuiet();
    const reconcile = await stack.runCli(['reconcile', '--all'], { LOG_LEVEL: 'debug' });
    expect(reconcile.code).toBe(0);

    // The emulator signed every delivery; those signatures are secrets of a kind too (replayable for 5 min).
    const secrets: Record<string, string> = {
      'service API key': stack.apiKey,
      'webhook secret': stack.webhookSecret,
      'webhook secret without prefix': stack.webhookSecret.replace(/^whsec_/, ''),
      'command API key': commandKey,
      'emulator admin token': stack.adminToken,
    };
    presented.forEach((value, i) => {
      secrets[`presented credential #${i}`] = value;
    });
    signatures.forEach((value, i) => {
      secrets[`signature #${i}`] = value;
      secrets[`signature #${i} v1`] = /v1=([0-9a-f]+)/.exec(value)?.[1] ?? value;
    });
    const text = stack.logs.text();
    const sources = new Set(stack.logs.lines.map((l) => l.split(' ')[0]?.split(':')[0]));
    // The capture is real: every part logged, at debug, hundreds of lines.
    for (const source of ['ingress', 'emulator', 'worker#1', 'test-service-client', 'cli']) {
      expect(sources).toContain(source);
    }
    expect(stack.logs.lines.length).toBeGreaterThan(100);
    const leaks = Object.entries(secrets).flatMap(([name, value]) => {
      const probes = [value, value.slice(Math.floor(value.length / 2) - 8, Math.floor(value.length / 2) + 8)];
      return probes.some((probe) => probe.length >= 12 && text.includes(probe)) ? [name] : [];
    });
    expect(leaks).toEqual([]);
    expect(text).not.toMatch(/v1=[0-9a-f]{16}/);
    expect(text).not.toMatch(/whsec_[A-Za-z0-9]/);
    expect(text).not.toMatch(/Bearer [A-Za-z0-9_-]{8}/);
  }, 600_000);

  it('answers 413 to a body over the limit: 64 KiB at the ingress, 1 MiB at the emulator', async () => {
    const over = (bytes: number) => JSON.stringify({ pad: 'x'.repeat(bytes) });
    const atIngress = (body: string) =>
      fetch(`${stack.ingressUrl}/webhooks/service`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'service-signature': sign(stack.webhookSecret, body, Math.floor(Date.now() / 1000)),
        },
        body,
      });
    expect((await atIngress(over(64 * 1024))).status).toBe(413);
    expect((await atIngress(over(60 * 1024))).status).toBe(400); // under the limit: read, then refused as no envelope
    const atEmulator = (body: string) =>
      fetch(`${stack.emulatorUrl}/paymentLink`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
        body,
      });
    expect((await atEmulator(over(1024 * 1024))).status).toBe(413);
    expect((await atEmulator(over(1000 * 1024))).status).toBe(400);
    expect(
      (
        await fetch(`${stack.ingressUrl}/commands/paymentLinks/pl_1/sync`, {
          method: 'POST',
          headers: { authorization: `Bearer ${commandKey}`, 'content-type': 'application/json' },
          body: over(64 * 1024),
        })
      ).status,
    ).toBe(413);
  });

  it('closes slow-loris connections (headers or body trickled a byte a second) on the ingress, the emulator and the worker health endpoint', async () => {
    const slowLoris = (base: string, urlPath: string, mode: 'headers' | 'body', headers: string[] = []) =>
      new Promise<{ closedAfterMs: number; answer: string }>((resolve, reject) => {
        const url = new URL(base);
        const started = Date.now();
        let answer = '';
        const socket: Socket = connect(Number(url.port), url.hostname);
        let timer: NodeJS.Timeout | undefined;
        socket.on('connect', () => {
          const head = [
            `POST ${urlPath} HTTP/1.1`,
            `Host: ${url.host}`,
            'content-type: application/json',
            ...headers,
          ];
          if (mode === 'headers') {
            socket.write(`${head.join('\r\n')}\r\nx-slow: `);
          } else {
            socket.write(`${head.join('\r\n')}\r\ncontent-length: 4000\r\n\r\n{`);
          }
          // One byte a second: never idle, never done.
          timer = setInterval(() => socket.write('a'), 1_000);
        });
        socket.on('data', (chunk) => {
          answer += chunk.toString();
        });
        socket.on('error', () => undefined);
        socket.on('close', () => {
          clearInterval(timer);
          resolve({ closedAfterMs: Date.now() - started, answer: answer.split('\r\n')[0] ?? '' });
        });
        setTimeout(() => {
          clearInterval(timer);
          socket.destroy();
          reject(new Error(`${base}${urlPath} (${mode}): slow-loris connection still open after 170 s`));
        }, 170_000);
      });
    const worker = stack.worker;
    expect(worker).not.toBeNull();
    const signature = `service-signature: ${sign(stack.webhookSecret, '{}', Math.floor(Date.now() / 1000))}`;
    const results = await Promise.all([
      slowLoris(stack.ingressUrl, '/webhooks/service', 'headers'),
      slowLoris(stack.ingressUrl, '/webhooks/service', 'body', [signature]),
      slowLoris(stack.ingressUrl, `/commands/paymentLinks/pl_1/sync`, 'body', [
        `authorization: Bearer ${commandKey}`,
      ]),
      slowLoris(stack.emulatorUrl, '/paymentLink', 'headers'),
      slowLoris(stack.emulatorUrl, '/paymentLink', 'body', [`authorization: Bearer ${stack.apiKey}`]),
      slowLoris(worker!.healthUrl, '/healthz', 'headers'),
    ]);
    console.info('[slow-loris]', JSON.stringify(results));
    for (const result of results) expect(result.answer).not.toMatch(/^HTTP\/1\.1 2/);
  }, 200_000);
});
