import type { BookedEntry } from '../accounting/entry.js';
import { baseKey, entryKeys, keyPrefix } from '../accounting/entry-key.js';
import { earlierCheckBooking } from '../accounting/mapping/check-deposit.js';
import { businessDay } from '../accounting/mapping/dates.js';
import type { TargetFigures } from '../accounting/targets/target-figures.js';
import type { FetchedState } from '../service/fetched-state.js';
import type { Payment } from '../service/schemas/index.js';
import { type BalanceAsOf, balancesAsOf } from './balances-as-of.js';
import { compareWithTarget, ledgerFiguresAsOf, type TargetComparison } from './target-comparison.js';

// The completeness certificate of a period (design overview, "Period close"). Pure: the activity fetches the
// service's objects, the ledger's entries and the targets' index, and this decides. No I/O and no Node
// built-ins, so workflow code could use it too.

export interface ClosePeriod {
  from: string;
  to: string;
}

export const objectKinds = [
  'payment',
  'refund',
  'externalPayment',
  'debitMemo',
  'depositApplication',
  'checkDeposit',
  'disbursement',
  'bill',
  'billPayment',
] as const;
export type ObjectKind = (typeof objectKinds)[number];

export type ObjectStatus = 'BOOKED' | 'SKIPPED' | 'MISSING' | 'DUPLICATE' | 'AMOUNT_DIFFERS';

export interface CertifiedObject {
  kind: ObjectKind;
  id: string;
  /** The object's accounting date (YYYY-MM-DD), which puts it in the period. */
  date: string;
  amountCents: number;
  status: ObjectStatus;
  /** The entry the object maps to (its base key). */
  expectedKey: string | null;
  /** The live entry found (a version `key#n` when one was reversed before). */
  entryKey: string | null;
  /** SKIPPED: why the books hold nothing for it. */
  skipReason: string | null;
  /** MISSING / DUPLICATE / AMOUNT_DIFFERS: what is wrong. */
  detail: string | null;
}

export interface OrphanEntry {
  key: string;
  date: string;
  detail: string;
}

/** A balance checked as of the end of the period's last day (balances-as-of.ts). */
export type BalanceCheck = BalanceAsOf;

export interface DocumentCheck {
  /** The payment link (receivable) or bill (payable). */
  documentId: string;
  booksCents: number;
  serviceCents: number;
  ok: boolean;
}

export interface TargetEntryProblem {
  key: string;
  status: 'PENDING' | 'FAILED' | 'NOT_INDEXED';
  reason: string | null;
}

export interface TargetCheck {
  target: string;
  entries: number;
  pushed: number;
  skipped: number;
  notPushed: TargetEntryProblem[];
  ok: boolean;
}

/** The period's money on its way from the customers to the bank, from the period's live entries. */
export interface MoneyFlow {
  receivedCents: number;
  feesCents: number;
  refundsCents: number;
  disbursedCents: number;
  reachedBankCents: number;
}

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
  notes: string[];
}

export interface TargetIndexView {
  target: string;
  /** The index status of each entry key asked about; absent keys are not indexed yet. */
  statuses: ReadonlyMap<string, { status: string; reason: string | null }>;
}

/** A target's own figures as of the period's last day, or why they could not be read. */
export type TargetFiguresRead =
  | { target: string; figures: TargetFigures }
  | { target: string; error: string };

/** The service's objects and every entry of the ledger (FetchedState), and what the checks compare them with. */
export interface CloseInput extends FetchedState {
  period: ClosePeriod;
  asOf: string;
  /** BOOKS_TIME_ZONE: the service's times are dated as business days in it, as the entries are. */
  timeZone: string;
  /**
   * Open items as the ledger reports them now (as of the run: the service's documents have no history).
   * The balances are not passed: they are worked out from `entries`, as of the period's end.
   */
  receivables: readonly { documentId: string | null; openCents: number }[];
  payables: readonly { documentId: string | null; openCents: number }[];
  targets: readonly TargetIndexView[] | null;
  /**
   * Each reporting target's own figures as of the period's last day, or why they could not be read; null
   * when no target reports figures.
   */
  targetFigures?: readonly TargetFiguresRead[] | null;
  /** How many BOOKED objects to list at most (default 2000); the rest are only counted. */
  maxListedBooked?: number;
}

