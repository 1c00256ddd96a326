import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { newDeposit, newLink } from '@booksync/emulator/harness';
import { ApplicationFailure } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplyCheckDepositToLinkInput } from '../../../src/flows/check-deposit/activities-contract.js';
import {
  applyDepositSignal,
  type CheckDepositView,
  checkDepositViewQuery,
  checkDepositWorkflowId,
} from '../../../src/flows/check-deposit/contract.js';
import { applicationReference, checkDeposit } from '../../../src/flows/check-deposit/workflow.js';
import { entryKeys } from '../../../src/ledger/entry-key.js';
import { accountRoles } from '../../../src/targets/account-mapping.js';
import { checkWithHledger } from '../../support/hledger.js';
import { balancesByRole, type SyncWorld, startSyncWorld, withWorker } from '../../support/sync-world.js';
import { fixturesDir, startTimeSkipping, workflowBundle } from '../../support/temporal.js';
import { eventually } from '../../support/wait-for.js';

// The check-deposit workflow on the time-skipping server (its timers are hours to a day), with the emulator
// over real HTTP, a real ledger file and the real activities. The emulator's clock is its own: the bank's
// verdict is given through the sandbox routes while the workflow sleeps on its durable timer.

let env: TestWorkflowEnvironment;
let bundle: { codePath: string };
let world: SyncWorld;

beforeAll(async () => {
  [env, bundle, world] = await Promise.all([startTimeSkipping(), workflowBundle(), startSyncWorld()]);
});
afterAll(async () => {
  await world?.close();
  await env?.teardown();
});

/** Every role at zero: a test names the roles its scenario moves (a role added to the chart is zero here too). */
const zeroBalances: Record<string, number> = Object.fromEntries(accountRoles.map((role) => [role, 0]));

/** Balances accumulate over the file's scenarios (one ledger): each test checks its own difference. */
async function balanceDelta(before: Record<string, number>) {
  const now = await balancesByRole(world.ledger);
  return Object.fromEntries(Object.entries(now).map(([k, v]) => [k, v - (before[k] ?? 0)]));
}

/** The link's remainder at the service and what its invoice still owes in the books: they must agree. */
async function owedBothSides(linkId: string): Promise<{ service: number; books: number }> {
  const link = (await world.emulator.api('GET', `/paymentLink/${linkId}`)).body;
  const item = (await world.ledger.openItems('receivable')).find((i) => i.documentId === linkId);
  return { service: link.requestedAmountCents - link.completedAmountCents, books: item?.openCents ?? 0 };
}

async function startApply(
  taskQueue: string,
  checkDepositId: string,
  paymentLinkId: string,
  commandId: string,
  extra = {},
) {
  return env.client.workflow.signalWithStart(checkDeposit, {
    workflowId: checkDepositWorkflowId(checkDepositId),
    taskQueue,
    args: [{ checkDepositId, ...extra }],
    signal: applyDepositSignal,
    signalArgs: [{ paymentLinkId, commandId }],
  });
}

async function viewWhen(
  handle: { query: (q: typeof checkDepositViewQuery) => Promise<CheckDepositView> },
  done: (view: CheckDepositView) => boolean,
): Promise<CheckDepositView> {
  return eventually(async () => {
    const view = await handle.query(checkDepositViewQuery);
    return done(view) ? view : undefined;
  });
}

