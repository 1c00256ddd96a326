import { describe, expect, it } from 'vitest';
import { refundTimings } from '../../src/payouts/refund-timing.js';

// Placing refunds before or after a batch known only by its date: other days by the date, the batch day's
// by the amount the payout was short of its payments' gross less fees.

const refund = (refundId: string, refundDate: string, amountCents: number) => ({
  refundId,
  refundDate,
  amountCents,
});

describe('refundTimings', () => {
  const refunds = [
    refund('re_prev', '2026-03-01T15:00:00.000Z', 700),
    refund('re_late', '2026-03-02T18:00:00.000Z', 300),
    refund('re_early', '2026-03-02T09:00:00.000Z', 500),
    refund('re_next', '2026-03-03T08:00:00.000Z', 900),
  ];

  it('places the batch day refunds by the amount: the earliest ones came before the batch', () => {
    // The payout was 1200 short: 700 the day before, so 500 of the batch day (the 09:00 one) came first.
    const timings = refundTimings(refunds, '2026-03-02', 1200);
    expect(Object.fromEntries(timings)).toEqual({
      re_prev: 'BEFORE_BATCH',
      re_early: 'BEFORE_BATCH',
      re_late: 'AFTER_BATCH',
      re_next: 'AFTER_BATCH',
    });
  });

  it('all of the batch day after when the amount leaves nothing for them, all before when it leaves all', () => {
    expect(refundTimings(refunds, '2026-03-02', 700).get('re_early')).toBe('AFTER_BATCH');
    const all = refundTimings(refunds, '2026-03-02', 1500);
    expect([all.get('re_early'), all.get('re_late')]).toEqual(['BEFORE_BATCH', 'BEFORE_BATCH']);
  });

  it('an amount no prefix explains counts the batch day as before (the report shows the rest unexplained)', () => {
    const timings = refundTimings(refunds, '2026-03-02', 1000);
    expect([timings.get('re_early'), timings.get('re_late')]).toEqual(['BEFORE_BATCH', 'BEFORE_BATCH']);
  });

  it('an undated batch places every refund by the amount alone', () => {
    const timings = refundTimings(refunds, null, 1200);
    expect(Object.fromEntries(timings)).toEqual({
      re_prev: 'BEFORE_BATCH',
      re_early: 'BEFORE_BATCH',
      re_late: 'AFTER_BATCH',
      re_next: 'AFTER_BATCH',
    });
  });
});