/**
 * Which dates each figure is compared by, and what the spec cannot date. Receivables and payables stay as of
 * the run: booksync also dates an invoice the day it first books it (a link has no creation date), so neither
 * side could be taken as of the period's end.
 */
function asOfNotes(day: string, timeZone: string, runAt: string): string[] {
  return [
    `Processor Clearing and Payouts In Transit are compared as of the end of ${day} (${timeZone}): the service's figures from its objects' own dates (payments' createdAt, refunds' refundDate, disbursements' createdAt and paidAt), the books' from the entries whose economic date (else date) is on or before ${day}, so an event of the period booked after its close still counts in it.`,
    "The spec cannot date a failure: a FAILED payment (an ACH return) or disbursement counts until the day the books reversed its entry (when booksync heard of it), and not at all when the books hold no reversal; a returned ACH refund credit leaves refunds[] without a trace (D19), so one made by the period's end and returned after it is missing from the service's figure.",
    `Receivables and payables are compared per document as of the run (${runAt}): the service's remainder now (requested less completed; a bill's amount less its sent payments) against the books' open item now. A payment link's requested amount has no history and no creation date at the service (a link lowered after the period shows its new amount), and a failed bill payment has no time: their state at the period's end cannot be told.`,
  ];
}

const inPeriod = (date: string, period: ClosePeriod) => date >= period.from && date <= period.to;

/** The keys of the entries a period's checks look at: every entry (and reversal) dated in the period. */
export function periodEntryKeys(entries: readonly BookedEntry[], period: ClosePeriod): string[] {
  return entries.filter((e) => inPeriod(e.date, period)).map((e) => e.key);
}

/** The sum of an entry's debit lines: its amount, whatever its accounts. */
function entryAmount(entry: BookedEntry): number {
  return entry.lines.filter((l) => l.amountCents > 0).reduce((sum, l) => sum + l.amountCents, 0);
}

/**
 * Which service object a booked entry belongs to, from its key's kind and its links. Every kind booksync
 * books is here; an unknown kind belongs to nothing (an orphan).
 */
function ownerOf(entry: BookedEntry): { kind: string; id: string | undefined } | null {
  const kind = keyPrefix(baseKey(entry.reverses ?? entry.key));
  const l = entry.links;
  switch (kind) {
    case 'payment':
    case 'sale':
    case 'payment-fee':
      return { kind: 'payment', id: l.paymentId };
    case 'refund':
    case 'refund-reopen':
      return { kind: 'refund', id: l.refundId };
    case 'external-payment':
      return { kind: 'externalPayment', id: l.externalPaymentId };
    case 'check-application':
      return { kind: 'depositApplication', id: l.externalPaymentId };
    case 'check-deposited':
    case 'check-cleared':
      return { kind: 'checkDeposit', id: l.checkDepositId };
    case 'debit-memo':
      return { kind: 'debitMemo', id: l.debitMemoId };
    case 'disbursement-pending':
    case 'disbursement-paid':
      return { kind: 'disbursement', id: l.disbursementId };
    case 'bill':
      return { kind: 'bill', id: l.billId };
    case 'bill-payment-sent':
    case 'bill-payment-paid':
      return { kind: 'billPayment', id: l.billPaymentId };
    case 'invoice':
    case 'invoice-adjustment':
      return { kind: 'paymentLink', id: l.paymentLinkId };
    default:
      return null;
  }
}

interface Expected {
  kind: ObjectKind;
  id: string;
  date: string;
  amountCents: number;
  key: string | null;
  skipReason: string | null;
}

