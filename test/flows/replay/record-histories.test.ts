import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SandboxClient } from '@booksync/emulator/sandbox-client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBackfill } from '../../../src/cli/commands/backfill.js';
import { runDemoAgainst } from '../../../src/cli/commands/demo.js';
import { requestPayoutPeriodReport, requestPayoutReport } from '../../../src/cli/commands/payout.js';
import { requestReconciliation } from '../../../src/cli/commands/reconcile.js';
import { loadSettings, type Settings } from '../../../src/config/settings.js';
import { createLogger } from '../../../src/logging/logger.js';
import { type RunningBooksync, startBooksync } from '../../../src/runtime/booksync-stack.js';
import { readEmbeddedCredentials } from '../../../src/runtime/embedded-credentials.js';
import { ServiceClient } from '../../../src/service/client.js';
import { freePort } from '../../support/free-port.js';
import { fixturesDir, startDevServer, uniqueTaskQueue } from '../../support/temporal.js';
import { recordedWorkflowTypes, workflowTypes } from '../workflow-types.js';

// The recorder of replay fixtures: the demo's business day, a backfill and the payout reports through the
// whole stack (booksync start's composition, the ledger-mirror target), then one history of every workflow
// type written to test/fixtures/histories/<type>-demo-day.json. Run it on the code of the release a change
// must stay compatible with (a checkout of the previous release), before changing a workflow:
//
//   BOOKSYNC_RECORD_HISTORIES=1 npm test -- test/flows/replay/record-histories.test.ts
//
// test/flows/replay/replay.test.ts then replays every recorded history on today's code, and fails when a
// workflow type has none. scripts/record-previous-histories.ts runs this recorder (or a type's own test) on
// the previous version's code in a temporary worktree and keeps the manifest the replay rule reads
// (test/flows/replay/replay-rule.test.ts).

const recording = process.env.BOOKSYNC_RECORD_HISTORIES === '1';

describe.skipIf(!recording)('recording a history of every workflow type', { timeout: 600_000 }, () => {
  let env: TestWorkflowEnvironment;
  let booksync: RunningBooksync;
  let settings: Settings;
  let dataDir: string;

  beforeAll(async () => {
    env = await startDevServer();
    dataDir = mkdtempSync(path.join(tmpdir(), 'booksync-record-'));
    settings = loadSettings({
      TEMPORAL_ADDRESS: env.address,
      TEMPORAL_NAMESPACE: env.namespace ?? 'default',
      TEMPORAL_TASK_QUEUE: uniqueTaskQueue('record'),
      BOOKSYNC_DATA_DIR: dataDir,
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
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs a day, a backfill and the payout reports, and writes one history a workflow type', async () => {
    await runDemoAgainst(settings, booksync.ledger, () => undefined);
    const today = new Date().toISOString().slice(0, 10);
    await runBackfill(booksync.client, {
      since: today,
      requestsPerSecond: 50,
      pageSize: 100,
      json: false,
      timeoutSeconds: 300,
      taskQueue: settings.TEMPORAL_TASK_QUEUE,
    });
    const credentials = readEmbeddedCredentials(dataDir);
    const service = new ServiceClient({
      baseUrl: booksync.serviceBaseUrl,
      apiKey: credentials?.apiKey ?? '',
    });
    const { disbursements } = await service.listDisbursements({ page: 1, pageSize: 10 });
    const disbursement = disbursements[0];
    if (disbursement) {
      await requestPayoutReport(booksync.client, {
        disbursementId: disbursement.id,
        taskQueue: settings.TEMPORAL_TASK_QUEUE,
      });
    }
    await requestPayoutPeriodReport(booksync.client, {
      period: { from: today, to: today },
      taskQueue: settings.TEMPORAL_TASK_QUEUE,
      reports: booksync.reports,
    });
    // A reconciliation asked for by signal (`booksync reconcile`), and a customer's charge authorization.
    await requestReconciliation(booksync.client, {
      scope: { kind: 'all' },
      taskQueue: settings.TEMPORAL_TASK_QUEUE,
    });
    const customer = (await service.listCustomers({ page: 1, pageSize: 1 })).customers[0];
    if (customer) {
      const authorization = await service.requestChargeAuthorization(customer.id, {
        transactionLimitCents: 50_000,
        expirationDate: '2027-12-31',
      });
      const sandbox = new SandboxClient({
        baseUrl: booksync.serviceBaseUrl,
        apiKey: credentials?.apiKey ?? '',
      });
      await sandbox.authorizeCharge(authorization.id, 'ACH');
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        const found = booksync.client.workflow.list({ query: "WorkflowType = 'chargeAuthorization'" });
        if (!(await found[Symbol.asyncIterator]().next()).done) break;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }

    const written: string[] = [];
    for (const type of workflowTypes) {
      // The newest closed run of the type, else a running one (entity workflows wait for more events).
      let chosen: string | null = null;
      for await (const execution of booksync.client.workflow.list({ query: `WorkflowType = '${type}'` })) {
        chosen ??= execution.workflowId;
        if (execution.status.name === 'COMPLETED') {
          chosen = execution.workflowId;
          break;
        }
      }
      if (!chosen) continue;
      const history = await booksync.client.workflow.getHandle(chosen).fetchHistory();
      const file = path.join(fixturesDir, 'histories', `${type}-demo-day.json`);
      writeFileSync(file, `${historyToJSON(history)}\n`);
      written.push(type);
    }
    // The period close and the resync are recorded by their own tests (BOOKSYNC_RECORD_HISTORIES=1 there).
    expect(written.length).toBeGreaterThanOrEqual(workflowTypes.length - 2);
    expect(recordedWorkflowTypes()).toEqual(expect.arrayContaining([...workflowTypes]));
  });
});
