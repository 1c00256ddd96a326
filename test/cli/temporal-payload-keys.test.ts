import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporalCommand } from '../../src/cli/commands/temporal.js';
import { loadSettings } from '../../src/config/settings.js';
import type { PaymentSyncResult } from '../../src/flows/payment/activities-contract.js';
import { silentLogger } from '../../src/logging/logger.js';
import { booksyncWorkflowWorkerOptions } from '../../src/runtime/worker/booksync-worker.js';
import { cachedWorkflowBundle } from '../../src/runtime/worker/workflow-bundle.js';
import { payloadEncryption } from '../../src/temporal/data-converter.js';
import type { PayloadKey } from '../../src/temporal/payload-codec.js';
import { payloadKeyUsage } from '../../src/temporal/payload-key-usage.js';
import { startDevServer, uniqueTaskQueue } from '../support/temporal.js';
import { waitFor } from '../support/wait-for.js';

// `booksync temporal payload-keys` against the real Temporal dev server the tests share: a payment workflow
// runs to its end with key A, the keys rotate (B first, A kept), a second payment runs with B. The closed
// workflow's history still holds A's payloads, so A is reported in use (and `--key A` exits 1: an operator's
// script keeps it) until the namespace's retention removes that history; a key no history names exits 0.

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const key = (id: string): PayloadKey => ({ id, key: randomBytes(32) });
const keyA = key('2026-10');
const keyB = key('2026-11');
const asSetting = (keys: PayloadKey[]) => keys.map((k) => `${k.id}=${k.key.toString('base64')}`).join(',');

let env: TestWorkflowEnvironment;
let bundlePath: string;
let dataDir: string;
const firstId = `payment-pay_keys_a-${Date.now()}`;
const secondId = `payment-pay_keys_b-${Date.now()}`;