/** Every service object dated in the period, with the entry it should map to or why it maps to none. */
function expectedObjects(input: CloseInput): Expected[] {
  const { period } = input;
  const out: Expected[] = [];
  const seen = new Set<string>();
  const add = (e: Expected) => {
    const id = `${e.kind}:${e.id}`;
    if (seen.has(id) || !inPeriod(e.date, period)) return;
    seen.add(id);
    out.push(e);
  };
  const payments = new Map<string, Payment>();
  for (const payment of input.payments) payments.set(payment.id, payment);
  for (const link of input.links) for (const payment of link.payments) payments.set(payment.id, payment);
  const reusable = new Set(input.links.filter((l) => l.reusable).map((l) => l.id));
  const settlesInvoice = (p: Payment) => p.paymentLinkId != null && !reusable.has(p.paymentLinkId);

  for (const payment of payments.values()) {
    const date = businessDay(payment.createdAt, input.timeZone, `payment ${payment.id} createdAt`);
    const cancelled = payment.refunds.some((r) => r.voided);
    const skip =
      payment.status === 'FAILED'
        ? 'FAILED: nothing stays booked (a return reverses what was booked)'
        : cancelled
          ? 'cancelled before settlement (D17): nothing stays booked'
          : payment.amountInCents === 0
            ? 'zero amount'
            : null;
    add({
      kind: 'payment',
      id: payment.id,
      date,
      amountCents: payment.amountInCents,
      // A payment that settles no invoice (a reusable link, no link) is a sale of its own.
      key: skip ? null : settlesInvoice(payment) ? entryKeys.payment(payment.id) : entryKeys.sale(payment.id),
      skipReason: skip,
    });
    for (const refund of payment.refunds) {
      const refundSkip = skip
        ? `its payment maps to nothing (${skip})`
        : refund.amountCents === 0
          ? 'zero amount'
          : null;
      add({
        kind: 'refund',
        id: refund.id,
        date: businessDay(refund.refundDate, input.timeZone, `refund ${refund.id} refundDate`),
        amountCents: refund.amountCents,
        key: refundSkip ? null : entryKeys.refund(refund.id),
        skipReason: refundSkip,
      });
    }
  }
  // A deposited check is booked whole on its own day (`check-deposited:`); a deposit the previous release
  // booked holds in it only what its applications did not (mapping/check-deposit.ts).
  // Applications of check deposits are external payments too (serviceBankingTransferId set): booked once,
  // by the check-deposit flow, as `check-application:`.
  for (const deposit of input.checkDeposits) {
    const returned = deposit.status === 'RETURNED' || deposit.status === 'REJECTED';
    const earlier = earlierCheckBooking(
      deposit.id,
      input.entries.filter((e) => e.links.checkDepositId === deposit.id),
    );
    const rest = deposit.amountCents - [...earlier.applications.values()].reduce((sum, c) => sum + c, 0);
    const depositSkip = returned
      ? `deposit ${deposit.status}: its entries are reversed`
      : rest === 0
        ? 'its applications booked by the previous release hold the whole check'
        : null;
    add({
      kind: 'checkDeposit',
      id: deposit.id,
      date: businessDay(deposit.createdAt, input.timeZone, `check deposit ${deposit.id} createdAt`),
      amountCents: rest,
      key: depositSkip ? null : entryKeys.checkDeposited(deposit.id),
      skipReason: depositSkip,
    });
    for (const application of deposit.applications) {
      if (application.voided) continue;
      const skip = returned ? `deposit ${deposit.status}: its applications are reversed` : null;
      add({
        kind: 'depositApplication',
        id: application.id,
        date: businessDay(application.paidAt, input.timeZone, `application ${application.id} paidAt`),
        amountCents: application.amountCents,
        key: skip ? null : entryKeys.checkApplication(application.id),
        skipReason: skip,
      });
    }
  }
  for (const link of input.links) {
    for (const ep of link.externalPayments) {
      if (ep.voided) continue;
      const application = ep.serviceBankingTransferId != null;
      add({
        kind: application ? 'depositApplication' : 'externalPayment',
        id: ep.id,
        date: businessDay(ep.paidAt, input.timeZone, `external payment ${ep.id} paidAt`),
        amountCents: ep.amountCents,
        key: application ? entryKeys.checkApplication(ep.id) : entryKeys.externalPayment(ep.id),
        skipReason: null,
      });
    }
    for (const memo of link.debitMemos) {
      if (memo.voided) continue;
      add({
        kind: 'debitMemo',
        id: memo.id,
        date: businessDay(memo.createdAt, input.timeZone, `debit memo ${memo.id} createdAt`),
        amountCents: memo.amountCents,
        key: memo.amountCents === 0 ? null : entryKeys.debitMemo(memo.id),
        skipReason: memo.amountCents === 0 ? 'zero amount' : null,
      });
    }
  }
  for (const disbursement of input.disbursements) {
    const date = disbursement.createdAt ?? disbursement.paidAt;
    if (!date) continue;
    const skip =
      disbursement.status === 'FAILED'
        ? 'FAILED: the bank refused it, the money is back at the service'
        : disbursement.amountInCents === 0
          ? 'zero amount'
          : null;
    add({
      kind: 'disbursement',
      id: disbursement.id,
      date,
      amountCents: disbursement.amountInCents,
      key: skip ? null : entryKeys.disbursementPending(disbursement.id),
      skipReason: skip,
    });
  }
  for (const bill of input.bills) {
    add({
      kind: 'bill',
      id: bill.id,
      date: businessDay(bill.createdAt, input.timeZone, `bill ${bill.id} createdAt`),
      amountCents: bill.amountCents,
      key: bill.amountCents === 0 ? null : entryKeys.bill(bill.id),
      skipReason: bill.amountCents === 0 ? 'zero amount' : null,
    });
  }
  for (const bp of input.billPayments) {
    const sentAt = bp.sentAt ?? (bp.status === 'SUCCEEDED' ? bp.completedAt : null);
    const skip =
      bp.status === 'FAILED'
        ? `FAILED${bp.failureReason ? ` (${bp.failureReason})` : ''}: the bill is owed again`
        : !sentAt
          ? 'not sent yet'
          : bp.amountCents === 0
            ? 'zero amount'
            : null;
    add({
      kind: 'billPayment',
      id: bp.id,
      date: businessDay(sentAt ?? bp.createdAt, input.timeZone, `bill payment ${bp.id} date`),
      amountCents: bp.amountCents,
      key: skip ? null : entryKeys.billPaymentSent(bp.id),
      skipReason: skip,
    });
  }
  return out.sort(
    (a, b) => a.date.localeCompare(b.date) || a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id),
  );
}

