import { defineConfig } from 'vitest/config';

// Workflow tests start real Temporal servers: one dev server for the whole run (globalSetup) and a
// time-skipping test server per file that needs one. Forks isolate native modules (better-sqlite3,
// Temporal's core bridge) per file; two cores make more than two workers counter-productive.
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    // CI also writes a JSON report, from which .ci/run prints its closing 'N passed, N failed' line.
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: 'test/.artifacts/vitest-report.json' },
  },
});
