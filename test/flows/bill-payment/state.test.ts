import { describe, expect, it } from 'vitest';
import type {
  BillPaymentSyncResult,
  CheckProgress,
} from '../../../src/flows/bill-payment/activities-contract.js';
import { BillPaymentRun } from '../../../src/flows/bill-payment/state.js';

// The bill-payment run's state between its loop and its steps, without a Temporal server.

const dayMs = 24 * 60 * 60 * 1000;
const sentAt = '2026-11-02T15:00:00.000Z';
const check = (over: Partial<CheckProgress>): CheckProgress => ({
  checkNumber: '1042',
  status: 'SENT',
  sentAt,
  deliveredAt: null,
  depositedAt: null,
  returnedAt: null,
  failedAt: null,
  ...over,
});
const result = (over: Partial<BillPaymentSyncResult>): BillPaymentSyncResult => ({
  billPaymentId: 'bp_1',
  billId: 'bill_1',
  vendorId: 'ven_1',
  status: 'PENDING',
  failureReason: null,
  deliveryMethodType: 'CHECK',
  amountCents: 12_500,
  sentAt,
  completedAt: null,
  check: check({}),
  billStatus: 'OPEN',
  windows: null,
  posted: [],
  reversed: [],
  ...over,
});
const noPatch = () => false;

describe('BillPaymentRun', () => {
  it('wakes at the end of the delivery window, then flags the check overdue and reports it once', () => {
    const run = new BillPaymentRun({ billPaymentId: 'bp_1', windows: { deliveryDays: 5 } }, sentAt);
    run.synced(result({}));
    const deadline = Date.parse(sentAt) + 5 * dayMs;
    expect(run.evaluate(deadline - 1)).toBeNull();
    expect(run.view.state).toBe('SENT');
    expect(run.wakeAt(deadline - 1, noPatch)).toBe(deadline);

    const overdue = run.evaluate(deadline);
    expect(overdue).toMatchObject({ kind: 'NOT_DELIVERED', windowDays: 5, since: sentAt });
    expect(run.view.state).toBe('CHECK_OVERDUE');
    // Looked at weekly while overdue; reported once per kind, carried into the next run.
    expect(run.wakeAt(deadline, noPatch)).toBe(deadline + 7 * dayMs);
    expect(run.evaluate(deadline + dayMs)).toBeNull();
    expect(run.view.state).toBe('CHECK_OVERDUE');
    expect(run.continuation(['ev_1']).overdueReported).toEqual(['NOT_DELIVERED']);
  });

  it("takes the worker's windows unless the run was given its own", () => {
    const run = new BillPaymentRun({ billPaymentId: 'bp_1', windows: { cashingDays: 30 } }, sentAt);
    run.synced(result({ windows: { deliveryDays: 7, cashingDays: 60 } }));
    expect(run.view.windows).toEqual({ deliveryDays: 7, cashingDays: 30 });
  });

  it('asks for the ACH patch only for an open ACH bill payment, and polls it daily when patched', () => {
    const run = new BillPaymentRun({ billPaymentId: 'bp_1' }, sentAt);
    const asked: string[] = [];
    const patch = () => {
      asked.push('ach');
      return true;
    };
    run.synced(result({ deliveryMethodType: 'ACH', check: null }));
    run.evaluate(Date.parse(sentAt));
    const now = Date.parse(sentAt);
    expect(run.wakeAt(now, patch)).toBe(now + dayMs);
    expect(run.wakeAt(now, noPatch)).toBeNull();
    run.synced(result({ deliveryMethodType: 'ACH', check: null, status: 'SUCCEEDED' }));
    run.evaluate(now);
    expect(run.terminal).toBe(true);
    expect(run.wakeAt(now, patch)).toBeNull();
    expect(asked).toEqual(['ach']);
  });

  it('is unknown to the service only while never fetched', () => {
    const run = new BillPaymentRun({ billPaymentId: 'bp_1' }, sentAt);
    run.syncFailed('bill payment bp_1 not found', true);
    expect(run.unknownToService).toBe(true);
    run.synced(result({}));
    expect(run.unknownToService).toBe(false);
    expect(run.view.lastError).toBeNull();
  });
});
