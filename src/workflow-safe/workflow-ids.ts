// Every workflow id booksync (and its emulator) builds: `<prefix><id>`, business ids so the Temporal UI finds
// them. The prefixes are those of the first release, so running workflows stay reachable without a migration.
// Pure and deterministic: workflow code imports it too.
//
// Injective (design decision "Workflow ids"): 'payment-' is a prefix of 'payment-link-', so payment `link-X`
// would land on the workflow of payment link `X`. An id that starts with what would turn its prefix into a
// longer one (`link-` after 'payment-'), or with the escape mark, gets the escape mark in front:
// payment `link-X` is `payment-~link-X`. Then a workflow id's prefix is the longest one it starts with, and
// the rest is the escaped id, so no two (kind, id) pairs share a workflow id. Only ids of kinds that have a
// longer prefix extending theirs are ever escaped; every other id keeps its first-release workflow id.

export const WORKFLOW_ID_PREFIXES = {
  payment: 'payment-',
  paymentLink: 'payment-link-',
  checkDeposit: 'check-deposit-',
  billPayment: 'bill-payment-',
  disbursement: 'disbursement-',
  chargeAuthorization: 'charge-authorization-',
  vendor: 'vendor-',
  accountingTarget: 'accounting-target-',
  /** Runs for a `reconcile` request (the CLI's request id). */
  reconciliationRun: 'reconcile-',
  /** The Schedule's runs: Temporal appends `-{start time}` to this id, so it is a prefix too. */
  scheduledReconciliation: 'reconcile-scheduled',
  /** The payout report of one disbursement (`booksync payout show`); each request is a new run of it. */
  payoutReport: 'payout-report-',
  /** The payout report of a period, `{from}_{to}` (`booksync payout list`). */
  payoutPeriodReport: 'payout-period-',
  /** The completeness certificate of a period, `{from}-{to}` (`booksync close`). */
  periodClose: 'period-close-',
  /** The monthly Schedule's runs of the period close: Temporal appends `-{start time}`. */
  scheduledPeriodClose: 'scheduled-period-close',
  /** A re-sync with a diff (`booksync resync`): `dry-run-{since|all}` or `apply-{since|all}`. */
  resync: 'resync-',
  /** A backfill since a day (`booksync backfill --since`): `{since}`. */
  backfill: 'backfill-',
  /** The emulator's deliveries (its event ids are UUIDs it generates, 6.2). */
  webhookDelivery: 'webhook-delivery-',
} as const;

export type WorkflowKind = keyof typeof WORKFLOW_ID_PREFIXES;

/** The one workflow id not built from an id: the long-lived workflow taking `reconcile` requests. */
export const RECONCILIATION_REQUESTS_WORKFLOW_ID = 'reconcile';

export const WORKFLOW_ID_ESCAPE = '~';

const kinds = Object.keys(WORKFLOW_ID_PREFIXES) as WorkflowKind[];

/** What may not follow a kind's prefix unescaped: the rest of every longer prefix that extends it. */
const reservedStarts = Object.fromEntries(
  kinds.map((kind) => {
    const prefix = WORKFLOW_ID_PREFIXES[kind];
    const longer = Object.values(WORKFLOW_ID_PREFIXES).filter(
      (other) => other.length > prefix.length && other.startsWith(prefix),
    );
    return [kind, longer.map((other) => other.slice(prefix.length))];
  }),
) as Record<WorkflowKind, string[]>;

function escapeId(kind: WorkflowKind, id: string): string {
  const reserved = reservedStarts[kind];
  if (reserved.length === 0) return id;
  const ambiguous = id.startsWith(WORKFLOW_ID_ESCAPE) || reserved.some((start) => id.startsWith(start));
  return ambiguous ? `${WORKFLOW_ID_ESCAPE}${id}` : id;
}

/** The workflow id of `kind` for the object (or request, target, event) `id`. */
export function workflowIdFor(kind: WorkflowKind, id: string): string {
  return `${WORKFLOW_ID_PREFIXES[kind]}${escapeId(kind, id)}`;
}

/**
 * The first release's id (`<prefix><id>`, never escaped). Only workflow code replaying a history recorded
 * before the escape uses it, behind `patched()`; it differs from workflowIdFor for escaped ids only.
 */
export function legacyWorkflowIdFor(kind: WorkflowKind, id: string): string {
  return `${WORKFLOW_ID_PREFIXES[kind]}${id}`;
}

/** The inverse of workflowIdFor: which kind and id a workflow id names, or undefined for none. */
export function parseWorkflowId(workflowId: string): { kind: WorkflowKind; id: string } | undefined {
  let found: WorkflowKind | undefined;
  for (const kind of kinds) {
    const prefix = WORKFLOW_ID_PREFIXES[kind];
    if (workflowId.startsWith(prefix) && (!found || prefix.length > WORKFLOW_ID_PREFIXES[found].length)) {
      found = kind;
    }
  }
  if (!found) return undefined;
  const rest = workflowId.slice(WORKFLOW_ID_PREFIXES[found].length);
  const id = reservedStarts[found].length > 0 && rest.startsWith(WORKFLOW_ID_ESCAPE) ? rest.slice(1) : rest;
  return workflowIdFor(found, id) === workflowId ? { kind: found, id } : undefined;
}
