import { fileURLToPath } from 'node:url';
import { contractsDirCandidates, findContractsDir } from '@booksync/vendor-doubles/contracts';
import { configDefaults, defineConfig } from 'vitest/config';
import { testsNeedingContracts } from './test/support/contract-tests.js';
import { LongestFirstSequencer } from './test/support/longest-first-sequencer.js';
import { filesOfTier, type Tier, testTiers } from './test/support/test-tiers.js';

// Workflow tests start real Temporal servers: one dev server for the whole run (globalSetup) and a
// time-skipping test server per file that needs one. Forks isolate native modules (better-sqlite3,
// Temporal's core bridge) per file. Three workers on two cores: the long end-to-end files spend about two
// thirds of their time waiting on the stacks they drive (a books scenario used 32 % of a core), so a third
// worker fills that wait (a fourth measured no faster: docs/decisions.md); BOOKSYNC_TEST_WORKERS sets another count.

// The QuickBooks and Xero doubles are held to the vendors' published contracts, which live beside the
// repository, not in it (packages/vendor-doubles/src/contracts.ts). On a clone without them the tests that need them
// are left out with one line saying so; under CI they run, and fail naming where the contracts were looked for.
const withoutContracts =
  findContractsDir() === null && !process.env.CI
    ? testsNeedingContracts(fileURLToPath(new URL('.', import.meta.url)))
    : [];
if (withoutContracts.length > 0) {
  console.warn(
    `booksync: ${withoutContracts.length} test files left out, the QuickBooks and Xero doubles' (they need the vendors' published contracts, not found in ${contractsDirCandidates().join(', ')}; set BOOKSYNC_CONTRACTS_DIR to a folder holding quickbooks-online/xsd/ and xero/xero_accounting.yaml): ${withoutContracts.join(' ')}`,
  );
}

// Three tiers, each a vitest project (`vitest run --project unit`): unit (no process, no server: the inner
// loop), integration (real servers and processes), e2e (booksync run as its users run it). Which file is in
// which tier is read from the files (test/support/test-tiers.ts); `npm test` runs all three.
const root = fileURLToPath(new URL('.', import.meta.url));
const tiers = testTiers(root);
// BOOKSYNC_TEST_PROCESSES=<file>: each test file writes its process id there (scripts/ci-cpu.py).
const recordProcess = process.env.BOOKSYNC_TEST_PROCESSES ? ['test/support/record-test-process.ts'] : [];
const tier = (name: Tier, extra: { setupFiles?: string[]; isolate?: boolean } = {}) => ({
  extends: true as const,
  test: {
    name,
    include: filesOfTier(tiers, name),
    ...extra,
    setupFiles: [...(extra.setupFiles ?? []), ...recordProcess],
  },
});

export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: Number(process.env.BOOKSYNC_TEST_WORKERS ?? 3),
    exclude: [...configDefaults.exclude, ...withoutContracts],
    globalSetup: ['test/support/global-setup.ts'],
    // The long files first (test/support/test-file-seconds.ts), so two workers end together.
    sequence: { sequencer: LongestFirstSequencer },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    // CI also writes a JSON report, from which .ci/run prints its closing 'N passed, N failed' line.
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: 'test/.artifacts/vitest-report.json' },
    projects: [
      // A unit file holds no process, socket or native handle of its own, so the tier's files share their
      // workers' module cache instead of importing everything again per file (the tier's import time was
      // more than its tests' time).
      tier('unit', { setupFiles: ['test/support/unit-guard.ts'], isolate: false }),
      tier('integration'),
      tier('e2e'),
    ],
  },
});
