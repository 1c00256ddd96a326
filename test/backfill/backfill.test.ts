import { newLink } from '@booksync/emulator/harness';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeCertificate } from '../../src/close/certificate.js';
import { createActivities } from '../../src/flows/activities.js';
import {
  type BackfillProgress,
  backfillProgressQuery,
  backfillWorkflowId,
} from '../../src/flows/backfill/contract.js';
import { fetchServiceState } from '../../src/flows/period-close/activities.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { silentLogger } from '../../src/logging/logger.js';
import { booksyncCli } from '../support/booksync-cli.js';
import { balancesByRole, type SyncWorld, startSyncWorld } from '../support/sync-world.js';
import { startDevServer, uniqueTaskQueue, workflowBundle } from '../support/temporal.js';
import { eventually } from '../support/wait-for.js';

// Backfill over the emulator, the real activities and ledger, on a real Temporal dev server, with the
// expected books computed by hand. Card fee decision “Fees”: round(2.9%) + 30 cents, absorbed.
//
// Before the books open (the emulator's first day):
//   A: 100.00 paid by card, in payout 1, which reached the bank  -> settled: +96.80 then -96.80 clearing
//   B:  50.00 paid by card, not paid out                         -> settled: +48.25 at the service
//   C:  80.00 not paid                                           -> an opening document (owed when the books open)
//   F:  30.00 paid by ACH, not settled                           -> imported (can still be returned)
// Five days later, the day the books open (D):
//   E: 200.00 paid by card; payout 2 (B + E = 48.25 + 193.90 = 242.15) on its way -> imported
// So the opening entry is Processor Clearing 48.25 against Opening Balances, C's invoice is 80.00 of A/R
// against Opening Balances (last period's sale, never this period's revenue), and afterwards clearing holds
// F's 30.00 (ACH, no fee) only, 242.15 is in transit, and the receivable is C's 80.00.

let env: TestWorkflowEnvironment;
let world: SyncWorld;
let bundle: { codePath: string };
let opensOn: string;
let activities: ReturnType<typeof createActivities>;
const taskQueue = uniqueTaskQueue('backfill');

const paid = async (linkId: string, method: 'Card' | 'ACH', settle = true) => {
  const payment = await world.emulator.api<{ id: string }>('POST', `/sandbox/paymentLinks/${linkId}/pay`, {
    method,
  });
  if (settle) await world.emulator.api('POST', `/sandbox/payments/${payment.body.id}/settle`);
  return payment.body.id;
};
const payout = async (succeed: boolean) => {
  const d = await world.emulator.api<{ id: string; amountInCents: number }>('POST', '/sandbox/disbursements');
  if (succeed) await world.emulator.api('POST', `/sandbox/disbursements/${d.body.id}/succeed`);
  return d.body;
};
const newWorker = () =>
  Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: bundle,
    activities,
  });
