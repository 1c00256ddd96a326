import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentSyncResult } from '../../src/flows/payment/activities-contract.js';
import { silentLogger } from '../../src/logging/logger.js';
import { booksyncWorkflowWorkerOptions } from '../../src/runtime/worker/booksync-worker.js';
import { cachedWorkflowBundle } from '../../src/runtime/worker/workflow-bundle.js';
import { payloadEncryption } from '../../src/temporal/data-converter.js';
import { ENCRYPTED_ENCODING, type PayloadKey } from '../../src/temporal/payload-codec.js';
import { fixturesDir, startDevServer } from '../support/temporal.js';

// Encrypted payloads through a real Temporal server: booksync's payment workflow run by a
// worker and a client with PAYLOAD_KEYS leaves only ciphertext in the server's history (inputs, results,
// the failure an activity retried through, its message quoting a customer), reads back through the codec,
// replays after a key rotation, refuses to decode without its key, and histories recorded before encryption
// still replay with encryption on. With PAYLOAD_ENCRYPTION_REQUIRED the same workflow runs (nothing booksync
// writes or reads is plain), while a workflow started by a client without the keys is refused by the worker,
// and a history recorded before encryption no longer replays.

const key = (id: string): PayloadKey => ({ id, key: randomBytes(32) });
const oldKey = key('2026-01');
const newKey = key('2026-11');
const secret = 'Ada Lovelace, invoice INV-1006';

let env: TestWorkflowEnvironment;
let bundlePath: string;
beforeAll(async () => {
  env = await startDevServer();
  const encryption = payloadEncryption([oldKey]);
  ({ codePath: bundlePath } = await cachedWorkflowBundle({
    failureConverterPath: encryption!.dataConverter.failureConverterPath,
  }));
}, 240_000);
afterAll(async () => {
  await env?.teardown();
});

function encryptedClient(keys: PayloadKey[], required = false): Client {
  return new Client({
    connection: env.connection,
    namespace: env.namespace ?? 'default',
    dataConverter: payloadEncryption(keys, { required })!.dataConverter,
  });
}

