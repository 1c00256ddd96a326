import { describe, expect, it } from 'vitest';
import type { CheckDepositSyncResult } from '../../../src/flows/check-deposit/activities-contract.js';
import { CheckDepositRun } from '../../../src/flows/check-deposit/state.js';

// The check-deposit run's state between its handlers and its loop, without a Temporal server.

const now = '2026-11-23T10:00:00Z';
const apply = (commandId: string) => ({ commandId, paymentLinkId: 'pl_1' });
const syncResult = (over: Partial<CheckDepositSyncResult>): CheckDepositSyncResult => ({
  checkDepositId: 'cd_1',
  status: 'PROCESSING',
  amountCents: 2_500,
  unappliedAmountCents: 0,
  clearedAt: null,
  returnedAt: null,
  liveApplicationIds: [],
  unknownApplicationIds: [],
  posted: [],
  reversed: [],
  ...over,
});

describe('CheckDepositRun', () => {
  it('answers an apply once the service said yes; a repeated reference keeps one row', () => {
    const run = new CheckDepositRun({ checkDepositId: 'cd_1' }, 3_600_000, now);
    expect(run.applyRequested(apply('c1'))).toBe(true);
    expect(run.applyRequested(apply('c1'))).toBe(true);
    expect(run.view.duplicatesDropped).toBe(1);
    const [command] = run.takeApplies();
    const row = run.applying(command!, 'booksync:cd_1:pl_1:c1');
    expect(run.settledApplication('c1')).toBeUndefined();
    run.applied(row, { externalPaymentId: 'ep_1', amountCents: 2_500, linkRemainderCents: 1_500 } as never);
    expect(run.settledApplication('c1')).toMatchObject({ status: 'APPLIED', externalPaymentId: 'ep_1' });
    // The same reference asked again (another command): the service answers the same application.
    const second = run.applying(apply('c2'), 'booksync:cd_1:pl_1:c1');
    run.applied(second, { externalPaymentId: 'ep_1', amountCents: 2_500 } as never);
    expect(run.view.applications).toHaveLength(1);
    expect(run.paymentLinkOf()).toEqual({ ep_1: 'pl_1' });
  });

  it('flags a refused application until a person acts, and the latest failure of the round first', () => {
    const run = new CheckDepositRun({ checkDepositId: 'cd_1' }, 3_600_000, now);
    run.beginRound(true, 86_400_000);
    const row = run.applying(apply('c1'), 'ref');
    const refusal = {
      error: 'taken',
      errorType: 'ServiceConflictError',
      errorCode: 'REFERENCE_CONFLICT',
      httpStatus: 409,
    };
    run.refused(row, refusal);
    expect(run.lastError()).toBe('REFERENCE_CONFLICT: taken');
    run.view.lastError = run.lastError();
    // Next round: no new failure, but the refused application still stands.
    run.beginRound(true, 86_400_000);
    expect(run.lastError()).toBe(run.view.lastError);
  });

  it('shows an application voided at the service, RETURNED when the deposit came back; names unknown ones', () => {
    const run = new CheckDepositRun({ checkDepositId: 'cd_1' }, 3_600_000, now);
    run.applied(run.applying(apply('c1'), 'r1'), { externalPaymentId: 'ep_1', amountCents: 1_000 } as never);
    run.applied(run.applying(apply('c2'), 'r2'), { externalPaymentId: 'ep_2', amountCents: 1_500 } as never);
    run.synced(syncResult({ liveApplicationIds: ['ep_2'], unknownApplicationIds: ['ep_x'] }), 'timer', now);
    expect(run.view.applications.map((a) => a.status)).toEqual(['VOIDED', 'APPLIED']);
    expect(run.lastError()).toMatch(/ep_x/);
    run.synced(syncResult({ status: 'RETURNED' }), 'timer', now);
    expect(run.view.applications.map((a) => a.status)).toEqual(['VOIDED', 'RETURNED']);
  });

  it('doubles the gap between looks after a round the timer woke, up to the maximum', () => {
    const run = new CheckDepositRun({ checkDepositId: 'cd_1' }, 3_600_000, now);
    expect(run.beginRound(false, 10_000_000)).toEqual(['timer']);
    expect(run.view.pollIntervalMs).toBe(7_200_000);
    run.beginRound(false, 10_000_000);
    expect(run.view.pollIntervalMs).toBe(10_000_000);
    expect(run.beginRound(true, 10_000_000)).toEqual([]);
  });
});
