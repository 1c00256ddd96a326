// What the check-deposit workflow carries of its applications through continue-as-new (decision “Bounded check-deposit state”): every live one
// (a void, a return and its fee need it) and the most recent settled ones; older settled applications only as
// counts and amounts, so the carried state stays bounded however many commands a deposit gets.

export const applicationStatuses = ['APPLYING', 'APPLIED', 'FAILED', 'VOIDED', 'RETURNED'] as const;
export type ApplicationStatus = (typeof applicationStatuses)[number];

export interface ApplicationTally {
  count: number;
  /** As applied by the service (a refused application applied nothing). */
  amountCents: number;
}

export type ApplicationTotals = Record<ApplicationStatus, ApplicationTally>;

/** Settled applications listed one by one after continue-as-new; older ones are tallied. */
export const listedSettledApplications = 50;

interface Tallied {
  status: ApplicationStatus;
  amountCents: number | null;
}

export function emptyApplicationTotals(): ApplicationTotals {
  return Object.fromEntries(
    applicationStatuses.map((s) => [s, { count: 0, amountCents: 0 }]),
  ) as ApplicationTotals;
}

/** `base` plus the applications, per status (a new object). */
export function addToTotals(base: ApplicationTotals, applications: readonly Tallied[]): ApplicationTotals {
  const totals = emptyApplicationTotals();
  for (const status of applicationStatuses) {
    totals[status].count = base[status]?.count ?? 0;
    totals[status].amountCents = base[status]?.amountCents ?? 0;
  }
  for (const a of applications) {
    totals[a.status].count++;
    totals[a.status].amountCents += a.amountCents ?? 0;
  }
  return totals;
}

const isLive = (a: Tallied) => a.status === 'APPLYING' || a.status === 'APPLIED';

/**
 * The list to carry and the tally of what it leaves out: live applications all, settled ones the most
 * recent `keep`, in their original order.
 */
export function compactApplications<A extends Tallied>(
  applications: readonly A[],
  unlisted: ApplicationTotals,
  keep = listedSettledApplications,
): { applications: A[]; unlisted: ApplicationTotals } {
  const settled = applications.filter((a) => !isLive(a));
  const dropped = new Set(settled.slice(0, Math.max(settled.length - keep, 0)));
  return {
    applications: applications.filter((a) => !dropped.has(a)),
    unlisted: addToTotals(unlisted, [...dropped]),
  };
}
