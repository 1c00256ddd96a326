import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemoAgainst } from '../../src/cli/commands/demo.js';
import { loadSettings, type Settings } from '../../src/config/settings.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { createLogger } from '../../src/logging/logger.js';
import { type RunningBooksync, startBooksync } from '../../src/runtime/booksync-stack.js';
import { freePort } from '../support/free-port.js';
import type { PostgresCluster } from '../support/postgres.js';
import { sharedPostgres } from '../support/shared-postgres.js';
import { startDevServer, uniqueTaskQueue } from '../support/temporal.js';

// booksync's whole stack with LEDGER_URL: the demo's day goes through webhooks and workflows into the ledger on
// PostgreSQL, and the ledger-mirror target is pushed from the target index in the same database.

let cluster: PostgresCluster;
let env: TestWorkflowEnvironment;
let booksync: RunningBooksync;
let settings: Settings;
let dataDir: string;
let url: string;

beforeAll(async () => {
  [cluster, env] = await Promise.all([sharedPostgres({ name: 'stack-ledger' }), startDevServer()]);
  url = await cluster.createDatabase('books');
  dataDir = mkdtempSync(path.join(tmpdir(), 'booksync-pg-stack-'));
  settings = loadSettings({
    TEMPORAL_ADDRESS: env.address,
    TEMPORAL_NAMESPACE: env.namespace ?? 'default',
    TEMPORAL_TASK_QUEUE: uniqueTaskQueue('pg-ledger'),
    BOOKSYNC_DATA_DIR: dataDir,
    LEDGER_URL: url,
    ACCOUNTING_TARGET: 'ledger-mirror',
    EMULATOR_PORT: String(await freePort()),
    INGRESS_PORT: String(await freePort()),
    METRICS_PORT: '0',
  });
  booksync = await startBooksync(settings, createLogger({ level: 'silent', format: 'json' }));
}, 180_000);

afterAll(async () => {
  await booksync?.stop();
  await env?.teardown();
  await cluster?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('the stack with the ledger on PostgreSQL', { timeout: 300_000 }, () => {
  it('books the demo day in PostgreSQL and pushes it to a target from the index there', async () => {
    expect(booksync.ledgerLocation).toBe(url);
    const lines: string[] = [];
    await runDemoAgainst(settings, booksync.ledger, (line) => lines.push(line));
    expect(lines.join('\n')).toContain('balanced');

    const trial = await booksync.ledger.trialBalance();
    expect(trial.balanced).toBe(true);
    const entries = await booksync.ledger.allEntries();
    expect(entries.length).toBeGreaterThan(10);
    const rows = await cluster.psql('SELECT count(*) FROM entries', 'books');
    expect(Number(rows.trim())).toBe(entries.length);
    expect((await cluster.psql("SELECT to_regclass('target_index') IS NOT NULL", 'books')).trim()).toBe('t');

    // Every entry reaches the mirror, recorded in PostgreSQL's target index; the mirror's books match.
    const pushedAll = async () => {
      const [total, pushed] = (
        await cluster.psql(
          "SELECT (SELECT count(*) FROM entries), (SELECT count(*) FROM target_index WHERE target = 'ledger-mirror' AND status = 'PUSHED')",
          'books',
        )
      )
        .trim()
        .split('|')
        .map(Number);
      return total === pushed;
    };
    for (const deadline = Date.now() + 120_000; !(await pushedAll()); ) {
      if (Date.now() > deadline) throw new Error('the ledger-mirror target did not take every entry');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const mirror = EmbeddedLedger.open({ path: path.join(dataDir, 'ledger-mirror.db') });
    try {
      expect(await mirror.balances()).toEqual(await booksync.ledger.balances());
    } finally {
      mirror.close();
    }
  });
});
