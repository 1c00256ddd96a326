import { describe, expect, it } from 'vitest';
import type { PaymentSyncResult } from '../../../src/flows/payment/activities-contract.js';
import { achReturnWindowDays, PaymentRun } from '../../../src/flows/payment/state.js';

// The payment run's state between its loop and its steps, without a Temporal server.

const dayMs = 24 * 60 * 60 * 1000;
const madeAt = '2026-09-01T14:00:00.000Z';
const result = (over: Partial<PaymentSyncResult>): PaymentSyncResult => ({
  paymentId: 'pay_1',
  status: 'SUCCEEDED',
  methodType: 'ACH',
  paymentLinkId: null,
  customerId: null,
  amountInCents: 4_200,
  madeAt,
  posted: [],
  reversed: [],
  ...over,
});

describe('PaymentRun', () => {
  it('keeps an ACH payment open until its return window from payment.made is over', () => {
    const run = new PaymentRun({ paymentId: 'pay_1' }, madeAt);
    const ach = result({});
    run.synced(ach);
    const end = Date.parse(madeAt) + achReturnWindowDays * dayMs;
    expect(run.returnWindowEnd).toBe(end);
    expect(run.isFinal(ach, end - 1)).toBe(false);
    expect(run.isFinal(ach, end)).toBe(true);
    run.close(ach, new Date(end).toISOString());
    expect(run.view.state).toBe('CLOSED');
  });

  it('closes a card payment at once, and a failed one as RETURNED', () => {
    const run = new PaymentRun({ paymentId: 'pay_1' }, madeAt);
    const card = result({ methodType: 'CARD' });
    run.synced(card);
    expect(run.returnWindowEnd).toBeNull();
    expect(run.isFinal(card, Date.parse(madeAt))).toBe(true);
    const failed = result({ status: 'FAILED' });
    expect(run.isFinal(failed, Date.parse(madeAt))).toBe(true);
    run.close(failed, madeAt);
    expect(run.view.state).toBe('RETURNED');
  });

  it('is unknown to the service only while never fetched', () => {
    const run = new PaymentRun({ paymentId: 'pay_1' }, madeAt);
    run.syncFailed('payment pay_1 not found', true);
    expect(run.unknownToService).toBe(true);
    run.close(null, madeAt, 'NOT_FOUND');
    expect(run.view.state).toBe('NOT_FOUND');
    run.synced(result({}));
    expect(run.unknownToService).toBe(false);
  });
});
