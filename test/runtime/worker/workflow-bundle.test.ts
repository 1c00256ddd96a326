import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { NativeConnection, WorkerOptions } from '@temporalio/worker';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ActivityDependencies } from '../../../src/flows/activities.js';
import { silentLogger } from '../../../src/logging/logger.js';
import type { Tracing } from '../../../src/telemetry/tracing.js';

// The worker's workflow bundle is built once and then read from the cache: a second start neither runs the
// bundler nor rewrites the file. The child-process bundler and Worker.create are replaced here (no server needed);
// test/flows/replay/replay.test.ts exercises a real bundle from the same cache.

const calls = vi.hoisted(() => ({
  bundle: 0,
  created: [] as WorkerOptions[],
  bundled: [] as { workflowInterceptorModules?: string[] }[],
}));
vi.mock('../../../src/runtime/worker/bundle-in-child.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../../src/runtime/worker/bundle-in-child.js')>()),
  bundleInChild: async (options: { workflowInterceptorModules?: string[] }) => {
    calls.bundle += 1;
    calls.bundled.push(options);
    return { code: `// fake bundle ${calls.bundle}\n` };
  },
}));
vi.mock('@temporalio/worker', async (importOriginal) => {
  const original = await importOriginal<typeof import('@temporalio/worker')>();
  return {
    ...original,
    Worker: {
      ...original.Worker,
      create: async (options: WorkerOptions) => {
        calls.created.push(options);
        return { options };
      },
    },
  };
});

const { createBooksyncWorker } = await import('../../../src/runtime/worker/booksync-worker.js');
const { cachedWorkflowBundle, workflowBundleKey } = await import(
  '../../../src/runtime/worker/workflow-bundle.js'
);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'booksync-bundle-'));
  calls.bundle = 0;
  calls.created = [];
  calls.bundled = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const dependencies = { logger: silentLogger } as unknown as ActivityDependencies;

function start(bundleCacheDirs: string[], tracing: Tracing | null = null) {
  return createBooksyncWorker({
    connection: {} as NativeConnection,
    namespace: 'default',
    taskQueue: 'bundle-test',
    dependencies,
    bundleCacheDirs,
    tracing,
  });
}

describe('the cached workflow bundle', () => {
  it('is built at the first worker start and reused, unchanged, at the second', async () => {
    await start([dir]);
    expect(calls.bundle).toBe(1);
    const [file] = readdirSync(dir);
    expect(file).toBe(`workflow-bundle-${workflowBundleKey()}.js`);
    const codePath = path.join(dir, file!);
    const written = statSync(codePath).mtimeMs;

    await start([dir]);
    expect(calls.bundle).toBe(1);
    expect(statSync(codePath).mtimeMs).toBe(written);
    expect(readdirSync(dir)).toEqual([file]);
    for (const options of calls.created) {
      expect(options.workflowBundle).toEqual({ codePath });
      expect(options.workflowsPath).toBeUndefined();
    }
  });

  it('falls back to the next directory when the first cannot be written (a container: node_modules is root-owned)', async () => {
    // A directory below a regular file can never be created, whoever runs the test (root ignores modes).
    const blocker = path.join(dir, 'not-a-directory');
    writeFileSync(blocker, '');
    const unwritable = path.join(blocker, 'cache');
    const data = path.join(dir, 'data', 'cache');
    const first = await cachedWorkflowBundle({ cacheDirs: [unwritable, data] });
    expect(first.built).toBe(true);
    expect(path.dirname(first.codePath)).toBe(data);
    const second = await cachedWorkflowBundle({ cacheDirs: [unwritable, data] });
    expect(second).toEqual({ codePath: first.codePath, built: false });
    expect(calls.bundle).toBe(1);
  });

  it('removes bundles of older sources of the same entry once unused for a day, and only those', async () => {
    const dayAgo = (Date.now() - 25 * 3600_000) / 1000;
    const old = (name: string) => {
      writeFileSync(path.join(dir, name), '// old');
      utimesSync(path.join(dir, name), dayAgo, dayAgo);
    };
    old('workflow-bundle-0000000000000000.js');
    old('workflow-bundle-webhook-delivery-0000000000000000.js');
    writeFileSync(
      path.join(dir, 'workflow-bundle-1111111111111111.js'),
      '// recent: a previous version may be starting',
    );
    const { codePath } = await cachedWorkflowBundle({ cacheDirs: [dir] });
    expect(readdirSync(dir).sort()).toEqual(
      [
        path.basename(codePath),
        'workflow-bundle-1111111111111111.js',
        'workflow-bundle-webhook-delivery-0000000000000000.js',
      ].sort(),
    );
  });

  it('has a key that follows the sources: another entry point is another bundle', () => {
    expect(workflowBundleKey()).toMatch(/^[0-9a-f]{16}$/);
    expect(workflowBundleKey()).toBe(workflowBundleKey());
    expect(workflowBundleKey('/elsewhere/workflows.ts')).not.toBe(workflowBundleKey());
  });

  it('with tracing on, is a bundle of its own with the OpenTelemetry workflow interceptors; without, the usual one', async () => {
    const activityInterceptor = () => ({});
    const tracing = {
      sinks: { exporter: {} },
      activityInterceptors: [activityInterceptor],
      workflowInterceptorModules: ['/otel/workflow-interceptors.js'],
    } as unknown as Tracing;
    await start([dir], tracing);
    await start([dir]);
    expect(calls.bundle).toBe(2);
    expect(calls.bundled.map((b) => b.workflowInterceptorModules)).toEqual([
      ['/otel/workflow-interceptors.js'],
      undefined,
    ]);
    expect(readdirSync(dir).sort()).toEqual(
      [
        `workflow-bundle-${workflowBundleKey()}.js`,
        `workflow-bundle-traced-${workflowBundleKey()}.js`,
      ].sort(),
    );
    const [traced, plain] = calls.created as WorkerOptions[];
    expect(JSON.stringify(traced?.workflowBundle)).toContain('workflow-bundle-traced-');
    expect(traced?.sinks).toEqual({ exporter: {} });
    expect(traced?.interceptors?.activity).toEqual([activityInterceptor]);
    expect(plain?.sinks).toBeUndefined();
    expect(plain?.interceptors).toBeUndefined();
  });
});
