import { ApplicationFailure } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckDepositActivities } from '../../src/flows/check-deposit/activities-contract.js';
import {
  type ApplicationTotals,
  addToTotals,
  emptyApplicationTotals,
  listedSettledApplications,
} from '../../src/flows/check-deposit/applications.js';
import {
  applyDepositSignal,
  type CheckApplicationView,
  type CheckDepositView,
  type CheckDepositWorkflowInput,
  checkDepositViewQuery,
  checkDepositWorkflowId,
  refreshDepositSignal,
  voidApplicationSignal,
} from '../../src/flows/check-deposit/contract.js';
import { checkDeposit } from '../../src/flows/check-deposit/workflow.js';
import { startDevServer, uniqueTaskQueue, workflowBundle } from '../support/temporal.js';

// The check-deposit workflow carried every application it ever made through continue-as-new: refused and
// voided ones included, so a deposit that got many commands carried an ever longer list. Now every live
// application and the most recent settled ones are carried, older settled ones as counts and amounts (decision “Bounded check-deposit state”),
// and the view's totals still count every application. A dev server suggesting continue-as-new after 100
// history events makes the workflow continue as new several times within seconds.

const refusedCount = 120;
const appliedCount = 60;
const voidedCount = 40;
const amountOf = (i: number) => 100 + i;

let env: TestWorkflowEnvironment;
let bundle: { codePath: string };
beforeAll(async () => {
  [env, bundle] = await Promise.all([
    startDevServer(['--dynamic-config-value', 'limit.historyCount.suggestContinueAsNew=100']),
    workflowBundle(),
  ]);
}, 120_000);
afterAll(async () => {
  await env?.teardown();
});

/** The service's side of the deposit: refuses links named pl_refused_*, applies the others. */
function scriptedActivities(checkDepositId: string): CheckDepositActivities {
  const live = new Set<string>();
  return {
    async applyCheckDepositToLink({ paymentLinkId, amountCents, commandId }) {
      if (paymentLinkId.startsWith('pl_refused_')) {
        throw ApplicationFailure.create({
          type: 'ServiceValidationError',
          message: 'amountCents exceeds what the link has left to pay',
          nonRetryable: true,
          details: [{ status: 400 }],
        });
      }
      const externalPaymentId = `ep_${commandId}`;
      live.add(externalPaymentId);
      return { externalPaymentId, amountCents: amountCents ?? 0, linkStatus: 'PAID' };
    },
    async voidCheckApplication({ externalPaymentId }) {
      live.delete(externalPaymentId);
      return { externalPaymentId, amountCents: 0, linkStatus: 'ACTIVE' };
    },
    async syncCheckDeposit() {
      return {
        checkDepositId,
        status: 'PROCESSING',
        amountCents: 1_000_000,
        unappliedAmountCents: 0,
        clearedAt: null,
        returnedAt: null,
        liveApplicationIds: [...live],
        unknownApplicationIds: [],
        posted: [],
        reversed: [],
      };
    },
    async confirmApplicationsVoided() {
      return [];
    },
    async recordReturnedCheckFee() {
      return { debitMemoId: 'dm_unused' };
    },
  };
}

interface Run {
  runId: string;
  input: CheckDepositWorkflowInput;
  continuedAs: string | null;
}

/** Every run of the workflow from the first, with its input, following continue-as-new. */
async function runsOf(workflowId: string, firstRunId: string): Promise<Run[]> {
  const runs: Run[] = [];
  let runId: string | null = firstRunId;
  while (runId) {
    const history: temporal.api.history.v1.IHistory = await env.client.workflow
      .getHandle(workflowId, runId)
      .fetchHistory();
    const events = history.events ?? [];
    const data = events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
    const input = JSON.parse(Buffer.from(data ?? []).toString('utf8')) as CheckDepositWorkflowInput;
    const next: string | null =
      events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? null;
    runs.push({ runId, input, continuedAs: next });
    runId = next;
  }
  return runs;
}

