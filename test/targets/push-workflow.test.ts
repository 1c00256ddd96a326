import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountingTargetActivities } from '../../src/flows/push/activities.js';
import { outageFlaggedAtAttempt } from '../../src/flows/push/attempt.js';
import {
  accountingTargetViewQuery,
  accountingTargetWorkflowId,
  accountingTargetWorkflowType,
  entriesPostedSignal,
} from '../../src/flows/push/contract.js';
import { SqliteTargetIndex } from '../../src/flows/push/target-index.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { silentLogger } from '../../src/logging/logger.js';
import type { ReferenceData } from '../../src/targets/documents.js';
import { TargetRefusedError, TargetUnavailableError } from '../../src/targets/errors.js';
import { LedgerMirrorTarget } from '../../src/targets/ledger-mirror-target.js';
import { pushOneByOne } from '../../src/targets/push-one-by-one.js';
import type { AccountingTarget, PushContext, TargetDocument } from '../../src/targets/target-port.js';
import { LastError, NeedsAttention } from '../../src/workflow-safe/search-attributes.js';
import { twoLine } from '../ledger/fixtures.js';
import { startDevServer, uniqueTaskQueue, workflowBundle } from '../support/temporal.js';
import { eventually } from '../support/wait-for.js';

// The push flow on a real Temporal dev server: the ledger's entries reach a target in posting order,
// once each; a refusal is FAILED with the target's message and flagged until `retry`; an outage waits.
// The target is the mirror ledger (booksync's reference target) behind a switchboard this test flips.

/** The names and numbers documents carry; the service's are exercised end to end elsewhere. */
const references: ReferenceData = {
  paymentLink: async (id) => ({ name: `INV-${id}`, customerId: 'cus_1' }),
  customer: async (id) => ({ serviceId: id, name: 'Bakery', email: 'owner@bakery.test' }),
  vendor: async (id) => ({ serviceId: id, name: 'Flour Mill', email: null }),
  bill: async () => ({ invoiceNumber: 'FM-1', vendorId: 'ven_1' }),
  payout: async () => ({ paymentIds: [] }),
};

class Switchboard implements AccountingTarget {
  refuseRole: string | null = null;
  down = false;
  warns: string | null = null;
  /** An outage that says nothing of when to come back (a refused connection), not a rate limit. */
  unreachable = false;
  /** A target slower than the push's heartbeat timeout (its rate limit, its task queue). */
  delayMs = 0;
  calls = 0;
  /** Runs inside a push, before the document is written (a ledger write arriving mid-slice). */
  duringPush: (() => Promise<void>) | null = null;
  readonly inner: AccountingTarget;
  readonly name: string;
  constructor(inner: AccountingTarget, name = 'switchboard') {
    this.inner = inner;
    this.name = name;
  }
  verify = () => this.inner.verify();
  find = (key: string) => this.inner.find(key);
  lockedThrough = () => this.inner.lockedThrough();
  close = () => this.inner.close();
  warning = () => this.warns;
  readonly batches = false;
  pushMany = (documents: TargetDocument[], context: PushContext) => pushOneByOne(this, documents, context);
  async push(document: TargetDocument, context: PushContext) {
    this.calls++;
    const during = this.duringPush;
    this.duringPush = null;
    await during?.();
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (this.down) throw new TargetUnavailableError(this.name, 'connection refused', 200);
    if (this.unreachable) throw new TargetUnavailableError(this.name, 'connect ECONNREFUSED');
    if (this.refuseRole && document.lines.some((l) => l.role === this.refuseRole)) {
      throw new TargetRefusedError(this.name, `account for ${this.refuseRole} does not exist`);
    }
    return this.inner.push(document, context);
  }
}

let env: TestWorkflowEnvironment;
let ledger: EmbeddedLedger;
let mirror: EmbeddedLedger;
let target: Switchboard;
/** A second target whose push polls only every ten minutes: what it pushes sooner, no poll found. */
let patient: Switchboard;
let patientMirror: EmbeddedLedger;
let index: SqliteTargetIndex;
let worker: Worker;
let running: Promise<void>;
const taskQueue = uniqueTaskQueue('targets');