const backfillCli = (extra: string[] = []) =>
  booksyncCli(['backfill', '--since', opensOn, ...extra], {
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

describe('backfill since a day', { timeout: 180_000 }, () => {
  const ids: Record<string, string> = {};
  let payout2: { id: string; amountInCents: number };

  it('builds a history at the service: two days, five days apart', async () => {
    const [a, b, c, f] = await Promise.all(
      [100_00, 50_00, 80_00, 30_00].map((n) => newLink(world.emulator.api, n)),
    );
    ids.linkB = b.id;
    ids.linkC = c.id;
    ids.payA = await paid(a.id, 'Card');
    expect((await payout(true)).amountInCents).toBe(96_80);
    ids.payB = await paid(b.id, 'Card');
    ids.payF = await paid(f.id, 'ACH', false);
    expect((await world.service.getPayment(ids.payF)).platformFeeInCents).toBe(0);
    await world.emulator.admin('POST', '/sandbox/clock/advance', { days: 5 });
    const e = await newLink(world.emulator.api, 200_00);
    ids.payE = await paid(e.id, 'Card');
    payout2 = await payout(false);
    expect(payout2.amountInCents).toBe(48_25 + 193_90);
    opensOn = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
    // The worker's accounting day is the emulator's (five days ahead of this machine's).
    activities = createActivities({
      service: world.service,
      ledger: world.ledger,
      logger: silentLogger,
      timeZone: 'UTC',
      today: () => opensOn,
    });
  });

  it('imports it through a worker crash while webhooks arrive, books hand-computed opening balances', async () => {
    // One object a page, at most 4 list requests a second: the run lasts long enough to crash it.
    const run = backfillCli(['--page-size', '1', '--rate', '4']);
    const handle = env.client.workflow.getHandle(backfillWorkflowId(opensOn));
    const first = await newWorker();
    const firstRun = first.run();
    const progress = () => handle.query(backfillProgressQuery).catch(() => undefined);
    await eventually(async () => ((await progress())?.pages ?? 0) >= 2, 'two pages backfilled');
    // Webhooks meanwhile: every payment's flow syncs it (A and B settled before the opening, E imported).
    await Promise.all(
      [ids.payA, ids.payB, ids.payE, ids.payF].map((paymentId) =>
        activities.syncPayment({ paymentId: paymentId!, eventIds: [], workflowId: `payment-${paymentId}` }),
      ),
    );
    // The worker goes away mid-run; a new one picks the run up at its page.
    first.shutdown();
    await firstRun;
    const pagesAtCrash = (await progress())?.pages ?? 0;
    const second = await newWorker();
    const result = await second.runUntil(run);
    expect(result.code, result.stderr).toBe(0);
    const done = (await handle.result()) as BackfillProgress;
    expect(done.pages).toBeGreaterThan(pagesAtCrash);
    // F's ACH window is watched by its own payment workflow, started by an activity: the backfill's run holds
    // no child (a child a payment passed Temporal's 2,000 pending children on a large backfill).
    const watched = await env.client.workflow.getHandle(`payment-${ids.payF}`).describe();
    expect(watched.type).toBe('payment');
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)).toEqual([]);
    expect(
      events.some(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'watchPaymentWindows',
      ),
    ).toBe(true);
    // Every activity beats: an attempt a lost worker held is retried after 30 s, not after its 10 minutes.
    const heartbeatTimeouts = events.flatMap((e) => {
      const scheduled = e.activityTaskScheduledEventAttributes;
      return scheduled ? [Number(scheduled.heartbeatTimeout?.seconds ?? 0)] : [];
    });
    expect(heartbeatTimeouts.length).toBeGreaterThan(2);
    expect(new Set(heartbeatTimeouts)).toEqual(new Set([30]));
    expect(done).toMatchObject({
      mode: 'opening',
      phase: 'done',
      openingEntryKey: `opening-balances:${opensOn}`,
      inFlight: { [Accounts.ProcessorClearing]: 96_80 + 48_25 - 96_80 },
      problems: [],
    });
    // Groups: links A..F (3 imported: C, F, E; 2 settled: A, B), payout 1 settled, payout 2 imported.
    expect({ imported: done.imported, settled: done.settled }).toEqual({ imported: 4, settled: 3 });
    expect(result.stdout).toContain(
      `opening entry opening-balances:${opensOn}: assets:processor-clearing $48.25`,
    );

    const opening = await world.ledger.get(`opening-balances:${opensOn}`);
    expect(opening?.lines).toEqual([
      { account: Accounts.ProcessorClearing, amountCents: 48_25 },
      { account: Accounts.OpeningBalances, amountCents: -48_25 },
    ]);
    expect(await world.ledger.get(`payment:${ids.payA}`)).toBeNull();
    expect(await world.ledger.get(`payment:${ids.payB}`)).toBeNull();
    const balances = await balancesByRole(world.ledger);
    expect(balances).toMatchObject({
      ProcessorClearing: 30_00,
      PayoutsInTransit: 48_25 + 193_90,
      AccountsReceivable: 80_00,
      OpeningBalances: -(48_25 + 80_00),
      Revenue: -(30_00 + 200_00),
      ProcessingFees: 6_10,
    });
    const openingDocument = await world.ledger.get(`invoice:${ids.linkC}`);
    expect(openingDocument).toMatchObject({
      date: new Date(Date.parse(opensOn) - 86_400_000).toISOString().slice(0, 10),
      lines: [
        { account: Accounts.AccountsReceivable, amountCents: 80_00 },
        { account: Accounts.OpeningBalances, amountCents: -80_00 },
      ],
    });
    expect(await world.ledger.booksOpening()).toEqual({ opensOn, balancesBooked: true });
  });

  it('a refund of a payment settled before the opening books only the refund; the certificate passes', async () => {
    await world.service.refundPayment(ids.payB!, { amountCents: 10_00 });
    const synced = await activities.syncPayment({
      paymentId: ids.payB!,
      eventIds: [],
      workflowId: `payment-${ids.payB}`,
    });
    expect(synced.posted.sort()).toEqual(
      expect.arrayContaining([expect.stringMatching(/^refund:/), expect.stringMatching(/^refund-reopen:/)]),
    );
    expect(await world.ledger.get(`payment:${ids.payB}`)).toBeNull();
    // The invoice B is owed 10.00 again (decision “completedAmountCents”), as the service says.
    const owed = (await world.ledger.openItems('receivable')).find((i) => i.documentId === ids.linkB);
    expect(owed?.openCents).toBe(10_00);

    const state = await fetchServiceState({
      service: world.service,
      ledger: world.ledger,
      logger: silentLogger,
      timeZone: 'UTC',
    });
    const firstDay = new Date(Date.now()).toISOString().slice(0, 10);
    const certificate = closeCertificate({
      period: { from: firstDay, to: opensOn },
      asOf: new Date().toISOString(),
      timeZone: 'UTC',
      ...state,
      receivables: await world.ledger.openItems('receivable'),
      payables: await world.ledger.openItems('payable'),
      targets: null,
    });
    expect(certificate.problems).toEqual([]);
    const skipped = certificate.objects
      .filter((o) => o.status === 'SKIPPED')
      .map((o) => `${o.kind} ${o.id}: ${o.skipReason}`);
    expect(skipped).toEqual(
      expect.arrayContaining([
        `payment ${ids.payA}: before the books opened on ${opensOn}`,
        `payment ${ids.payB}: before the books opened on ${opensOn}`,
      ]),
    );
  });

  it('running it again changes nothing', async () => {
    const before = await world.ledger.allEntries();
    const worker = await newWorker();
    const result = await worker.runUntil(backfillCli(['--json']));
    expect(result.code, result.stderr).toBe(0);
    const again = JSON.parse(result.stdout) as BackfillProgress;
    expect(again).toMatchObject({
      mode: 'again',
      inFlight: {},
      openingEntryKey: `opening-balances:${opensOn}`,
    });
    expect((await world.ledger.allEntries()).map((e) => e.key)).toEqual(before.map((e) => e.key));
  });

  it('refuses another day: the books cannot start twice', async () => {
    const worker = await newWorker();
    const result = await worker.runUntil(
      booksyncCli(['backfill', '--since', '2020-01-01'], {
        TEMPORAL_ADDRESS: env.address,
        TEMPORAL_NAMESPACE: env.namespace ?? 'default',
        TEMPORAL_TASK_QUEUE: taskQueue,
      }),
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr + result.stdout).toContain(`the books already open on ${opensOn}`);
  });
});