const carriedTotals = (input: CheckDepositWorkflowInput): ApplicationTotals =>
  addToTotals(input.unlistedApplications ?? emptyApplicationTotals(), input.applications ?? []);

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('check-deposit workflow state through continue-as-new (decision “Bounded check-deposit state”)', () => {
  it('carries every live and the latest settled applications, tallies the rest, and keeps the totals right', async () => {
    const checkDepositId = `cd_bounded_${Date.now()}`;
    const workflowId = checkDepositWorkflowId(checkDepositId);
    const taskQueue = uniqueTaskQueue('check-deposit-bounded');
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      workflowBundle: bundle,
      activities: scriptedActivities(checkDepositId),
    });

    await worker.runUntil(async () => {
      // 180 commands: every third applies (amount 100 + i cents), the others are refused by the service.
      const commands = Array.from({ length: refusedCount + appliedCount }, (_, i) => ({
        paymentLinkId: i % 3 === 0 ? `pl_${i}` : `pl_refused_${i}`,
        amountCents: amountOf(i),
        commandId: `cmd-${i}`,
      }));
      const [first, ...rest] = commands;
      const handle = await env.client.workflow.signalWithStart(checkDeposit, {
        workflowId,
        taskQueue,
        args: [{ checkDepositId }],
        signal: applyDepositSignal,
        signalArgs: [first!],
      });
      const firstRunId = handle.signaledRunId;
      for (const command of rest) await handle.signal(applyDepositSignal, command);
      const latest = env.client.workflow.getHandle(workflowId);
      const view = () => latest.query(checkDepositViewQuery);
      await until('every command handled', async () => {
        const t = (await view()).applicationTotals;
        return t.APPLIED.count + t.FAILED.count === commands.length ? true : undefined;
      });

      // Voids of the first 40 applications, made before any continue-as-new, reach the run that carries them.
      const applied = commands.filter((c) => !c.paymentLinkId.startsWith('pl_refused_'));
      const voided = applied.slice(0, voidedCount);
      for (const c of voided) {
        await handle.signal(voidApplicationSignal, {
          externalPaymentId: `ep_${c.commandId}`,
          commandId: `void-${c.commandId}`,
        });
      }
      // Rounds (each looks at the deposit) until a run carries the voids: the tally must survive the move.
      const runs = await until('a run started with the voids carried', async () => {
        await handle.signal(refreshDepositSignal, { reason: 'test' });
        const all = await runsOf(workflowId, firstRunId);
        return carriedTotals(all.at(-1)!.input).VOIDED.count === voidedCount ? all : undefined;
      });

      const sum = (list: typeof commands) => list.reduce((total, c) => total + c.amountCents, 0);
      const expected: ApplicationTotals = {
        ...emptyApplicationTotals(),
        APPLIED: { count: appliedCount - voidedCount, amountCents: sum(applied.slice(voidedCount)) },
        VOIDED: { count: voidedCount, amountCents: sum(voided) },
        FAILED: { count: refusedCount, amountCents: 0 },
      };

      // Bounded: no run carried more than the live applications plus the latest settled ones.
      expect(runs.length).toBeGreaterThanOrEqual(2);
      for (const run of runs.slice(1)) {
        expect(run.input.applications!.length).toBeLessThanOrEqual(appliedCount + listedSettledApplications);
      }
      const last = runs.at(-1)!.input;
      const carried = last.applications as CheckApplicationView[];
      const liveIds = applied.slice(voidedCount).map((c) => `ep_${c.commandId}`);
      expect(carried.filter((a) => a.status === 'APPLIED').map((a) => a.externalPaymentId)).toEqual(liveIds);
      expect(carried.filter((a) => a.status !== 'APPLIED')).toHaveLength(listedSettledApplications);
      expect(carriedTotals(last)).toEqual(expected);
      expect(last.unlistedApplications!.FAILED.count + last.unlistedApplications!.VOIDED.count).toBe(
        refusedCount + voidedCount - listedSettledApplications,
      );
      expect(JSON.stringify(last).length).toBeLessThan(64 * 1024);

      // The view counts every application, listed or not.
      const shown: CheckDepositView = await view();
      expect(shown.applications).toHaveLength(appliedCount - voidedCount + listedSettledApplications);
      expect(shown.applicationTotals).toEqual(expected);

      // A carried live application is still voidable after the moves, and the totals follow.
      const target = liveIds[0]!;
      await handle.signal(voidApplicationSignal, { externalPaymentId: target, commandId: 'void-after-can' });
      const after = await until('the void after continue-as-new', async () => {
        const v = await view();
        return v.applications.find((a) => a.externalPaymentId === target)?.status === 'VOIDED'
          ? v
          : undefined;
      });
      const amount = after.applications.find((a) => a.externalPaymentId === target)!.amountCents!;
      expect(after.applicationTotals.APPLIED).toEqual({
        count: expected.APPLIED.count - 1,
        amountCents: expected.APPLIED.amountCents - amount,
      });
      expect(after.applicationTotals.VOIDED).toEqual({
        count: voidedCount + 1,
        amountCents: expected.VOIDED.amountCents + amount,
      });

      // The first run, closed by a bounded continue-as-new (its patch marker included), replays on this code.
      const history = await env.client.workflow.getHandle(workflowId, runs[0]!.runId).fetchHistory();
      await expect(
        Worker.runReplayHistory({ workflowBundle: bundle }, history, workflowId),
      ).resolves.toBeUndefined();
    });
  }, 300_000);
});