beforeAll(async () => {
  env = await startDevServer();
  dataDir = mkdtempSync(path.join(tmpdir(), 'booksync-payload-keys-'));
  const encryption = payloadEncryption([keyA]);
  ({ codePath: bundlePath } = await cachedWorkflowBundle({
    failureConverterPath: encryption!.dataConverter.failureConverterPath,
  }));
}, 240_000);
afterAll(async () => {
  await env?.teardown();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** One payment workflow to its end, written with `keys` (the first encrypts), as booksync's worker runs it. */
async function payment(keys: PayloadKey[], workflowId: string, paymentId: string): Promise<void> {
  const taskQueue = uniqueTaskQueue('payload-keys');
  const namespace = env.namespace ?? 'default';
  const dataConverter = payloadEncryption(keys)!.dataConverter;
  const worker = await Worker.create({
    ...(await booksyncWorkflowWorkerOptions({
      connection: env.nativeConnection,
      namespace,
      taskQueue,
      logger: silentLogger,
      workflowBundle: { codePath: bundlePath },
    })),
    dataConverter,
    activities: {
      async syncPayment(): Promise<PaymentSyncResult> {
        return {
          paymentId,
          status: 'SUCCEEDED',
          methodType: 'CARD',
          paymentLinkId: `pl_${paymentId}`,
          customerId: 'cus_keys',
          amountInCents: 1_000,
          madeAt: new Date().toISOString(),
          posted: [`payment:${paymentId}`],
          reversed: [],
        };
      },
    },
  });
  const client = new Client({ connection: env.connection, namespace, dataConverter });
  await worker.runUntil(
    client.workflow.execute('payment', { workflowId, taskQueue, args: [{ paymentId, syncOnStart: true }] }),
  );
}

/** `booksync temporal payload-keys <args>` in process, with the rotated keys: its exit code and output. */
async function payloadKeys(args: string[]): Promise<{ code: number | undefined; said: string }> {
  const lines: string[] = [];
  const settings = loadSettings({
    TEMPORAL_ADDRESS: env.address,
    TEMPORAL_NAMESPACE: env.namespace ?? 'default',
    BOOKSYNC_DATA_DIR: dataDir,
    PAYLOAD_KEYS: asSetting([keyB, keyA]),
  });
  const code = await temporalCommand.run({
    args: ['payload-keys', ...args],
    settings,
    logger: silentLogger,
    out: (line) => lines.push(line),
  });
  return { code, said: lines.join('\n') };
}

describe('booksync temporal payload-keys', { timeout: 240_000 }, () => {
  it('reports the old key still used by a closed workflow after a rotation, and exits 1 for it', async () => {
    await payment([keyA], firstId, 'pay_keys_a');
    // The rotation: the new key first, the old one kept while histories need it.
    await payment([keyB, keyA], secondId, 'pay_keys_b');
    // Both closed runs are in the namespace's visibility (it lags the histories a little).
    await waitFor(
      'both runs listed as closed',
      async () => {
        const usage = await payloadKeyUsage(env.connection, env.namespace ?? 'default', { firstN: 1 });
        return usage.read.closed >= 2 ? usage : undefined;
      },
      30_000,
      250,
    );

    const all = await payloadKeys([]);
    expect(all.code).toBe(0);
    expect(all.said).toMatch(
      /namespace '.+': 2 workflow runs read \(0 running, 2 closed\); a closed workflow is kept 1 day/,
    );
    expect(all.said).toContain(
      `key ${keyA.id}: 1 workflow run (0 running, 1 closed), in PAYLOAD_KEYS\n    ${firstId} (completed)`,
    );
    expect(all.said).toContain(
      `key ${keyB.id}: 1 workflow run (0 running, 1 closed), in PAYLOAD_KEYS (encrypts)\n    ${secondId} (completed)`,
    );

    const old = await payloadKeys(['--key', keyA.id]);
    expect(old.code).toBe(1);
    expect(old.said).toContain(
      `key ${keyA.id} is still used by 1 workflow run (0 running, 1 closed): keep it in PAYLOAD_KEYS`,
    );
  });

  it('exits 0 for a key no history uses, and bounds the ids it lists (--first)', async () => {
    const unused = await payloadKeys(['--key', '2025-01']);
    expect(unused.code).toBe(0);
    expect(unused.said).toContain(
      "key 2025-01: no workflow history in namespace '" +
        (env.namespace ?? 'default') +
        "' uses it; it can be dropped",
    );
    const none = await payloadKeys(['--first', '0']);
    expect(none.said).toContain(
      `key ${keyA.id}: 1 workflow run (0 running, 1 closed), in PAYLOAD_KEYS\n    ... and 1 more`,
    );
    expect(none.said).not.toContain(firstId);
    await expect(payloadKeys(['--first', 'many'])).rejects.toThrow(/--first takes a whole number/);
  });

  it('as an operator runs it (the CLI, a child process, no key given though encryption is required): exit 1 while the key is in a history', async () => {
    const cli = (args: string[]) =>
      run(process.execPath, [path.join(root, 'bin/booksync.js'), 'temporal', 'payload-keys', ...args], {
        cwd: dataDir,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          TEMPORAL_ADDRESS: env.address,
          TEMPORAL_NAMESPACE: env.namespace ?? 'default',
          BOOKSYNC_DATA_DIR: dataDir,
          // What the workers run with; this command still needs no key.
          PAYLOAD_ENCRYPTION_REQUIRED: 'true',
          LOG_LEVEL: 'silent',
        },
        timeout: 120_000,
      }).then(
        ({ stdout }) => ({ code: 0, stdout }),
        (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
      );
    const used = await cli(['--key', keyA.id]);
    expect(used.code, used.stdout).toBe(1);
    expect(used.stdout).toContain(`key ${keyA.id} is still used by 1 workflow run`);
    const unused = await cli(['--key', 'never-used']);
    expect(unused.code, unused.stdout).toBe(0);
  });
  it('a workflow still running with the old key counts as running; terminated, it counts as closed', async () => {
    const namespace = env.namespace ?? 'default';
    const client = new Client({
      connection: env.connection,
      namespace,
      dataConverter: payloadEncryption([keyA])!.dataConverter,
    });
    // Started before the rotation, on a task queue no worker polls: running, its input written with A.
    const waiting = await client.workflow.start('payment', {
      workflowId: `payment-pay_keys_waiting-${Date.now()}`,
      taskQueue: uniqueTaskQueue('payload-keys-idle'),
      args: [{ paymentId: 'pay_keys_waiting', syncOnStart: true }],
    });
    await waitFor(
      'the running workflow listed',
      async () => {
        const usage = await payloadKeyUsage(env.connection, namespace, { firstN: 1 });
        return usage.read.running >= 1 ? usage : undefined;
      },
      30_000,
      250,
    );
    const running = await payloadKeys(['--key', keyA.id]);
    expect(running.code).toBe(1);
    expect(running.said).toContain(`key ${keyA.id}: 2 workflow runs (1 running, 1 closed)`);
    expect(running.said).toContain(`${waiting.workflowId} (running)`);

    await waiting.terminate('test over');
    await waitFor(
      'the terminated workflow listed as closed',
      async () => {
        const usage = await payloadKeyUsage(env.connection, namespace, { firstN: 1 });
        return usage.read.running === 0 ? usage : undefined;
      },
      30_000,
      250,
    );
    const closed = await payloadKeys(['--key', keyA.id]);
    expect(closed.code).toBe(1);
    expect(closed.said).toContain(`key ${keyA.id}: 2 workflow runs (0 running, 2 closed)`);
    expect(closed.said).toContain(`${waiting.workflowId} (terminated)`);
  });
});
