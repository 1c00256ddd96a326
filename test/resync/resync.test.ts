import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { newLink } from '@booksync/emulator/harness';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ResyncAnswer, requestResync } from '../../src/cli/commands/resync.js';
import { createActivities } from '../../src/flows/activities.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { silentLogger } from '../../src/logging/logger.js';
import { workflowIdFor } from '../../src/workflow-safe/workflow-ids.js';
import { booksyncCli } from '../support/booksync-cli.js';
import { balancesByRole, type SyncWorld, startSyncWorld, withWorker } from '../support/sync-world.js';
import { fixturesDir, startDevServer, workflowBundle } from '../support/temporal.js';

// Re-sync with a diff over the emulator, the real activities and ledger, on a real Temporal dev server: a day
// is booked with EXTERNAL_PAYMENTS_ACCOUNT=checks-to-deposit (the default), then the setting changes to
// operating-bank; the dry run shows the hand-computed diff, apply books it as a reversal and a version #2, a
// second apply writes nothing, and the ledger stays balanced. Card fee decision “Fees”: round(2.9%) + 30 cents.

let env: TestWorkflowEnvironment;
let world: SyncWorld;
let bundle: { codePath: string };
let day: string;

/** Runs `body` with a worker whose activities see EXTERNAL_PAYMENTS_ACCOUNT = `account`. */
function withSettings<T>(
  account: 'checks-to-deposit' | 'operating-bank',
  body: (taskQueue: string) => Promise<T>,
): Promise<T> {
  const activities = createActivities({
    service: world.service,
    ledger: world.ledger,
    logger: silentLogger,
    timeZone: 'UTC',
    externalPaymentAccount: account,
  });
  return withWorker(env, bundle, activities, body, 'resync');
}

const reconcile = (taskQueue: string) =>
  env.client.workflow.execute('reconciliation', {
    workflowId: `test-reconcile-${Date.now()}`,
    taskQueue,
    args: [{ scope: { kind: 'all' } }],
  }) as Promise<{ fixesTotal: number }>;

const booksync = (args: string[], taskQueue: string) =>
  booksyncCli(args, {
    TEMPORAL_ADDRESS: env.address,
    TEMPORAL_NAMESPACE: env.namespace ?? 'default',
    TEMPORAL_TASK_QUEUE: taskQueue,
  });

beforeAll(async () => {
  [env, bundle, world] = await Promise.all([startDevServer(), workflowBundle(), startSyncWorld()]);
}, 180_000);

afterAll(async () => {
  await world?.close();
  await env?.teardown();
});

