import type { BookedEntry } from '../ledger/entry.js';
import { type BalanceAsOf, balancesAsOf } from './balances-as-of.js';
import {
  type CertifiedObject,
  certifyObjects,
  type DocumentCheck,
  type MoneyFlow,
  type ObjectStatus,
  type OrphanEntry,
  orphansAndFlow,
  payableChecks,
  receivableChecks,
  type TargetCheck,
  targetChecks,
  targetFigureChecks,
} from './certificate-checks.js';
import { certificateCannotProve, certificateProves, negativeClearingFindings } from './certificate-scope.js';
import { type CheckToDeposit, checksToDepositAsOf } from './checks-to-deposit.js';
import type { CloseInput, ClosePeriod } from './close-input.js';
import { type DocumentsAsOf, documentsAsOf } from './documents-as-of.js';
import { expectedObjects, inPeriod } from './expected-objects.js';
import { type PeriodFigure, periodFigures } from './period-figures.js';
import type { TargetComparison } from './target-comparison.js';

// The completeness certificate of a period (design overview, "Period close"). Pure: the activity fetches the
// service's objects, the ledger's entries and the targets' index, and this decides. No I/O and no Node
// built-ins, so workflow code could use it too.

/** A balance checked as of the end of the period's last day (balances-as-of.ts). */
export type BalanceCheck = BalanceAsOf;

export interface CloseCertificate {
  from: string;
  to: string;
  /**
   * When the books and the service were read: receivables and payables are compared as of then; the balances
   * as of the end of `to` (each BalanceCheck's asOf), in `timeZone`.
   */
  asOf: string;
  /** BOOKS_TIME_ZONE: the period's days, and the end of `to` the balances are taken at, are days in it. */
  timeZone: string;
  passes: boolean;
  /** One line per failed check, for people. */
  problems: string[];
  counts: Record<ObjectStatus, number> & { objects: number; entries: number; orphans: number };
  /**
   * Every object not BOOKED, and the BOOKED ones up to `maxListedBooked` (the certificate is a workflow
   * result, and Temporal bounds payloads): `counts` always counts them all.
   */
  objects: CertifiedObject[];
  /** BOOKED objects counted but not listed (0 unless the period has more than maxListedBooked). */
  bookedNotListed: number;
  orphanEntries: OrphanEntry[];
  balances: BalanceCheck[];
  /**
   * Every invoice and bill that differs, and the agreeing ones up to `maxListedBooked` (a period with tens of
   * thousands of open invoices stays a small workflow result); `documentCounts` counts them all.
   */
  receivables: DocumentCheck[];
  payables: DocumentCheck[];
  documentCounts: Record<'receivables' | 'payables', { agree: number; differ: number }>;
  /** null when no accounting target is configured. */
  targets: TargetCheck[] | null;
  /**
   * The ledger as of the period's last day against each target's own figures as of that day (its trial
   * balance and aged receivables and payables); null when no target reports its figures.
   */
  targetFigures: TargetComparison[] | null;
  flow: MoneyFlow;
  /**
   * External payments recorded as received (booked to Checks To Deposit) and on no deposit slip at the end of
   * the period, oldest first: findings, not failures (a check still to bank, or a slip not recorded yet).
   * Absent from certificates made before deposit slips.
   */
  checksToDeposit?: CheckToDeposit[];
  /**
   * Each invoice's receivable and bill's payable as of the end of `to`: the books' entries of that day or
   * before against the service's records by their own dates (documents-as-of.ts); every differing one, and
   * the agreeing ones up to `maxListedBooked`. Absent from certificates made before it.
   */
  documentsAtEnd?: DocumentsAsOf & {
    counts: Record<'receivables' | 'payables', { agree: number; differ: number }>;
  };
  /** The period's Operating Bank, revenue and fees against the service's records (period-figures.ts). */
  periodFigures?: PeriodFigure[];
  /** What the certificate names without failing (a Processor Clearing below zero), with why. */
  findings?: string[];
  /** What the certificate proves, and what it cannot (certificate-scope.ts): fixed lists. */
  proves?: string[];
  cannotProve?: string[];
  notes: string[];
}

/**
 * Which dates each figure is compared by, and what the spec cannot date. Receivables and payables are compared
 * as of the run and again as of the period's end (documents-as-of.ts), where a link with no creation date at
 * the service is placed by its first money or the books' invoice date.
 */
