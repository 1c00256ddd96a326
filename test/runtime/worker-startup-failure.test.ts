import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config/settings.js';
import { createLogger } from '../../src/logging/logger.js';
import { startBooksyncWorker } from '../../src/runtime/worker/booksync-worker-process.js';
import { ServiceClient } from '../../src/service/client.js';
import { startDevServer, uniqueTaskQueue } from '../support/temporal.js';

// A worker start-up that fails after the Temporal worker is made (here its health endpoint's port is taken;
// in CI a Schedule call that timed out under load) must let go of its Temporal connection: a worker made but
// never run held it, the connection could not close ("Cannot close connection while Workers hold a reference
// to it") and `booksync start` hung instead of exiting with its error.

let env: TestWorkflowEnvironment;
let dataDir: string;
let taken: net.Server;

beforeAll(async () => {
  env = await startDevServer();
  dataDir = mkdtempSync(path.join(tmpdir(), 'booksync-worker-failure-'));
  taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => taken?.close(resolve));
  await env?.teardown();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('a worker start-up that fails after the worker is made', { timeout: 120_000 }, () => {
  it('fails with its error and leaves the Temporal connection free to close', async () => {
    const port = (taken.address() as net.AddressInfo).port;
    const settings = loadSettings({
      TEMPORAL_ADDRESS: env.address,
      TEMPORAL_NAMESPACE: env.namespace ?? 'default',
      TEMPORAL_TASK_QUEUE: uniqueTaskQueue('startup-failure'),
      BOOKSYNC_DATA_DIR: dataDir,
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: String(port),
    });
    const connection = await NativeConnection.connect({ address: env.address });
    try {
      await expect(
        startBooksyncWorker({
          settings,
          logger: createLogger({ level: 'silent', format: 'json' }),
          connection,
          client: env.client,
          service: new ServiceClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'unused' }),
        }),
      ).rejects.toThrow(/EADDRINUSE/);
    } finally {
      // Refused while a worker made by the failed start still held it.
      await expect(connection.close()).resolves.toBeUndefined();
    }
  });
});