beforeAll(async () => {
  const [started, bundle] = await Promise.all([startDevServer(), workflowBundle()]);
  env = started;
  ledger = EmbeddedLedger.open();
  mirror = EmbeddedLedger.open();
  target = new Switchboard(new LedgerMirrorTarget(mirror));
  patientMirror = EmbeddedLedger.open();
  patient = new Switchboard(new LedgerMirrorTarget(patientMirror), 'patient');
  index = new SqliteTargetIndex(ledger.database);
  worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: bundle,
    activities: createAccountingTargetActivities({
      service: undefined as never,
      ledger,
      logger: silentLogger,
      timeZone: 'UTC',
      targets: {
        targets: new Map([
          [target.name, target],
          [patient.name, patient],
        ]),
        index,
        references,
        inFlightWaitMs: 90_000,
      },
    }),
  });
  running = worker.run();
});

afterAll(async () => {
  worker?.shutdown();
  await running;
  ledger?.close();
  mirror?.close();
  patientMirror?.close();
  await env?.teardown();
});

/** The harnesses' one poller over a yes/no check. */
const wake = () =>
  env.client.workflow.signalWithStart(accountingTargetWorkflowType, {
    workflowId: accountingTargetWorkflowId(target.name),
    taskQueue,
    // Its poll, its longest wait between attempts and its heartbeat timeout are seconds here, a minute in
    // production.
    args: [
      {
        target: target.name,
        sliceSize: 3,
        pollEvery: '2s',
        retryMaximumInterval: '2s',
        heartbeatTimeout: '3s',
      },
    ],
    signal: entriesPostedSignal,
    signalArgs: [],
  });