describe('resync with a diff', { timeout: 120_000 }, () => {
  let epId: string;
  let invoiceId: string;
  let dry: ResyncAnswer;

  it('books a day under the first setting: the external payment waits in Checks To Deposit', async () => {
    const invoice = await newLink(world.emulator.api, 500_00);
    const sold = await newLink(world.emulator.api, 100_00);
    const recorded = await world.service.recordExternalPayment(invoice.id, {
      amountCents: 200_00,
      paidAt: new Date().toISOString().slice(0, 10),
    });
    epId = recorded.externalPayment.id;
    invoiceId = invoice.id;
    day = recorded.externalPayment.paidAt;
    await world.service.recordDebitMemo(invoice.id, { amountCents: 25_00, description: 'late fee' });
    const paid = await world.emulator.api<{ id: string }>('POST', `/sandbox/paymentLinks/${sold.id}/pay`, {
      method: 'Card',
    });
    await world.emulator.api('POST', `/sandbox/payments/${paid.body.id}/settle`);
    await withSettings('checks-to-deposit', reconcile);
    const balances = await balancesByRole(world.ledger);
    expect(balances.ChecksToDeposit).toBe(200_00);
    expect(balances.OperatingBank).toBe(0);
    // Receivable: 50000 + 10000 invoiced + 2500 memo - 20000 external - 10000 card = 32500.
    expect(balances.AccountsReceivable).toBe(325_00);
    expect(balances.ProcessorClearing).toBe(100_00 - 320);
  });

  it('after EXTERNAL_PAYMENTS_ACCOUNT=operating-bank, the dry run shows one reversal and one version #2, and writes nothing', async () => {
    const before = (await world.ledger.allEntries()).length;
    dry = await withSettings('operating-bank', (taskQueue) =>
      requestResync(env.client, { apply: false, since: null, taskQueue }),
    );
    expect(dry.applied).toBe(false);
    expect(dry.diff.toReverse.map(({ key, date, lines }) => ({ key, date, lines }))).toEqual([
      {
        key: `external-payment:${epId}`,
        date: day,
        lines: [
          { account: Accounts.ChecksToDeposit, amountCents: 200_00 },
          { account: Accounts.AccountsReceivable, amountCents: -200_00 },
        ],
      },
    ]);
    expect(dry.diff.toPost.map(({ key, date, lines }) => ({ key, date, lines }))).toEqual([
      {
        key: `external-payment:${epId}#2`,
        date: day,
        lines: [
          { account: Accounts.OperatingBank, amountCents: 200_00 },
          { account: Accounts.AccountsReceivable, amountCents: -200_00 },
        ],
      },
    ]);
    // The debit memo, the card payment and its fee stay.
    expect(dry.diff.unchanged).toBe(3);
    expect(dry.diff.unmappable).toEqual([]);
    expect(dry.reversed).toEqual([]);
    expect((await world.ledger.allEntries()).length).toBe(before);

    // The command prints the same diff; a later --since leaves it out.
    await withSettings('operating-bank', async (taskQueue) => {
      const cli = await booksync(['resync', '--dry-run'], taskQueue);
      expect(cli.stderr).toBe('');
      expect(cli.code).toBe(0);
      expect(cli.stdout.trimEnd().split('\n')).toEqual([
        'resync dry run (every entry): 1 to reverse, 1 to post, 3 unchanged',
        `- reverse external-payment:${epId} (${day}): assets:checks-to-deposit $200.00, assets:receivable -$200.00; resync: payment link ${invoiceId} now maps external-payment:${epId} differently`,
        `+ post external-payment:${epId}#2 (${day}): assets:bank:operating $200.00, assets:receivable -$200.00`,
        'run with --apply to book it',
      ]);
      const later = await booksync(['resync', '--dry-run', '--since', '2099-01-01'], taskQueue);
      expect(later.stdout.split('\n')[0]).toBe(
        'resync dry run (entries dated 2099-01-01 or later): 0 to reverse, 0 to post, 3 unchanged',
      );
      const bad = await booksync(['resync'], taskQueue);
      expect(bad.code).toBe(1);
      expect(bad.stderr.trim()).toBe('booksync: resync: give --dry-run or --apply');
    });
  });

  it('apply books exactly that diff, a second apply writes nothing, the books stay balanced and sync agrees', async () => {
    const applied = await withSettings('operating-bank', (taskQueue) =>
      requestResync(env.client, { apply: true, since: null, taskQueue }),
    );
    expect(applied.diff.toReverse.map((r) => r.key)).toEqual(dry.diff.toReverse.map((r) => r.key));
    expect(applied.diff.toPost).toEqual(dry.diff.toPost);
    expect(applied.reversed).toEqual([`external-payment:${epId}`]);
    expect(applied.posted).toEqual([`external-payment:${epId}#2`]);
    if (process.env.BOOKSYNC_RECORD_HISTORIES) {
      const handle = env.client.workflow.getHandle(workflowIdFor('resync', 'apply-all'));
      writeFileSync(
        path.join(fixturesDir, 'histories', 'resync-apply.json'),
        `${historyToJSON(await handle.fetchHistory())}\n`,
      );
    }

    const old = await world.ledger.get(`external-payment:${epId}`);
    expect(old?.reversedBy).toBe(`reversal:external-payment:${epId}`);
    const balances = await balancesByRole(world.ledger);
    expect(balances.ChecksToDeposit).toBe(0);
    expect(balances.OperatingBank).toBe(200_00);
    expect(balances.AccountsReceivable).toBe(325_00);
    expect((await world.ledger.trialBalance()).balanced).toBe(true);

    const again = await withSettings('operating-bank', (taskQueue) =>
      requestResync(env.client, { apply: true, since: null, taskQueue }),
    );
    expect(again.diff.toReverse).toEqual([]);
    expect(again.diff.toPost).toEqual([]);
    expect(again.diff.unchanged).toBe(4);
    expect([again.reversed, again.posted]).toEqual([[], []]);

    // The event-driven syncs under the new setting find the books as they want them.
    const report = await withSettings('operating-bank', reconcile);
    expect(report.fixesTotal).toBe(0);
  });
});