function asOfNotes(day: string, timeZone: string, runAt: string): string[] {
  return [
    `Processor Clearing and Payouts In Transit are compared as of the end of ${day} (${timeZone}): the service's figures from its objects' own dates (payments' createdAt, refunds' refundDate, disbursements' createdAt and paidAt), the books' from the entries whose economic date (else date) is on or before ${day}, so an event of the period booked after its close still counts in it.`,
    "The spec cannot date a failure: a FAILED payment (an ACH return) or disbursement counts until the day the books reversed its entry (when booksync heard of it), and not at all when the books hold no reversal; a returned ACH refund credit leaves refunds[] without a trace, so one made by the period's end and returned after it is missing from the service's figure.",
    `Receivables and payables are compared per document as of the run (${runAt}): the service's remainder now (requested less completed; a bill's amount less its sent payments) against the books' open item now. A payment link's requested amount has no history and no creation date at the service (a link lowered after the period shows its new amount), and a failed bill payment has no time: their state at the period's end cannot be told from the remainders now. They are compared again as of the end of ${day}: the service's side from its records' own dates (a link's requested amount less the memos created after, its payments standing by then, refunds reopening, its external payments paid by then; a bill's amount less its payments sent by then), the books' from the entries dated (economic date) by then; a link counts from its first money or memo, or the books' invoice date, and shows its amount now.`,
  ];
}

/** The keys of the entries a period's checks look at: every entry (and reversal) dated in the period. */
export function periodEntryKeys(entries: readonly BookedEntry[], period: ClosePeriod): string[] {
  return entries.filter((e) => inPeriod(e.date, period)).map((e) => e.key);
}

/** How many documents agree and differ. */
function documentCount(rows: readonly DocumentCheck[]) {
  const differ = rows.filter((r) => !r.ok).length;
  return { agree: rows.length - differ, differ };
}

/** Every differing document, and the agreeing ones up to `maxBooked` (the certificate stays bounded). */
function listDocuments(rows: readonly DocumentCheck[], maxBooked: number): DocumentCheck[] {
  let agreeing = 0;
  return rows.filter((r) => !r.ok || ++agreeing <= maxBooked);
}

/**
 * The checks of the period's end and of the period's movements against the service's records
 * (documents-as-of.ts, period-figures.ts), each difference worded as a problem.
 */
function reconciliationChecks(input: CloseInput) {
  const problems: string[] = [];
  const atEnd = documentsAsOf(input, input.period.to);
  for (const r of atEnd.receivables) {
    if (!r.ok)
      problems.push(
        `receivable of ${r.documentId} as of ${atEnd.asOf}: books ${r.booksCents}, service ${r.serviceCents}`,
      );
  }
  for (const p of atEnd.payables) {
    if (!p.ok)
      problems.push(
        `payable of bill ${p.documentId} as of ${atEnd.asOf}: books ${p.booksCents}, service ${p.serviceCents}`,
      );
  }

  const figuresOfPeriod = periodFigures(input);
  for (const f of figuresOfPeriod) {
    if (!f.ok)
      problems.push(
        `${f.title} from ${f.from} to ${f.to}: books ${f.booksCents} cents, service ${f.serviceCents} cents${f.explainedCents ? `, ${f.explainedCents} explained by changes of link amounts` : ''}: ${f.differenceCents} cents unexplained`,
      );
  }

  return { atEnd, figuresOfPeriod, problems };
}

