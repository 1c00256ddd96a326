import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime } from '@temporalio/worker';
import { resolveTemporalCli, resolveTemporalTestServer } from '../../src/temporal/binaries.js';
import { registerSearchAttributes } from '../../src/temporal/register-search-attributes.js';
import { booksyncSearchAttributes } from '../../src/temporal/search-attributes.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const artifacts = path.join(root, 'test', '.artifacts');
let runtimeInstalled = false;

/** Keeps the Temporal runtime quiet in test output unless TEMPORAL_TEST_LOG is set. */
function installQuietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger((process.env.TEMPORAL_TEST_LOG as 'WARN') ?? 'ERROR') });
  } catch {
    // Already installed by an earlier helper in this process.
  }
}

/**
 * A real Temporal dev server (the CLI's, SQLite in memory) on loopback with booksync's search attributes.
 * `extraArgs` go to `temporal server start-dev`, e.g. `--dynamic-config-value limit.maxIDLength=100`.
 */
export async function startDevServer(extraArgs: string[] = []): Promise<TestWorkflowEnvironment> {
  installQuietRuntime();
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: resolveTemporalCli(),
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
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: resolveTemporalTestServer() },
  });
  await registerSearchAttributes(env.connection, env.namespace ?? 'default');
  return env;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/**
 * The workflow bundle, built once per change of the sources and shared by every test file and run
 * (bundling takes seconds; doing it per test would dominate workflow tests).
 */
export async function workflowBundle(): Promise<{ codePath: string }> {
  const files = [...sourceFiles(path.join(root, 'workflows')), ...sourceFiles(path.join(root, 'activities'))];
  files.push(...sourceFiles(path.join(root, 'src', 'temporal')));
  const hash = createHash('sha256');
  for (const file of files.sort()) hash.update(file).update(readFileSync(file));
  const codePath = path.join(artifacts, `workflow-bundle-${hash.digest('hex').slice(0, 16)}.js`);
  if (!existsSync(codePath)) {
    mkdirSync(artifacts, { recursive: true });
    const { code } = await bundleWorkflowCode({
      workflowsPath: path.join(root, 'workflows', 'index.ts'),
      logger: new DefaultLogger('WARN'),
    });
    const tmp = `${codePath}.${process.pid}.tmp`;
    writeFileSync(tmp, code);
    renameSync(tmp, codePath);
  }
  return { codePath };
}

/** A task queue name unique to one test, so tests sharing a server never steal each other's tasks. */
export function uniqueTaskQueue(prefix: string): string {
  return `${prefix}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}

export const fixturesDir = path.join(root, 'test', 'fixtures');
