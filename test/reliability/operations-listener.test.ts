import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverEvent, envelope, metricValue, request, secretA, terminateAll } from '../ingress/harness.js';
import { freePort } from '../support/free-port.js';
import { startDevServer, uniqueTaskQueue } from '../support/temporal.js';
import { waitFor } from '../support/wait-for.js';

// `booksync ingress` as an operator runs it, over real HTTP. Unset OPS_PORT keeps one
// listener for everything; with OPS_PORT the public listener serves only the webhook route and health, and
// the command API, /metrics and /events/unrouted answer on OPS_HOST:OPS_PORT only.

const bin = fileURLToPath(new URL('../../bin/booksync.js', import.meta.url));
const commandKey = 'command-key-for-the-operations-listener';
const taskQueue = uniqueTaskQueue('ops-listener');
const started = new Set<string>();

let env: TestWorkflowEnvironment;
let dir: string;

beforeAll(async () => {
  env = await startDevServer();
  // The CLI reads a .env from its working folder: an empty folder of its own.
  dir = mkdtempSync(path.join(tmpdir(), 'booksync-ops-'));
});
afterAll(async () => {
  if (env) {
    await terminateAll(env.client, started);
    await env.teardown();
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function environment(extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    BOOKSYNC_DATA_DIR: dir,
    TEMPORAL_ADDRESS: env.address,
    TEMPORAL_NAMESPACE: env.namespace ?? 'default',
    TEMPORAL_TASK_QUEUE: taskQueue,
    WEBHOOK_SECRETS: secretA,
    COMMAND_API_KEY: commandKey,
    LOG_LEVEL: 'warn',
    LOG_FORMAT: 'json',
    ...extra,
  };
}

interface IngressProcess {
  child: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

/** `node bin/booksync.js ingress`, ready once `readyUrl` answers. */
async function startIngressProcess(extra: Record<string, string>, readyUrl: string): Promise<IngressProcess> {
  const child = spawn(process.execPath, [bin, 'ingress'], {
    cwd: dir,
    env: environment(extra),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitFor(
    'the ingress process listening',
    async () => {
      if (child.exitCode !== null) throw new Error(`booksync ingress exited ${child.exitCode}:\n${output}`);
      return (await fetch(readyUrl).catch(() => null))?.status === 200;
    },
    60_000,
    200,
  );
  return {
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

function runCli(args: string[], extra: Record<string, string>) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: dir,
      env: environment(extra),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => resolve({ code, output }));
  });
}

const withKey = { authorization: `Bearer ${commandKey}`, 'content-type': 'application/json' };
const syncCommand = (base: string, linkId: string) =>
  request(`${base}/commands/paymentLinks/${linkId}/sync`, { method: 'POST', headers: withKey, body: '{}' });

describe('booksync ingress without OPS_PORT (default)', () => {
  it('serves the webhook, health, metrics, unrouted events and the command API on its one listener (the operators’ endpoints with the command API key only)', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const ingress = await startIngressProcess({ INGRESS_PORT: String(port) }, `${url}/healthz`);
    try {
      const delivered = await deliverEvent(url, envelope('payment.made', 'payment'));
      expect(delivered.status).toBe(200);
      started.add(String(delivered.json.workflowId));
      expect((await deliverEvent(url, envelope('invoice.created', 'payment'))).status).toBe(200);
      const command = await syncCommand(url, `pl_default_${Date.now()}`);
      expect(command.status).toBe(202);
      started.add(String(command.json.workflowId));

      expect((await request(`${url}/healthz`)).status).toBe(200);
      expect((await request(`${url}/readyz`)).status).toBe(200);
      // That listener faces the service (the internet): what operators read there takes the command API key.
      expect((await request(`${url}/events/unrouted`)).status).toBe(401);
      expect((await request(`${url}/metrics`)).status).toBe(401);
      expect((await request(`${url}/events/unrouted`, { headers: withKey })).json.events).toHaveLength(1);
      const metrics = await request(`${url}/metrics`, { headers: withKey });
      expect(metrics.status).toBe(200);
      expect(metricValue(metrics.text, 'booksync_ingress_deliveries_received_total')).toBe(2);
    } finally {
      await ingress.stop();
    }
  });
});

describe('booksync ingress with OPS_PORT', () => {
  let ingress: IngressProcess;
  let publicUrl: string;
  let opsUrl: string;
  let opsEnv: Record<string, string>;

  beforeAll(async () => {
    const [publicPort, opsPort] = [await freePort(), await freePort()];
    publicUrl = `http://127.0.0.1:${publicPort}`;
    opsUrl = `http://127.0.0.1:${opsPort}`;
    opsEnv = { INGRESS_PORT: String(publicPort), OPS_HOST: '127.0.0.1', OPS_PORT: String(opsPort) };
    ingress = await startIngressProcess(opsEnv, `${publicUrl}/healthz`);
    // The operations listener opens right after the public one.
    await waitFor(
      'the operations listener',
      async () => (await fetch(`${opsUrl}/healthz`).catch(() => null))?.status === 200,
      5_000,
    );
  });
  afterAll(async () => {
    await ingress?.stop();
  });

  it('the public listener serves the webhook route and health only', async () => {
    const delivered = await deliverEvent(publicUrl, envelope('payment.made', 'payment'));
    expect(delivered).toMatchObject({ status: 200, json: { routed: true } });
    started.add(String(delivered.json.workflowId));
    expect((await deliverEvent(publicUrl, envelope('invoice.created', 'payment'))).status).toBe(200);
    expect(await request(`${publicUrl}/healthz`)).toMatchObject({ status: 200, json: { status: 'ok' } });
    expect(await request(`${publicUrl}/readyz`)).toMatchObject({ status: 200, json: { status: 'ready' } });

    for (const path of ['/metrics', '/events/unrouted', '/commands/paymentLinks/pl_1']) {
      expect(await request(`${publicUrl}${path}`, { headers: withKey }), path).toMatchObject({
        status: 404,
        json: { code: 'not_found' },
      });
    }
    expect((await syncCommand(publicUrl, 'pl_public')).status).toBe(404);
  });

  it('the operations listener serves the command API, metrics, unrouted events and health, not the webhook', async () => {
    const command = await syncCommand(opsUrl, `pl_ops_${Date.now()}`);
    expect(command.status).toBe(202);
    started.add(String(command.json.workflowId));
    expect(
      (await request(`${opsUrl}/commands/paymentLinks/pl_1/sync`, { method: 'POST', body: '{}' })).status,
    ).toBe(401);
    expect((await request(`${opsUrl}/healthz`)).status).toBe(200);
    expect((await request(`${opsUrl}/readyz`)).status).toBe(200);

    // One set of metrics and unrouted events for both listeners: what arrived on the public one shows here.
    const metrics = await request(`${opsUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metricValue(metrics.text, 'booksync_ingress_deliveries_received_total')).toBeGreaterThanOrEqual(2);
    const unrouted = await request(`${opsUrl}/events/unrouted`);
    expect(unrouted.json.events).toEqual([expect.objectContaining({ category: 'invoice.created' })]);

    const webhook = await deliverEvent(opsUrl, envelope('payment.made', 'payment'));
    expect(webhook).toMatchObject({ status: 404, json: { code: 'not_found' } });
  });

  it("the CLI's business commands go to the operations listener", async () => {
    const linkId = `pl_cli_${Date.now()}`;
    const result = await runCli(['link', 'sync', linkId], opsEnv);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain(`payment-link-${linkId}`);
    started.add(`payment-link-${linkId}`);
  });
});
