import { describe, expect, it } from 'vitest';
import { returnedCheckFeeShares } from '../../../src/flows/check-deposit/returned-check-fee.js';

// One returned-check fee per check, however many links it paid.

const three = [
  { paymentLinkId: 'pl_a', amountCents: 10_000 },
  { paymentLinkId: 'pl_b', amountCents: 5_000 },
  { paymentLinkId: 'pl_c', amountCents: 5_000 },
];

describe('returnedCheckFeeShares', () => {
  it('first-link: the whole fee on the first link the check was applied to', () => {
    expect(returnedCheckFeeShares(2_500, three, 'first-link')).toEqual([
      { paymentLinkId: 'pl_a', amountCents: 2_500 },
    ]);
  });

  it('pro-rata: in proportion to what was applied, whole cents adding up to the fee', () => {
    expect(returnedCheckFeeShares(2_500, three, 'pro-rata')).toEqual([
      { paymentLinkId: 'pl_a', amountCents: 1_250 },
      { paymentLinkId: 'pl_b', amountCents: 625 },
      { paymentLinkId: 'pl_c', amountCents: 625 },
    ]);
    // 100 cents over three equal links: 34, 33, 33 (the cent left goes to the earliest).
    const equal = three.map((a) => ({ ...a, amountCents: 1_000 }));
    const shares = returnedCheckFeeShares(100, equal, 'pro-rata');
    expect(shares.map((s) => s.amountCents)).toEqual([34, 33, 33]);
    // Two applications on one link count together; a link whose share rounds to 0 gets no memo.
    const tiny = returnedCheckFeeShares(
      1,
      [
        { paymentLinkId: 'pl_a', amountCents: 500 },
        { paymentLinkId: 'pl_b', amountCents: 400 },
        { paymentLinkId: 'pl_a', amountCents: 500 },
      ],
      'pro-rata',
    );
    expect(tiny).toEqual([{ paymentLinkId: 'pl_a', amountCents: 1 }]);
  });

  it('nothing when there is no fee or nothing was applied', () => {
    expect(returnedCheckFeeShares(0, three, 'first-link')).toEqual([]);
    expect(returnedCheckFeeShares(2_500, [], 'pro-rata')).toEqual([]);
  });
});