describe('the accounting-target push workflow', () => {
  it('pushes every entry once, in posting order, and the target balances equal the ledger', async () => {
    await ledger.post(
      twoLine('invoice:pl_1', 10_000, {
        debit: Accounts.AccountsReceivable,
        credit: Accounts.Revenue,
        links: { paymentLinkId: 'pl_1' },
      }),
    );
    await ledger.post(twoLine('payment:p1', 6_000, { links: { paymentId: 'p1', paymentLinkId: 'pl_1' } }));
    await ledger.post(
      twoLine('payment-fee:p1', 204, {
        debit: Accounts.ProcessingFees,
        credit: Accounts.ProcessorClearing,
        links: { paymentId: 'p1' },
      }),
    );
    await ledger.post(twoLine('payment:p2', 4_000, { links: { paymentId: 'p2', paymentLinkId: 'pl_1' } }));
    await ledger.reverse('payment:p2', { reason: 'payment.failed', date: '2026-01-05' });
    await wake();
    // A slice is 3 entries: five entries take two slices of one run.
    await eventually(async () => (await index.summary(target.name)).pushed === 5, 'five entries pushed');
    expect((await mirror.allEntries()).map((e) => e.key)).toEqual([
      'invoice:pl_1',
      'payment:p1',
      'payment-fee:p1',
      'payment:p2',
      'reversal:payment:p2',
    ]);
    expect(await mirror.balances()).toEqual(await ledger.balances());
    expect(await mirror.openItems('receivable')).toEqual([
      { documentId: null, counterpartyId: null, openCents: 4_000 },
    ]);

    // Woken again with nothing new: no second push of anything.
    const calls = target.calls;
    await wake();
    await ledger.post(twoLine('payment:p3', 4_000, { links: { paymentId: 'p3', paymentLinkId: 'pl_1' } }));
    await wake();
    await eventually(async () => (await index.summary(target.name)).pushed === 6, 'the new entry pushed');
    expect(target.calls).toBe(calls + 1);
    expect((await mirror.allEntries()).length).toBe(6);
  });

  it('marks a refused entry FAILED with the target message, flags the run, and pushes it after retry', async () => {
    target.refuseRole = 'BillExpenses';
    await ledger.post(
      twoLine('bill:b1', 9_750, {
        debit: Accounts.BillExpenses,
        credit: Accounts.AccountsPayable,
        links: { billId: 'b1', vendorId: 'ven_1' },
      }),
    );
    await ledger.post(twoLine('payment:p4', 1_000, { links: { paymentId: 'p4' } }));
    await wake();
    await eventually(async () => {
      const { failed, pending } = await index.summary(target.name);
      return failed === 1 && pending === 0;
    }, 'the refusal');
    const summary = await index.summary(target.name);
    expect(summary.failures.map((f) => [f.key, f.reason])).toEqual([
      ['bill:b1', 'account for BillExpenses does not exist'],
    ]);
    // Later entries are not held up by a refused one.
    expect((await index.get(target.name, 'payment:p4'))?.status).toBe('PUSHED');
    const handle = env.client.workflow.getHandle(accountingTargetWorkflowId(target.name));
    await eventually(async () => (await handle.query(accountingTargetViewQuery)).failed === 1, 'the view');
    await eventually(async () => {
      const attributes = (await handle.describe()).typedSearchAttributes;
      return attributes.get(NeedsAttention) === true;
    }, 'NeedsAttention');
    // The search attribute (stored in plain, outside the payload codec) is a reason code and the entry's key,
    // not the target's message, which may quote a customer; the message is in the run's view and the index.
    expect((await handle.describe()).typedSearchAttributes.get(LastError)).toBe('FAILED bill:b1');
    expect((await handle.query(accountingTargetViewQuery)).lastFailures).toEqual([
      { key: 'bill:b1', reason: 'account for BillExpenses does not exist' },
    ]);

    target.refuseRole = null;
    await handle.signal('retryEntries', { keys: 'failed' });
    await eventually(
      async () => (await index.get(target.name, 'bill:b1'))?.status === 'PUSHED',
      'the retried push',
    );
    expect(await mirror.balanceOf(Accounts.AccountsPayable)).toBe(-9_750);
    await eventually(
      async () => (await handle.describe()).typedSearchAttributes.get(NeedsAttention) === false,
      'flag cleared',
    );
  });

  it("shows the target's warning (a daily budget nearly spent) as NeedsAttention until it is gone", async () => {
    const handle = env.client.workflow.getHandle(accountingTargetWorkflowId(target.name));
    const attributes = async () => (await handle.describe()).typedSearchAttributes;
    target.warns = 'daily call limit nearly spent: 4100 of 5000 calls';
    await ledger.post(twoLine('payment:p7', 900, { links: { paymentId: 'p7' } }));
    await wake();
    await eventually(async () => (await attributes()).get(NeedsAttention) === true, 'NeedsAttention');
    expect((await attributes()).get(LastError)).toBe('TARGET_WARNING');
    expect((await handle.query(accountingTargetViewQuery)).warning).toBe(target.warns);
    // Pushing goes on while it is only a warning.
    expect((await index.get(target.name, 'payment:p7'))?.status).toBe('PUSHED');

    target.warns = null;
    await ledger.post(twoLine('payment:p8', 950, { links: { paymentId: 'p8' } }));
    await wake();
    await eventually(async () => (await attributes()).get(NeedsAttention) === false, 'flag cleared');
  });

  it('waits out an outage and then pushes everything once', async () => {
    target.down = true;
    await ledger.post(twoLine('payment:p5', 700, { links: { paymentId: 'p5' } }));
    await ledger.post(twoLine('payment:p6', 800, { links: { paymentId: 'p6' } }));
    await wake();
    await eventually(() => target.calls > 0, 'a first attempt');
    await new Promise((r) => setTimeout(r, 2_000));
    // Not pushed, but marked: the attempt wrote ahead before the target refused it, so the push after the
    // outage looks it up before creating it.
    expect(await index.get(target.name, 'payment:p5')).toMatchObject({ status: 'PENDING' });
    expect((await index.get(target.name, 'payment:p5'))?.attemptedBy).toBeGreaterThan(0);
    expect((await index.summary(target.name)).inFlight).toBeGreaterThan(0);
    target.down = false;
    await eventually(
      async () => (await index.get(target.name, 'payment:p6'))?.status === 'PUSHED',
      'the push after the outage',
      90_000,
    );
    const keys = (await mirror.allEntries()).map((e) => e.key);
    expect(keys.filter((k) => k === 'payment:p5')).toHaveLength(1);
    expect(await mirror.balances()).toEqual(await ledger.balances());
  });

  it('keeps an attempt alive while the target takes longer than the heartbeat timeout: one call, no second attempt', async () => {
    const handle = env.client.workflow.getHandle(accountingTargetWorkflowId(target.name));
    const calls = target.calls;
    // The history so far (none when this test runs alone).
    const before = await handle.fetchHistory().then(
      (history) => history.events?.length ?? 0,
      () => 0,
    );
    target.delayMs = 7_000;
    try {
      await ledger.post(twoLine('payment:slow1', 700, { links: { paymentId: 'slow1' } }));
      await wake();
      await eventually(
        async () => (await index.get(target.name, 'payment:slow1'))?.status === 'PUSHED',
        'the slow push',
        60_000,
      );
    } finally {
      target.delayMs = 0;
    }
    // Without a beat while the target works, Temporal would take the attempt for dead after 3 s and start
    // another (attempt 2 in the history).
    expect(target.calls - calls).toBe(1);
    // The index says PUSHED from inside the attempt; Temporal writes an attempt's started event only with its
    // result, so the history is read once the attempt that pushed has ended there.
    const attemptEnded = async () => {
      const events = (await handle.fetchHistory()).events ?? [];
      const since = events.slice(before);
      return since.some((e) => e.activityTaskStartedEventAttributes) ? since : null;
    };
    await eventually(async () => (await attemptEnded()) !== null, 'the slow attempt in the history', 30_000);
    const since = (await attemptEnded()) ?? [];
    const scheduled = since.flatMap((e) =>
      e.activityTaskScheduledEventAttributes?.activityType?.name === 'pushToTarget'
        ? [Number(e.activityTaskScheduledEventAttributes.heartbeatTimeout?.seconds)]
        : [],
    );
    expect(scheduled.length).toBeGreaterThan(0);
    expect(scheduled.every((seconds) => seconds === 3)).toBe(true);
    const attempts = since.flatMap((e) =>
      e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt] : [],
    );
    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts.every((attempt) => attempt === 1)).toBe(true);
  }, 90_000);

  it('flags an outage that outlasts a few attempts, and pushes by itself at its next poll once the target is back', async () => {
    target.unreachable = true;
    const calls = target.calls;
    await ledger.post(twoLine('payment:out1', 900, { links: { paymentId: 'out1' } }));
    await wake();
    const handle = env.client.workflow.getHandle(accountingTargetWorkflowId(target.name));
    await eventually(
      async () => (await handle.describe()).typedSearchAttributes.get(NeedsAttention) === true,
      'the outage flagged',
      60_000,
    );
    expect((await handle.query(accountingTargetViewQuery)).state).toBe('WAITING_FOR_TARGET');
    expect((await handle.describe()).typedSearchAttributes.get(LastError)).toBe('TARGET_UNAVAILABLE');
    expect(target.calls - calls).toBeGreaterThanOrEqual(outageFlaggedAtAttempt);
    target.unreachable = false;
    // No signal: the workflow's own poll (pollEvery) finds the target back.
    await eventually(
      async () => (await index.get(target.name, 'payment:out1'))?.status === 'PUSHED',
      'the push at the next poll',
      120_000,
    );
    await eventually(
      async () => (await handle.describe()).typedSearchAttributes.get(NeedsAttention) === false,
      'the flag cleared',
      30_000,
    );
  }, 240_000);

  it('takes entries written during a slice at once, while it makes progress, though their wake-up was lost', async () => {
    // The patient target's push polls every ten minutes; one wake-up starts it. While its first slice
    // pushes, two entries are written with no signal (a worker that died between the write and its
    // wake-up): the push sees them pending after a slice that pushed something and takes them now.
    patient.duringPush = async () => {
      await ledger.post(twoLine('payment:late1', 300, { links: { paymentId: 'late1' } }));
      await ledger.post(twoLine('payment:late2', 400, { links: { paymentId: 'late2' } }));
    };
    await env.client.workflow.signalWithStart(accountingTargetWorkflowType, {
      workflowId: accountingTargetWorkflowId(patient.name),
      taskQueue,
      args: [{ target: patient.name, sliceSize: 100, pollEvery: '10 minutes', retryMaximumInterval: '2s' }],
      signal: entriesPostedSignal,
      signalArgs: [],
    });
    await eventually(
      async () => (await index.get(patient.name, 'payment:late2'))?.status === 'PUSHED',
      'the entries written mid-slice pushed without a wake-up or a poll',
      30_000,
    );
    const keys = (await patientMirror.allEntries()).map((e) => e.key);
    expect(keys.slice(-2)).toEqual(['payment:late1', 'payment:late2']);
    expect(new Set(keys).size).toBe(keys.length);
    expect(await patientMirror.balances()).toEqual(await ledger.balances());
    await env.client.workflow.getHandle(accountingTargetWorkflowId(patient.name)).terminate('test over');
  }, 60_000);
});