const emptyFlow = (): MoneyFlow => ({
  receivedCents: 0,
  feesCents: 0,
  refundsCents: 0,
  disbursedCents: 0,
  reachedBankCents: 0,
});

/** The certificate: every check, every problem named. */
export function closeCertificate(input: CloseInput): CloseCertificate {
  const { period } = input;
  const problems: string[] = [];

  // Live entries by base key (reversed versions and reversals are history, not the books' current view).
  const liveByBase = new Map<string, BookedEntry[]>();
  for (const entry of input.entries) {
    if (entry.reverses !== null || entry.reversedBy !== null) continue;
    const base = baseKey(entry.key);
    liveByBase.set(base, [...(liveByBase.get(base) ?? []), entry]);
  }

  const objects: CertifiedObject[] = expectedObjects(input).map((e) => {
    const base: CertifiedObject = {
      kind: e.kind,
      id: e.id,
      date: e.date,
      amountCents: e.amountCents,
      status: 'BOOKED',
      expectedKey: e.key,
      entryKey: null,
      skipReason: null,
      detail: null,
    };
    const live = e.key ? (liveByBase.get(e.key) ?? []) : [];
    if (live.length === 0 && input.opensOn && e.date < input.opensOn) {
      // Settled before the books opened (a backfill): its money in flight is in the opening entry.
      return { ...base, status: 'SKIPPED', skipReason: `before the books opened on ${input.opensOn}` };
    }
    // An object booksync books nothing for (its reason given): no key to find an entry by.
    if (e.key === null) return { ...base, status: 'SKIPPED', skipReason: e.skipReason };
    if (live.length === 0) {
      return { ...base, status: 'MISSING', detail: `no live entry ${e.key}` };
    }
    if (live.length > 1) {
      return {
        ...base,
        status: 'DUPLICATE',
        entryKey: live.map((x) => x.key).join(' '),
        detail: `${live.length} live versions of ${e.key}`,
      };
    }
    const entry = live[0]!;
    const booked = entryAmount(entry);
    if (booked !== e.amountCents) {
      return {
        ...base,
        status: 'AMOUNT_DIFFERS',
        entryKey: entry.key,
        detail: `booked ${booked} cents, the service says ${e.amountCents}`,
      };
    }
    return { ...base, entryKey: entry.key };
  });
  for (const o of objects) {
    if (o.status === 'BOOKED' || o.status === 'SKIPPED') continue;
    problems.push(`${o.kind} ${o.id} (${o.date}): ${o.status}: ${o.detail}`);
  }

  // Every live entry of the period belongs to an object the service lists today.
  const known = new Set<string>();
  const note = (kind: string, id: string) => known.add(`${kind}:${id}`);
  for (const link of input.links) {
    note('paymentLink', link.id);
    for (const ep of link.externalPayments)
      note(ep.serviceBankingTransferId != null ? 'depositApplication' : 'externalPayment', ep.id);
    for (const memo of link.debitMemos) note('debitMemo', memo.id);
  }
  const allPayments = [...input.payments, ...input.links.flatMap((l) => l.payments)];
  for (const payment of allPayments) {
    note('payment', payment.id);
    for (const refund of payment.refunds) note('refund', refund.id);
  }
  for (const deposit of input.checkDeposits) {
    note('checkDeposit', deposit.id);
    for (const a of deposit.applications) note('depositApplication', a.id);
  }
  for (const d of input.disbursements) note('disbursement', d.id);
  for (const b of input.bills) note('bill', b.id);
  for (const bp of input.billPayments) note('billPayment', bp.id);

  const periodEntries = input.entries.filter((e) => inPeriod(e.date, period));
  const orphanEntries: OrphanEntry[] = [];
  const flow = emptyFlow();
  for (const entry of periodEntries) {
    if (entry.reverses !== null || entry.reversedBy !== null) continue;
    const owner = ownerOf(entry);
    // The opening entry belongs to no one object: it carries what every object settled before left in flight.
    if (keyPrefix(entry.key) === 'opening-balances') continue;
    if (!owner?.id) {
      orphanEntries.push({
        key: entry.key,
        date: entry.date,
        detail: 'no service object named by the entry',
      });
    } else if (!known.has(`${owner.kind}:${owner.id}`)) {
      orphanEntries.push({
        key: entry.key,
        date: entry.date,
        detail: `${owner.kind} ${owner.id} is not listed by the service`,
      });
    }
    const kind = keyPrefix(baseKey(entry.key));
    const amount = entryAmount(entry);
    if (kind === 'payment' || kind === 'sale') flow.receivedCents += amount;
    else if (kind === 'payment-fee') flow.feesCents += amount;
    else if (kind === 'refund') flow.refundsCents += amount;
    else if (kind === 'disbursement-pending') flow.disbursedCents += amount;
    else if (kind === 'disbursement-paid') flow.reachedBankCents += amount;
  }
  for (const o of orphanEntries) problems.push(`entry ${o.key} (${o.date}): ${o.detail}`);

  // Balances as of the end of the period's last day: the service's figures from its objects' own dates, the
  // books' from the entries of that day or before (economic dates): both sides dated alike.
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

  const documentChecks = (
    service: Map<string, number>,
    books: readonly { documentId: string | null; openCents: number }[],
    ignored: ReadonlySet<string> = new Set(),
  ): DocumentCheck[] => {
    const booked = new Map<string, number>();
    for (const item of books) {
      if (item.documentId === null || ignored.has(item.documentId)) continue;
      booked.set(item.documentId, (booked.get(item.documentId) ?? 0) + item.openCents);
    }
    const ids = new Set([
      ...service.keys(),
      ...[...booked.entries()].filter(([, v]) => v !== 0).map(([k]) => k),
    ]);
    return [...ids].sort().map((documentId) => {
      const booksCents = booked.get(documentId) ?? 0;
      const serviceCents = service.get(documentId) ?? 0;
      return { documentId, booksCents, serviceCents, ok: booksCents === serviceCents };
    });
  };
  const remainders = new Map<string, number>();
  // A reusable link is a standing price, not an invoice (nothing is invoiced): it has no remainder to compare.
  const reusable = new Set<string>();
  for (const link of input.links) {
    if (link.reusable) reusable.add(link.id);
    else remainders.set(link.id, link.requestedAmountCents - link.completedAmountCents);
  }
  const receivables = documentChecks(remainders, input.receivables, reusable);
  for (const r of receivables) {
    if (!r.ok)
      problems.push(
        `receivable of ${r.documentId}: books ${r.booksCents}, service remainder ${r.serviceCents}`,
      );
  }
  const owed = new Map<string, number>();
  for (const bill of input.bills) owed.set(bill.id, bill.amountCents);
  for (const bp of input.billPayments) {
    const sent = bp.sentAt ?? (bp.status === 'SUCCEEDED' ? bp.completedAt : null);
    if (bp.status === 'FAILED' || !sent || !owed.has(bp.billId)) continue;
    owed.set(bp.billId, owed.get(bp.billId)! - bp.amountCents);
  }
  const payables = documentChecks(owed, input.payables);
  for (const p of payables) {
    if (!p.ok)
      problems.push(`payable of bill ${p.documentId}: books ${p.booksCents}, still owed ${p.serviceCents}`);
  }

  let targets: TargetCheck[] | null = null;
  if (input.targets !== null) {
    targets = input.targets.map((view) => {
      const check: TargetCheck = {
        target: view.target,
        entries: periodEntries.length,
        pushed: 0,
        skipped: 0,
        notPushed: [],
        ok: true,
      };
      for (const entry of periodEntries) {
        const got = view.statuses.get(entry.key);
        if (got?.status === 'PUSHED') check.pushed++;
        else if (got?.status === 'SKIPPED') check.skipped++;
        else
          check.notPushed.push({
            key: entry.key,
            status: got ? (got.status as 'PENDING' | 'FAILED') : 'NOT_INDEXED',
            reason: got?.reason ?? null,
          });
      }
      check.ok = check.notPushed.length === 0;
      if (!check.ok) problems.push(`target ${view.target}: ${check.notPushed.length} entries not pushed`);
      return check;
    });
  }

  // The third side: the ledger as of the period's last day against each target's own report of that day.
  let targetFigures: TargetComparison[] | null = null;
  if (input.targetFigures && input.targetFigures.length > 0) {
    const ledgerAsOf = ledgerFiguresAsOf(input.entries, period.to);
    targetFigures = [];
    for (const read of input.targetFigures) {
      if ('error' in read) {
        problems.push(
          `target ${read.target}: its figures as of ${period.to} could not be read: ${read.error}`,
        );
        continue;
      }
      const comparison = compareWithTarget(read.target, ledgerAsOf, read.figures);
      problems.push(...comparison.problems);
      targetFigures.push(comparison);
    }
  }

  const count = (s: ObjectStatus) => objects.filter((o) => o.status === s).length;
  const maxBooked = input.maxListedBooked ?? 2000;
  const documentCount = (rows: DocumentCheck[]) => {
    const differ = rows.filter((r) => !r.ok).length;
    return { agree: rows.length - differ, differ };
  };
  const listedDocuments = (rows: DocumentCheck[]) => {
    let agreeing = 0;
    return rows.filter((r) => !r.ok || ++agreeing <= maxBooked);
  };
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
