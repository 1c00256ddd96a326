import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleInChild, withoutHeapBounds } from '../../../src/runtime/worker/bundle-in-child.js';

// The workflow bundle is built by the SDK's webpack in a child process, so its working memory never stays
// in the worker's RSS; the worker gets the code from the child's stdout.

// Inside the project, so webpack resolves @temporalio/workflow from its node_modules.
const artifacts = fileURLToPath(new URL('../../.artifacts/', import.meta.url));
mkdirSync(artifacts, { recursive: true });
const dir = mkdtempSync(path.join(artifacts, 'bundle-child-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bundling in a child process', () => {
  it("builds the SDK's bundle of a workflow file, with a worker's heap bounds in NODE_OPTIONS", async () => {
    const workflowsPath = path.join(dir, 'workflows.ts');
    writeFileSync(
      workflowsPath,
      "import { sleep } from '@temporalio/workflow';\nexport async function childBundledGreeting(): Promise<string> {\n  await sleep(1);\n  return 'bundled in a child';\n}\n",
    );
    const before = process.env.NODE_OPTIONS;
    // A worker holding thousands of windows runs with these; webpack would not build under them.
    process.env.NODE_OPTIONS = '--max-old-space-size=64 --max-semi-space-size=1';
    try {
      const { code } = await bundleInChild({ workflowsPath });
      expect(code).toContain('childBundledGreeting');
      expect(code).toContain('bundled in a child');
      expect(code.length).toBeGreaterThan(10_000);
    } finally {
      if (before === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = before;
    }
  }, 120_000);

  it("fails with the bundler's own message when the workflows cannot be bundled", async () => {
    const workflowsPath = path.join(dir, 'broken.ts');
    writeFileSync(
      workflowsPath,
      "import { nothing } from '../../worker/no-such-module';\nexport const x = nothing;\n",
    );
    await expect(bundleInChild({ workflowsPath })).rejects.toThrow(
      /bundling the workflows failed.*no-such-module/s,
    );
  }, 120_000);

  it('passes NODE_OPTIONS on without the V8 heap bounds', () => {
    expect(
      withoutHeapBounds(
        '--max-old-space-size=192  --import ./hooks.mjs --max-semi-space-size=2 --use-openssl-ca',
      ),
    ).toBe('--import ./hooks.mjs --use-openssl-ca');
    expect(withoutHeapBounds(undefined)).toBe('');
  });
});
