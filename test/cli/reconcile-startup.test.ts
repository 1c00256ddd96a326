import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReconcileArgs } from '../../src/cli/commands/reconcile.js';
import { loadSettings } from '../../src/config/settings.js';
import { createLogger } from '../../src/logging/logger.js';
import { type RunningBooksync, startBooksync } from '../../src/runtime/booksync-stack.js';
import { reconciliationScheduleId } from '../../src/runtime/temporal/reconciliation-schedule.js';
import { startDevServer, uniqueTaskQueue } from '../support/temporal.js';

// booksync's own start-up against a running Temporal server: the reconciliation Schedule is in place,
// and `booksync reconcile` (the real CLI, a child process) signals the `reconcile` workflow and prints the report.

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
let env: TestWorkflowEnvironment;
let booksync: RunningBooksync;
let dataDir: string;
const taskQueue = uniqueTaskQueue('startup');

beforeAll(async () => {
  env = await startDevServer();
  dataDir = mkdtempSync(path.join(tmpdir(), 'booksync-startup-'));
  const settings = loadSettings({
    TEMPORAL_ADDRESS: env.address,
    TEMPORAL_NAMESPACE: env.namespace ?? 'default',
    TEMPORAL_TASK_QUEUE: taskQueue,
    BOOKSYNC_DATA_DIR: dataDir,
    EMULATOR_PORT: '0',
    INGRESS_PORT: '0',
    METRICS_PORT: '0',
    RECONCILE_INTERVAL: '15m',
  });
  booksync = await startBooksync(settings, createLogger({ level: 'silent', format: 'json' }));
}, 180_000);

afterAll(async () => {
  await booksync?.stop();
  await env?.teardown();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('start-up and the reconcile command', { timeout: 180_000 }, () => {
  it('creates the booksync-reconcile Schedule from RECONCILE_INTERVAL on the task queue', async () => {
    const schedule = await env.client.schedule.getHandle(reconciliationScheduleId).describe();
    expect(schedule.spec.intervals?.[0]?.every).toBe(15 * 60 * 1000);
    expect(schedule.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'reconciliation',
      taskQueue,
    });
    expect(schedule.policies.overlap).toBe('SKIP');
  });

  it('booksync reconcile --all prints the report of its run', async () => {
    const reconcile = () =>
      run(process.execPath, [path.join(root, 'bin/booksync.js'), 'reconcile', '--all'], {
        cwd: dataDir,
        env: {
          ...process.env,
          TEMPORAL_ADDRESS: env.address,
          TEMPORAL_NAMESPACE: env.namespace ?? 'default',
          TEMPORAL_TASK_QUEUE: taskQueue,
          BOOKSYNC_DATA_DIR: dataDir,
          LOG_LEVEL: 'silent',
        },
        timeout: 150_000,
      });
    // The seed's three links, one reusable: the first run books the two invoices nothing had booked yet.
    const { stdout } = await reconcile();
    expect(stdout).toMatch(/^reconciliation reconcile-[0-9a-f-]{36} done$/m);
    expect(stdout).toMatch(/^examined: links 3, payments 0, disbursements 0, check deposits 0$/m);
    expect(stdout).toContain('fixed: posted invoice 2; reversed none (2 entries)');
    const again = await reconcile();
    expect(again.stdout).toContain('fixed: posted none; reversed none (0 entries)');
  });

  it('parses the scope flags, one at a time', () => {
    expect(parseReconcileArgs([]).scope).toEqual({ kind: 'all' });
    expect(parseReconcileArgs(['--link', 'pl_1']).scope).toEqual({ kind: 'link', paymentLinkId: 'pl_1' });
    expect(parseReconcileArgs(['--customer', 'cus_1']).scope).toEqual({
      kind: 'customer',
      customerId: 'cus_1',
    });
    expect(parseReconcileArgs(['--since', '2026-01-31']).scope).toEqual({
      kind: 'paymentsSince',
      date: '2026-01-31',
    });
    expect(() => parseReconcileArgs(['--since', '31/01/2026'])).toThrow(/YYYY-MM-DD/);
    expect(() => parseReconcileArgs(['--all', '--link', 'pl_1'])).toThrow(/one of/);
    expect(() => parseReconcileArgs(['--link'])).toThrow(/needs a value/);
  });
});
