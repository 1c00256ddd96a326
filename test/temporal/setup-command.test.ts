import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { seedDemo } from '@booksync/emulator/seed';
import { createEmulator, type Emulator } from '@booksync/emulator/server';
import { Store } from '@booksync/emulator/store/store';
import { DirectHttpDispatcher } from '@booksync/emulator/webhooks/direct-http-dispatcher';
import { msToTs } from '@temporalio/common/lib/time.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { booksyncSearchAttributes } from '../../src/workflow-safe/search-attributes.js';
import {
  type BareDevServer,
  customAttributes,
  expectAllOfBooksyncs,
  kill,
  startBareDevServer,
} from '../support/bare-dev-server.js';
import { freePort } from '../support/free-port.js';
import { waitFor } from '../support/wait-for.js';

// Booksync registers its own search attributes against a Temporal that has none of them, as a
// fresh production namespace: `booksync temporal setup` (the one-shot docker compose runs before the
// workers) and `booksync worker` at start. The dev servers here are started WITHOUT booksync's
// `--search-attribute` flags, and the CLI runs as a child process, as an operator runs it.

const bin = fileURLToPath(new URL('../../bin/booksync.js', import.meta.url));

let dir: string;

/** `node bin/booksync.js <args>` in an empty folder (no .env), with exactly `env` plus PATH and HOME. */
function booksync(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'booksync-temporal-setup-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('booksync temporal setup', () => {
  let server: BareDevServer;
  beforeAll(async () => {
    server = await startBareDevServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('registers all of booksync search attributes on a fresh Temporal, and finds nothing to add the second time', async () => {
    const before = await customAttributes(server);
    for (const key of booksyncSearchAttributes) expect(before, 'a fresh server').not.toHaveProperty(key.name);

    const first = await booksync(['temporal', 'setup'], { TEMPORAL_ADDRESS: server.address });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout.trim().split('\n')).toHaveLength(1);
    expect(first.stdout).toContain(
      `registered ${booksyncSearchAttributes.length} of ${booksyncSearchAttributes.length} search attributes in namespace 'default'`,
    );
    for (const key of booksyncSearchAttributes) expect(first.stdout).toContain(`${key.name} (${key.type})`);
    expectAllOfBooksyncs(await customAttributes(server));

    const second = await booksync(['temporal', 'setup'], { TEMPORAL_ADDRESS: server.address });
    expect(second.code).toBe(0);
    expect(second.stdout.trim()).toBe(
      `all ${booksyncSearchAttributes.length} search attributes of booksync already registered in namespace 'default': nothing to add`,
    );
    expectAllOfBooksyncs(await customAttributes(server));
  });

  it('adds only the missing ones when some are there', async () => {
    const ns = `partial-${process.pid}`;
    await server.connection.workflowService.registerNamespace({
      namespace: ns,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    await waitFor(
      `namespace ${ns}`,
      () =>
        server.connection.operatorService
          .listSearchAttributes({ namespace: ns })
          .then(() => true)
          .catch(() => false),
      30_000,
      250,
    );
    const { temporal } = (await import('@temporalio/proto')).default;
    await server.connection.operatorService.addSearchAttributes({
      namespace: ns,
      searchAttributes: { SyncState: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD },
    });
    const run = await booksync(['temporal', 'setup'], {
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: ns,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `registered ${booksyncSearchAttributes.length - 1} of ${booksyncSearchAttributes.length}`,
    );
    expect(run.stdout).not.toContain('SyncState');
    expectAllOfBooksyncs(await customAttributes(server, ns));
  });

  it('fails with one line naming the cause: no TEMPORAL_ADDRESS, Temporal unreachable, unknown namespace', async () => {
    const missing = await booksync(['temporal', 'setup'], {});
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe(
      "booksync: TEMPORAL_ADDRESS: required by 'booksync temporal setup' (set it in the environment or .env)",
    );

    const unreachable = await booksync(['temporal', 'setup'], {
      TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`,
    });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr.trim().split('\n')).toHaveLength(1);
    expect(unreachable.stderr).toMatch(
      /^booksync: TEMPORAL_ADDRESS: cannot reach Temporal at 127\.0\.0\.1:\d+/,
    );

    const unknown = await booksync(['temporal', 'setup'], {
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: 'no-such-namespace',
    });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    expect(unknown.stderr).toContain(
      "booksync: cannot register booksync's search attributes in namespace 'no-such-namespace'",
    );

    const wrong = await booksync(['temporal', 'nonsense'], { TEMPORAL_ADDRESS: server.address });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr.trim()).toBe(
      "booksync: unknown temporal command 'nonsense': see 'booksync temporal --help'",
    );
  });
});

describe('booksync worker on a fresh Temporal', () => {
  let server: BareDevServer;
  let store: Store;
  let emulator: Emulator;
  let worker: ChildProcess | undefined;
  let output = '';

  beforeAll(async () => {
    server = await startBareDevServer();
    store = new Store({ dbPath: path.join(dir, 'emulator.db') });
    emulator = createEmulator({
      store,
      adminToken: 'admin-token-of-the-setup-test',
      logger: createLogger({ level: 'silent', name: 'emulator' }),
      dispatcher: (s) => new DirectHttpDispatcher({ store: s, backoffMs: [200] }),
    });
  });
  afterAll(async () => {
    if (worker) {
      kill(worker, 'SIGKILL');
      await new Promise((resolve) =>
        worker?.exitCode !== null ? resolve(null) : worker.once('exit', resolve),
      );
    }
    await emulator?.app.close();
    store?.close();
    await server?.stop();
  });

  it('registers booksync search attributes before it runs', async () => {
    const apiKey = seedDemo(store).apiKey;
    const emulatorUrl = await emulator.app.listen({ host: '127.0.0.1', port: 0 });
    expect(Object.keys(await customAttributes(server))).not.toContain('SyncState');
    const metricsPort = await freePort();
    worker = spawn(process.execPath, [bin, 'worker'], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        BOOKSYNC_DATA_DIR: dir,
        LEDGER_DB: path.join(dir, 'books.db'),
        TEMPORAL_ADDRESS: server.address,
        TEMPORAL_TASK_QUEUE: `setup-test-${process.pid}`,
        SERVICE_BASE_URL: emulatorUrl,
        SERVICE_API_KEY: apiKey,
        METRICS_PORT: String(metricsPort),
        LOG_LEVEL: 'info',
        LOG_FORMAT: 'json',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    worker.stdout?.on('data', (d: Buffer) => {
      output += d.toString();
    });
    worker.stderr?.on('data', (d: Buffer) => {
      output += d.toString();
    });
    await waitFor(
      'the worker ready',
      async () => {
        if (worker?.exitCode !== null) throw new Error(`worker exited with ${worker?.exitCode}:\n${output}`);
        const response = await fetch(`http://127.0.0.1:${metricsPort}/readyz`).catch(() => null);
        return response?.status === 200;
      },
      180_000,
      250,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${output.slice(-4000)}`);
    });
    expectAllOfBooksyncs(await customAttributes(server));
    const registered = output
      .split('\n')
      .filter((line) => line.includes('registered booksync search attributes'))
      .map((line) => JSON.parse(line) as { added: string[] });
    expect(registered).toHaveLength(1);
    expect(registered[0]!.added.sort()).toEqual(booksyncSearchAttributes.map((k) => k.name).sort());
    // It ran its start-up in order: the attributes before the worker was created and polled.
    expect(output.indexOf('registered booksync search attributes')).toBeLessThan(
      output.indexOf('worker running'),
    );
  }, 240_000);
});