describe('encrypted payloads with a real Temporal server', () => {
  let history: Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>;
  const workflowId = `encrypted-payment-${Date.now()}`;

  it('keeps inputs, results and failures out of the server in plain text, and reads them back', async () => {
    const taskQueue = `encryption-${Date.now()}`;
    let attempts = 0;
    const activities = {
      async syncPayment(): Promise<PaymentSyncResult> {
        // A target's refusal quotes the customer and the invoice; retried, it stays in the history as the
        // last failure of the attempt that succeeded.
        if (++attempts === 1) throw ApplicationFailure.retryable(`QuickBooks refused: ${secret}`, 'Refused');
        return {
          paymentId: 'pay_enc_1',
          status: 'SUCCEEDED',
          methodType: 'CARD',
          paymentLinkId: 'pl_enc_1',
          customerId: secret,
          amountInCents: 12_345,
          madeAt: new Date().toISOString(),
          posted: ['payment:pay_enc_1'],
          reversed: [],
        };
      },
    };
    const worker = await Worker.create({
      ...(await booksyncWorkflowWorkerOptions({
        connection: env.nativeConnection,
        namespace: env.namespace ?? 'default',
        taskQueue,
        logger: silentLogger,
        workflowBundle: { codePath: bundlePath },
      })),
      // Encryption required: every payload this run reads (input, results, the retried failure) is booksync's.
      dataConverter: payloadEncryption([oldKey], { required: true })!.dataConverter,
      activities,
    });
    const client = encryptedClient([oldKey], true);
    const view = await worker.runUntil(
      client.workflow.execute('payment', {
        workflowId,
        taskQueue,
        args: [{ paymentId: 'pay_enc_1', syncOnStart: true }],
      }),
    );
    expect(attempts).toBe(2);
    expect(view).toMatchObject({ paymentId: 'pay_enc_1' });
    // Through the codec, the business's data reads back.
    history = await client.workflow.getHandle(workflowId).fetchHistory();
    // Without it (the server's view, the Web UI without the codec server): ciphertext only.
    const raw = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const text = JSON.stringify(raw);
    expect(text).not.toContain('Ada Lovelace');
    expect(text).not.toContain('INV-1006');
    const payloads = (raw.events ?? []).flatMap((e) =>
      [
        e.workflowExecutionStartedEventAttributes?.input?.payloads,
        e.activityTaskScheduledEventAttributes?.input?.payloads,
        e.activityTaskCompletedEventAttributes?.result?.payloads,
        e.workflowExecutionCompletedEventAttributes?.result?.payloads,
      ].flatMap((p) => p ?? []),
    );
    expect(payloads.length).toBeGreaterThanOrEqual(4);
    for (const p of payloads) {
      expect(Buffer.from(p.metadata?.encoding ?? new Uint8Array()).toString()).toBe(ENCRYPTED_ENCODING);
    }
    const lastFailure = (raw.events ?? []).find((e) => e.activityTaskStartedEventAttributes?.lastFailure)
      ?.activityTaskStartedEventAttributes?.lastFailure;
    expect(lastFailure?.message).toBe('Encoded failure');
  }, 180_000);

  it('replays after a rotation (new key first, old kept) and refuses to decode without the old key', async () => {
    const rotated = {
      workflowBundle: { codePath: bundlePath },
      dataConverter: payloadEncryption([newKey, oldKey])!.dataConverter,
    };
    await expect(Worker.runReplayHistory(rotated, history, workflowId)).resolves.toBeUndefined();
    const onlyNew = {
      workflowBundle: { codePath: bundlePath },
      dataConverter: payloadEncryption([newKey])!.dataConverter,
    };
    // The replay's workflow task fails on the payload it cannot decode (the worker logs the key it lacks; the
    // failure itself is encoded, as every failure is with encryption on).
    await expect(Worker.runReplayHistory(onlyNew, history, workflowId)).rejects.toThrow(/Replay failed/);
    // A client holding both reads what the old key wrote.
    const result = await encryptedClient([newKey, oldKey]).workflow.getHandle(workflowId).result();
    expect(result).toMatchObject({ paymentId: 'pay_enc_1' });
  }, 120_000);

  it('replays a history recorded before encryption was turned on, unless encryption is required', async () => {
    const file = path.join(fixturesDir, 'histories', 'payment-demo-day.json');
    const recorded = JSON.parse(readFileSync(file, 'utf8'));
    const options = {
      workflowBundle: { codePath: bundlePath },
      dataConverter: payloadEncryption([newKey])!.dataConverter,
    };
    await expect(Worker.runReplayHistory(options, recorded, 'payment-demo-day')).resolves.toBeUndefined();
    const required = {
      workflowBundle: { codePath: bundlePath },
      dataConverter: payloadEncryption([newKey], { required: true })!.dataConverter,
    };
    await expect(Worker.runReplayHistory(required, recorded, 'payment-demo-day')).rejects.toThrow();
  }, 120_000);

  it('with encryption required, a worker refuses a workflow started without the keys (a plain input)', async () => {
    const taskQueue = `encryption-required-${Date.now()}`;
    const forgedId = `forged-payment-${Date.now()}`;
    let synced = 0;
    const worker = await Worker.create({
      ...(await booksyncWorkflowWorkerOptions({
        connection: env.nativeConnection,
        namespace: env.namespace ?? 'default',
        taskQueue,
        logger: silentLogger,
        workflowBundle: { codePath: bundlePath },
      })),
      dataConverter: payloadEncryption([newKey], { required: true })!.dataConverter,
      activities: {
        async syncPayment(): Promise<PaymentSyncResult> {
          synced += 1;
          throw new Error('a forged payment must never reach an activity');
        },
      },
    });
    // Temporal's own client without booksync's converter: what anyone who reaches Temporal can send.
    const handle = await env.client.workflow.start('payment', {
      workflowId: forgedId,
      taskQueue,
      args: [{ paymentId: 'pay_forged_1', syncOnStart: true }],
    });
    const failedTask = async () => {
      const history = await handle.fetchHistory();
      return (history.events ?? []).find((e) => e.workflowTaskFailedEventAttributes);
    };
    let failed: Awaited<ReturnType<typeof failedTask>>;
    await worker.runUntil(async () => {
      const deadline = Date.now() + 60_000;
      failed = await failedTask();
      while (!failed && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        failed = await failedTask();
      }
    });
    expect(failed, 'the workflow task failed').toBeDefined();
    expect(synced).toBe(0);
    // The workflow is still there, waiting: nothing of the forged input was acted on.
    const described = await encryptedClient([newKey]).workflow.getHandle(forgedId).describe();
    expect(described.status.name).toBe('RUNNING');
    // The task's failure names the problem (encoded, as every failure is with encryption on: read it with the key).
    const encoded = failed!.workflowTaskFailedEventAttributes!.failure!.encodedAttributes!;
    const [attributes] = await payloadEncryption([newKey])!.codec.decode([
      { metadata: encoded.metadata ?? {}, data: encoded.data ?? new Uint8Array() },
    ]);
    const { message } = JSON.parse(Buffer.from(attributes!.data!).toString()) as { message: string };
    expect(message).toMatch(
      /not encrypted \(encoding json\/plain\) was refused: PAYLOAD_ENCRYPTION_REQUIRED=true/,
    );
    expect(message).not.toContain('pay_forged_1');
    await handle.terminate('test over');
  }, 120_000);
});
