// The returned-check fee of one check: one fee per check, however many links the check was
// applied to, split by RETURNED_CHECK_FEE_SPLIT. Pure, workflow-safe.

export type ReturnedCheckFeeSplit = 'first-link' | 'pro-rata';

export interface FeeShare {
  paymentLinkId: string;
  amountCents: number;
}

/**
 * How a fee of `feeCents` falls on the links a returned check was applied to (`applications` in the order
 * they were applied, with their applied amounts):
 * - 'first-link' (the default): all of it on the first link;
 * - 'pro-rata': in proportion to what was applied to each link, in whole cents, the cents left by rounding
 *   down going to the largest remainders (ties: the earlier link), so the shares add up to the fee exactly.
 * Links whose share is 0 get no memo. Nothing when the fee is 0 or nothing was applied.
 */
export function returnedCheckFeeShares(
  feeCents: number,
  applications: readonly { paymentLinkId: string; amountCents: number | null }[],
  split: ReturnedCheckFeeSplit,
): FeeShare[] {
  const applied = new Map<string, number>();
  for (const a of applications) {
    applied.set(a.paymentLinkId, (applied.get(a.paymentLinkId) ?? 0) + Math.max(a.amountCents ?? 0, 0));
  }
  const links = [...applied.keys()];
  if (feeCents <= 0 || links.length === 0) return [];
  if (split === 'first-link') return [{ paymentLinkId: links[0]!, amountCents: feeCents }];
  const total = [...applied.values()].reduce((sum, cents) => sum + cents, 0);
  if (total === 0) return [{ paymentLinkId: links[0]!, amountCents: feeCents }];
  const shares = links.map((paymentLinkId, order) => {
    const exact = (feeCents * applied.get(paymentLinkId)!) / total;
    return { paymentLinkId, order, amountCents: Math.floor(exact), remainder: exact - Math.floor(exact) };
  });
  let left = feeCents - shares.reduce((sum, s) => sum + s.amountCents, 0);
  for (const share of [...shares].sort((a, b) => b.remainder - a.remainder || a.order - b.order)) {
    if (left === 0) break;
    share.amountCents++;
    left--;
  }
  return shares
    .filter((s) => s.amountCents > 0)
    .map(({ paymentLinkId, amountCents }) => ({ paymentLinkId, amountCents }));
}