/** The certificate: every check (certificate-checks.ts), every problem named. */
export function closeCertificate(input: CloseInput): CloseCertificate {
  const { period } = input;
  const problems: string[] = [];

  const objects = certifyObjects(expectedObjects(input), input.entries, input.opensOn);
  for (const o of objects) {
    if (o.status === 'BOOKED' || o.status === 'SKIPPED') continue;
    problems.push(`${o.kind} ${o.id} (${o.date}): ${o.status}: ${o.detail}`);
  }

  const periodEntries = input.entries.filter((e) => inPeriod(e.date, period));
  const { orphanEntries, flow } = orphansAndFlow(input, periodEntries);
  for (const o of orphanEntries) problems.push(`entry ${o.key} (${o.date}): ${o.detail}`);

  // Balances as of the end of the period's last day: the service's figures from its objects' own dates, the
  // books' from the entries of that day or before (economic dates): both sides dated alike.
  const allPayments = [...input.payments, ...input.links.flatMap((l) => l.payments)];
  const balances: BalanceCheck[] = balancesAsOf({
    day: period.to,
    timeZone: input.timeZone,
    payments: [...new Map(allPayments.map((p) => [p.id, p])).values()],
    disbursements: input.disbursements,
    entries: input.entries,
  });
  for (const b of balances) {
    if (!b.ok)
      problems.push(
        `${b.title} as of ${b.asOf}: books ${b.booksCents} cents, service ${b.serviceCents} cents`,
      );
  }

  const receivables = receivableChecks(input);
  for (const r of receivables) {
    if (!r.ok)
      problems.push(
        `receivable of ${r.documentId}: books ${r.booksCents}, service remainder ${r.serviceCents}`,
      );
  }
  const payables = payableChecks(input);
  for (const p of payables) {
    if (!p.ok)
      problems.push(`payable of bill ${p.documentId}: books ${p.booksCents}, still owed ${p.serviceCents}`);
  }

  const { atEnd, figuresOfPeriod, problems: reconciling } = reconciliationChecks(input);
  problems.push(...reconciling);

  const targets = input.targets === null ? null : targetChecks(input.targets, periodEntries);
  for (const check of targets ?? []) {
    if (!check.ok) problems.push(`target ${check.target}: ${check.notPushed.length} entries not pushed`);
  }

  const figures = targetFigureChecks(input);
  problems.push(...figures.problems);
  const targetFigures = figures.comparisons;

  // Bounded as the listed objects are (the certificate is a workflow result): the oldest are listed.
  const checksToDeposit = checksToDepositAsOf(input.entries, period.to).slice(
    0,
    input.maxListedBooked ?? 2000,
  );

  const count = (s: ObjectStatus) => objects.filter((o) => o.status === s).length;
  const maxBooked = input.maxListedBooked ?? 2000;
  const listedDocuments = (rows: DocumentCheck[]) => listDocuments(rows, maxBooked);
  let booked = 0;
  const listed = objects.filter((o) => o.status !== 'BOOKED' || ++booked <= maxBooked);
  return {
    from: period.from,
    to: period.to,
    asOf: input.asOf,
    timeZone: input.timeZone,
    passes: problems.length === 0,
    problems,
    counts: {
      objects: objects.length,
      BOOKED: count('BOOKED'),
      SKIPPED: count('SKIPPED'),
      MISSING: count('MISSING'),
      DUPLICATE: count('DUPLICATE'),
      AMOUNT_DIFFERS: count('AMOUNT_DIFFERS'),
      entries: periodEntries.length,
      orphans: orphanEntries.length,
    },
    objects: listed,
    bookedNotListed: objects.length - listed.length,
    orphanEntries,
    balances,
    receivables: listedDocuments(receivables),
    payables: listedDocuments(payables),
    documentCounts: { receivables: documentCount(receivables), payables: documentCount(payables) },
    targets,
    targetFigures,
    flow,
    checksToDeposit,
    documentsAtEnd: {
      ...atEnd,
      receivables: listedDocuments(atEnd.receivables),
      payables: listedDocuments(atEnd.payables),
      counts: { receivables: documentCount(atEnd.receivables), payables: documentCount(atEnd.payables) },
    },
    periodFigures: figuresOfPeriod,
    findings: negativeClearingFindings(balances),
    ...{ proves: [...certificateProves], cannotProve: [...certificateCannotProve] },
    notes: [
      ...asOfNotes(period.to, input.timeZone, input.asOf),
      'Bills and bill payments have no list endpoint: those the books name are checked; one booksync never heard of cannot be found.',
      'Reusable payment links are standing prices, not invoices: their receivable is not compared.',
      ...(targetFigures
        ? [
            `Each target's own figures are its reports as of ${period.to} (trial balance, aged receivables and payables), against the ledger's entries dated up to that day: every invoice's and bill's open amount, and the clearing accounts booksync alone writes; its other accounts also hold the business's own entries and are shown, not compared.`,
          ]
        : []),
    ],
  };
}
