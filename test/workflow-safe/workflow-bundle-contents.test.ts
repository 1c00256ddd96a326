import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { cachedWorkflowBundle } from '../../src/runtime/worker/workflow-bundle.js';

// What the worker's workflow bundle carries into every workflow context. Each cached workflow (up to
// WORKER_MAX_CACHED_WORKFLOWS, 250 by default) holds its own copy of every module in it, so a schema library
// that slips in through an import is paid hundreds of times: once, zod and the service's schemas arrived
// through the retry policy's error names and the bounded worker of the ACH bench ran out of heap at about
// 200 windows. The import rule (`npm run lint`, .dependency-cruiser.cjs) keeps the sources right; this test
// reads the bundle the worker really loads.

let modules: string[];
let bytes: number;
let code: string;

beforeAll(async () => {
  const { codePath } = await cachedWorkflowBundle();
  code = readFileSync(codePath, 'utf8');
  bytes = Buffer.byteLength(code);
  // webpack names each module it bundles in a banner: /*!*** ./path ***!*/
  modules = [...new Set([...code.matchAll(/!\*{3} ([^ ]+\.[a-z]+) \*{3}!/g)].map((m) => m[1]!))];
}, 120_000);

describe('the workflow bundle', () => {
  it('is made of workflow code, workflow-safe modules and the SDK only', () => {
    expect(modules.length).toBeGreaterThan(20);
    const ours = modules.filter((m) => !m.includes('node_modules/'));
    // Paths are relative to where the bundler ran (the first process to need the bundle): any prefix.
    expect(ours.filter((m) => !/(^|\/)(workflows|src\/workflow-safe)\/[^/]+$/.test(m))).toEqual([]);
    expect(ours.length).toBeGreaterThan(20);
    // The SDK's workflow and common packages and what they bring (long, ms, nexus-rpc), nothing else.
    const packages = new Set(
      modules
        .filter((m) => m.includes('node_modules/'))
        .map((m) => /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(m)![1]!),
    );
    expect([...packages].sort()).toEqual(
      ['@temporalio/common', '@temporalio/workflow', 'long', 'ms', 'nexus-rpc'].sort(),
    );
  });

  it('holds no zod and nothing of the service schemas', () => {
    expect(modules.filter((m) => m.includes('/zod/'))).toEqual([]);
    expect(modules.filter((m) => m.includes('src/service/'))).toEqual([]);
  });

  it('stays small: under 1.5 MiB (1.1 MiB; 2.1 MiB with the sources inside its source map, 3.3 MiB with zod)', () => {
    expect(bytes).toBeLessThan(1.5 * 1024 * 1024);
  });

  it('keeps a source map for workflow stack traces, without a copy of every source file in it', () => {
    const marker = '//# sourceMappingURL=data:application/json;charset=utf-8;base64,';
    const map = JSON.parse(
      Buffer.from(code.slice(code.lastIndexOf(marker) + marker.length), 'base64').toString(),
    );
    expect(map.sourcesContent).toBeUndefined();
    expect(map.mappings.length).toBeGreaterThan(1000);
    expect(map.sources.some((s: string) => s.endsWith('src/flows/payment/workflow.ts'))).toBe(true);
  });
});
