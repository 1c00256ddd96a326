import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { registerSearchAttributes } from '../../src/runtime/temporal/register-search-attributes.js';
import { cachedWorkflowBundle } from '../../src/runtime/worker/workflow-bundle.js';
import { resolveTemporalCli, resolveTemporalTestServer } from '../../src/temporal/binaries.js';
import { booksyncSearchAttributes } from '../../src/workflow-safe/search-attributes.js';
import { sharedDevServerEnvironment } from './shared-temporal.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const artifacts = path.join(root, 'test', '.artifacts');
let runtimeInstalled = false;

/** Keeps the Temporal runtime quiet in test output unless TEMPORAL_TEST_LOG is set. */
export function installQuietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger((process.env.TEMPORAL_TEST_LOG as 'WARN') ?? 'ERROR') });
  } catch {
    // Already installed by an earlier helper in this process.
  }
}

/**
 * A real Temporal dev server (the CLI's, SQLite in memory) on loopback with booksync's search attributes: a
 * fresh namespace on the run's shared server (test/support/shared-temporal.ts; pass `env.namespace` on with
 * `env.address`), or a server of its own when `extraArgs` (for `temporal server start-dev`, e.g.
 * `--dynamic-config-value limit.maxIDLength=100`) are given or no shared server runs.
 */
export async function startDevServer(extraArgs: string[] = []): Promise<TestWorkflowEnvironment> {
  installQuietRuntime();
  if (extraArgs.length === 0) {
    const shared = await sharedDevServerEnvironment();
    if (shared) return shared;
  }
  return startOwnDevServer(extraArgs);
}

/** A dev server of the caller's own, which its teardown stops (a test of Temporal going away). */
export async function startOwnDevServer(extraArgs: string[] = []): Promise<TestWorkflowEnvironment> {
  installQuietRuntime();
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: await resolveTemporalCli(),
      ip: '127.0.0.1',
      searchAttributes: booksyncSearchAttributes,
      log: { format: 'pretty', level: 'error' },
      ...(extraArgs.length > 0 ? { extraArgs } : {}),
    },
  });
}

/** Temporal's Java time-skipping test server on loopback: durable timers of days finish in seconds. */
export async function startTimeSkipping(): Promise<TestWorkflowEnvironment> {
  installQuietRuntime();
  for (let attempt = 1; ; attempt++) {
    try {
      const env = await TestWorkflowEnvironment.createTimeSkipping({
        server: { executable: resolveTemporalTestServer() },
      });
      await registerSearchAttributes(env.connection, env.namespace ?? 'default');
      return env;
    } catch (error) {
      // The SDK's core waits a fixed 5 s for the server to answer; a JVM starting while the other test
      // forks run end-to-end stacks can take longer. Another try, on another port, after a pause that lets a
      // burst of load pass, not a failed file.
      if (attempt >= 5 || !String(error).includes('did not start within')) throw error;
      await sleep(1_000 * attempt);
    }
  }
}

/**
 * The workflow bundle, built once per change of the sources and shared by every test file and run
 * (bundling takes seconds; doing it per test would dominate workflow tests). The same cache as a worker's
 * (src/runtime/worker/workflow-bundle.ts), kept under test/.artifacts.
 */
export async function workflowBundle(): Promise<{ codePath: string }> {
  const { codePath } = await cachedWorkflowBundle({ cacheDirs: [artifacts] });
  return { codePath };
}

/** A task queue name unique to one test, so tests sharing a server never steal each other's tasks. */
export function uniqueTaskQueue(prefix: string): string {
  return `${prefix}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}

export const fixturesDir = path.join(root, 'test', 'fixtures');