describe('check deposit workflow (time skipping, emulator over HTTP, real ledger)', () => {
  it('applies a deposit to two links, books both, and books it to the bank once it clears', async () => {
    const before = await balancesByRole(world.ledger);
    const deposit = await newDeposit(world.emulator.api, 3000);
    const a = await newLink(world.emulator.api, 1000);
    const b = await newLink(world.emulator.api, 2000);

    const view = await withWorker(env, bundle, world.activities, async (taskQueue) => {
      const handle = await startApply(taskQueue, deposit.id, a.id, 'cmd-a');
      await handle.signal(applyDepositSignal, { paymentLinkId: b.id, commandId: 'cmd-b' });
      const applied = await viewWhen(
        handle,
        (v) =>
          v.applications.length === 2 &&
          v.applications.every((x) => x.status === 'APPLIED') &&
          v.polls >= 1 &&
          v.unappliedAmountCents === 0,
      );
      expect(applied.applications.map((x) => x.amountCents)).toEqual([1000, 2000]);
      expect(await balanceDelta(before)).toEqual({
        ...zeroBalances,
        ChecksToDeposit: 3000,
        AccountsReceivable: 0,
        Revenue: -3000,
      });
      expect((await world.emulator.api('GET', `/paymentLink/${a.id}`)).body.status).toBe('PAID');

      // The bank clears the check while the workflow sleeps; the next timer (1 hour) finds it.
      expect((await world.emulator.api('POST', `/sandbox/checkDeposits/${deposit.id}/clear`)).status).toBe(
        200,
      );
      return handle.result();
    });

    expect(view.state).toBe('CLEARED');
    expect(view.serviceStatus).toBe('CLEARED');
    expect(await balanceDelta(before)).toEqual({
      ...zeroBalances,
      OperatingBank: 3000,
      AccountsReceivable: 0,
      Revenue: -3000,
    });
    for (const link of [a, b]) expect(await owedBothSides(link.id)).toEqual({ service: 0, books: 0 });
    expect(await world.ledger.get(entryKeys.checkCleared(deposit.id))).toMatchObject({
      lines: expect.arrayContaining([expect.objectContaining({ amountCents: 3000 })]),
    });
    await checkWithHledger(world.ledger);
  });

  it('a returned deposit reopens both links, reverses both applications and records one fee memo for the check, mirrored in the books', async () => {
    const before = await balancesByRole(world.ledger);
    const deposit = await newDeposit(world.emulator.api, 3000);
    const a = await newLink(world.emulator.api, 1000);
    const b = await newLink(world.emulator.api, 2000);

    const { view, history } = await withWorker(env, bundle, world.activities, async (taskQueue) => {
      const handle = await startApply(taskQueue, deposit.id, a.id, 'ret-a', { returnedCheckFeeCents: 2500 });
      await handle.signal(applyDepositSignal, { paymentLinkId: b.id, commandId: 'ret-b' });
      await viewWhen(
        handle,
        (v) =>
          v.applications.filter((x) => x.status === 'APPLIED').length === 2 && v.unappliedAmountCents === 0,
      );
      expect(await balanceDelta(before)).toEqual({
        ...zeroBalances,
        ChecksToDeposit: 3000,
        AccountsReceivable: 0,
        Revenue: -3000,
      });

      expect((await world.emulator.api('POST', `/sandbox/checkDeposits/${deposit.id}/return`)).status).toBe(
        200,
      );
      const view = await handle.result();
      // The fee memo is mirrored by the link's payment-link workflow (started by the deposit's workflow).
      await eventually(async () =>
        (await world.ledger.entriesFor({ paymentLinkId: a.id })).some((e) => e.key.startsWith('debit-memo:'))
          ? true
          : undefined,
      );
      return { view, history: await handle.fetchHistory() };
    });

    expect(view.state).toBe('RETURNED');
    expect(view.applications.map((x) => x.status)).toEqual(['RETURNED', 'RETURNED']);
    expect(view.linksAfterReturn.map((l) => l.status)).toEqual(['ACTIVE', 'ACTIVE']);
    // One fee for the one check (RETURNED_CHECK_FEE_SPLIT's default: on the first link), not one per link.
    expect(view.returnedCheckFees.map((f) => [f.paymentLinkId, f.amountCents, f.mirrorRequested])).toEqual([
      [a.id, 2500, true],
    ]);
    // At the service: the links reopened, the applications are gone, the first link has the fee memo.
    for (const [link, requested, memos] of [
      [a, 3500, [2500]],
      [b, 2000, []],
    ] as const) {
      const fetched = (await world.emulator.api('GET', `/paymentLink/${link.id}`)).body;
      expect(fetched.status).toBe('ACTIVE');
      expect(fetched.externalPayments).toEqual([]);
      expect(fetched.debitMemos.map((m: { amountCents: number }) => m.amountCents)).toEqual(memos);
      expect(fetched.requestedAmountCents).toBe(requested);
      // Owed in full again, in the books as at the service: the invoice and its fee memo.
      expect(await owedBothSides(link.id)).toEqual({ service: requested, books: requested });
    }
    // In the books: both applications reversed; the invoices (booked when the check was applied) and the
    // memos owed again (AR), against Revenue and Fee Income.
    for (const application of view.applications) {
      expect(await world.ledger.isReversed(entryKeys.checkApplication(application.externalPaymentId!))).toBe(
        true,
      );
    }
    expect(await balanceDelta(before)).toEqual({
      ...zeroBalances,
      AccountsReceivable: 5500,
      Revenue: -3000,
      FeeIncome: -2500,
    });
    await checkWithHledger(world.ledger);

    if (process.env.BOOKSYNC_RECORD_HISTORIES) {
      writeFileSync(
        path.join(fixturesDir, 'histories', 'check-deposit-returned-with-fee.json'),
        `${historyToJSON(history)}\n`,
      );
    }
  });

  it('does not apply twice: a repeated command (same command id) and an activity retry after the call', async () => {
    const before = await balancesByRole(world.ledger);
    const deposit = await newDeposit(world.emulator.api, 1500);
    const link = await newLink(world.emulator.api, 5000);
    // The first attempt reaches the service, then "crashes" before reporting: Temporal retries the activity.
    let attempts = 0;
    const activities = {
      ...world.activities,
      async applyCheckDepositToLink(input: ApplyCheckDepositToLinkInput) {
        const result = await world.activities.applyCheckDepositToLink(input);
        attempts++;
        if (attempts === 1)
          throw ApplicationFailure.retryable('worker lost after the service applied the deposit');
        return result;
      },
    };

    await withWorker(env, bundle, activities, async (taskQueue) => {
      const handle = await startApply(taskQueue, deposit.id, link.id, 'same-command');
      // The same command again (a client retry with the same Idempotency-Key): dropped by the workflow.
      await startApply(taskQueue, deposit.id, link.id, 'same-command');
      const view = await viewWhen(
        handle,
        (v) => v.applications[0]?.status === 'APPLIED' && v.polls >= 1 && v.duplicatesDropped === 1,
      );
      expect(view.applications).toHaveLength(1);
      expect(view.applications[0]).toMatchObject({
        amountCents: 1500,
        externalReferenceId: applicationReference(deposit.id, link.id, 'same-command'),
      });
      await handle.terminate('test done');
    });

    expect(attempts).toBe(2);
    const fetched = (await world.emulator.api('GET', `/serviceBanking/checkDeposits/${deposit.id}`)).body;
    expect(fetched.applications).toHaveLength(1);
    expect(fetched.unappliedAmountCents).toBe(0);
    expect((await world.emulator.api('GET', `/paymentLink/${link.id}`)).body.completedAmountCents).toBe(1500);
    expect(await owedBothSides(link.id)).toEqual({ service: 3500, books: 3500 });
    expect(await balanceDelta(before)).toEqual({
      ...zeroBalances,
      ChecksToDeposit: 1500,
      AccountsReceivable: 3500,
      Revenue: -5000,
    });
    await checkWithHledger(world.ledger);
  });

  it('surfaces 4.1 refusals (REFERENCE_CONFLICT, over the remainder) in the view and search attributes, and keeps going', async () => {
    const before = await balancesByRole(world.ledger);
    const deposit = await newDeposit(world.emulator.api, 1000);
    const a = await newLink(world.emulator.api, 5000);
    const b = await newLink(world.emulator.api, 5000);
    // Someone already used the reference this command will carry, for other money on link a.
    const taken = await world.emulator.api('POST', `/paymentLink/${a.id}/externalPayment`, {
      amountCents: 100,
      paidAt: '2026-01-02',
      externalReferenceId: applicationReference(deposit.id, a.id, 'conflicting'),
    });
    expect(taken.status).toBe(201);

    await withWorker(env, bundle, world.activities, async (taskQueue) => {
      const handle = await startApply(taskQueue, deposit.id, a.id, 'conflicting');
      await handle.signal(applyDepositSignal, {
        paymentLinkId: b.id,
        amountCents: 1001,
        commandId: 'too-much',
      });
      const refused = await viewWhen(
        handle,
        (v) => v.applications.filter((x) => x.status === 'FAILED').length === 2,
      );
      expect(refused.applications[0]).toMatchObject({
        status: 'FAILED',
        errorCode: 'REFERENCE_CONFLICT',
        errorType: 'ServiceConflictError',
        httpStatus: 409,
      });
      expect(refused.applications[1]).toMatchObject({
        status: 'FAILED',
        errorType: 'ServiceValidationError',
        httpStatus: 400,
      });
      // A query can answer from the workflow task before the server has stored that task's upsert.
      const described = await eventually(async () => {
        const d = await handle.describe();
        return d.searchAttributes.NeedsAttention ? d : undefined;
      });
      expect(described.searchAttributes.NeedsAttention).toEqual([true]);
      expect(String(described.searchAttributes.LastError)).toMatch(/ServiceValidationError|exceed|remain/i);

      // Still serving: a valid application goes through, and the refusals stay visible.
      await handle.signal(applyDepositSignal, { paymentLinkId: b.id, amountCents: 400, commandId: 'fits' });
      const after = await viewWhen(
        handle,
        (v) =>
          v.applications.some((x) => x.commandId === 'fits' && x.status === 'APPLIED') &&
          v.unappliedAmountCents === 600,
      );
      expect(after.applications.map((x) => x.status)).toEqual(['FAILED', 'FAILED', 'APPLIED']);
      expect((await handle.describe()).searchAttributes.NeedsAttention).toEqual([true]);
      await handle.terminate('test done');
    });
    // The whole 1000 check is booked; what is not applied (600) is the customers' credit.
    expect(await balanceDelta(before)).toEqual({
      ...zeroBalances,
      ChecksToDeposit: 1000,
      UnappliedCash: -600,
      AccountsReceivable: 4600,
      Revenue: -5000,
    });
    await checkWithHledger(world.ledger);
  });
});
