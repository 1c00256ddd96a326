import type { BookedEntry, EntryLinks } from '../ledger/entry.js';
import { baseKey, keyPrefix } from '../ledger/entry-key.js';
import type { CloseInput, TargetIndexView } from './close-input.js';
import type { Expected, ObjectKind } from './expected-objects.js';
import { compareWithTarget, ledgerFiguresAsOf, type TargetComparison } from './target-comparison.js';

// The close certificate's checks, one function each: the service's objects against the live entries, the
// period's entries against the objects the service lists (orphans) and the money they moved, each document's
// open amount, each target's index, and each target's own figures. Each returns what it found; the
// certificate (certificate.ts) words the problems.

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

/** The sum of an entry's debit lines: its amount, whatever its accounts. */
export function entryAmount(entry: BookedEntry): number {
  return entry.lines.filter((l) => l.amountCents > 0).reduce((sum, l) => sum + l.amountCents, 0);
}

/** Live entries by base key (reversed versions and reversals are history, not the books' current view). */
function liveByBaseKey(entries: readonly BookedEntry[]): Map<string, BookedEntry[]> {
  const live = new Map<string, BookedEntry[]>();
  for (const entry of entries) {
    if (entry.reverses !== null || entry.reversedBy !== null) continue;
    const base = baseKey(entry.key);
    live.set(base, [...(live.get(base) ?? []), entry]);
  }
  return live;
}

/** Each expected object BOOKED, SKIPPED (with why), MISSING, DUPLICATE or AMOUNT_DIFFERS. */
export function certifyObjects(
  expected: readonly Expected[],
  entries: readonly BookedEntry[],
  opensOn: string | null | undefined,
): CertifiedObject[] {
  const liveByBase = liveByBaseKey(entries);
  return expected.map((e) => {
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
    if (live.length === 0 && opensOn && e.date < opensOn) {
      // Settled before the books opened (a backfill): its money in flight is in the opening entry.
      return { ...base, status: 'SKIPPED', skipReason: `before the books opened on ${opensOn}` };
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
}

/** `kind:id` of every object the service lists today (its links' and payments' own objects included). */
function listedObjects(input: CloseInput): Set<string> {
  const known = new Set<string>();
  const note = (kind: string, id: string) => known.add(`${kind}:${id}`);
  for (const link of input.links) {
    note('paymentLink', link.id);
    for (const ep of link.externalPayments)
      note(ep.serviceBankingTransferId != null ? 'depositApplication' : 'externalPayment', ep.id);
    for (const memo of link.debitMemos) note('debitMemo', memo.id);
  }
  for (const payment of [...input.payments, ...input.links.flatMap((l) => l.payments)]) {
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
  return known;
}

/**
 * Every live entry of the period belongs to an object the service lists today (else it is an orphan), and
 * the money the period's live entries moved, by kind.
 */
export function orphansAndFlow(
  input: CloseInput,
  periodEntries: readonly BookedEntry[],
): { orphanEntries: OrphanEntry[]; flow: MoneyFlow } {
  const known = listedObjects(input);
  const orphanEntries: OrphanEntry[] = [];
  const flow: MoneyFlow = {
    receivedCents: 0,
    feesCents: 0,
    refundsCents: 0,
    disbursedCents: 0,
    reachedBankCents: 0,
  };
  for (const entry of periodEntries) {
    if (entry.reverses !== null || entry.reversedBy !== null) continue;
    const owner = ownerOf(entry);
    // The opening entry belongs to no one object: it carries what every object settled before left in flight.
    if (keyPrefix(entry.key) === 'opening-balances') continue;
    // A deposit slip is the business's own record (checks it banked), not a service object: its payments are
    // the external payments' own entries, checked as those.
    if (keyPrefix(entry.key) === 'deposit-slip') continue;
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
    // Received gross, as the processor reports it: what the payers were charged, the surcharge included;
    // the fees are the whole card fee (the absorbed part and the surcharge's) and any other fee.
    if (kind === 'payment' || kind === 'sale' || kind === 'payment-surcharge') flow.receivedCents += amount;
    else if (kind === 'payment-fee' || kind === 'surcharge-fee' || kind === 'payment-other-fee')
      flow.feesCents += amount;
    else if (kind === 'refund') flow.refundsCents += amount;
    else if (kind === 'disbursement-pending') flow.disbursedCents += amount;
    else if (kind === 'disbursement-paid') flow.reachedBankCents += amount;
  }
  return { orphanEntries, flow };
}

/** Each kind of entry key booksync books: the kind of service object it belongs to, and the link naming it. */
const owners: Readonly<Record<string, readonly [kind: string, link: keyof EntryLinks]>> = {
  payment: ['payment', 'paymentId'],
  sale: ['payment', 'paymentId'],
  'payment-fee': ['payment', 'paymentId'],
  'payment-surcharge': ['payment', 'paymentId'],
  'surcharge-fee': ['payment', 'paymentId'],
  'payment-other-fee': ['payment', 'paymentId'],
  refund: ['refund', 'refundId'],
  'refund-reopen': ['refund', 'refundId'],
  'external-payment': ['externalPayment', 'externalPaymentId'],
  'external-sale': ['externalPayment', 'externalPaymentId'],
  'check-application': ['depositApplication', 'externalPaymentId'],
  'check-deposited': ['checkDeposit', 'checkDepositId'],
  'check-cleared': ['checkDeposit', 'checkDepositId'],
  'debit-memo': ['debitMemo', 'debitMemoId'],
  'disbursement-pending': ['disbursement', 'disbursementId'],
  'disbursement-paid': ['disbursement', 'disbursementId'],
  bill: ['bill', 'billId'],
  'bill-payment-sent': ['billPayment', 'billPaymentId'],
  'bill-payment-paid': ['billPayment', 'billPaymentId'],
  invoice: ['paymentLink', 'paymentLinkId'],
  'invoice-adjustment': ['paymentLink', 'paymentLinkId'],
};

/**
 * Which service object a booked entry belongs to, from its key's kind and its links. An unknown kind belongs
 * to nothing (an orphan).
 */
function ownerOf(entry: BookedEntry): { kind: string; id: string | undefined } | null {
  const kind = keyPrefix(baseKey(entry.reverses ?? entry.key));
  const owner = Object.hasOwn(owners, kind) ? owners[kind] : undefined;
  return owner ? { kind: owner[0], id: entry.links[owner[1]] } : null;
}

/** Each document's open amount in the books against the service's, per document id. */
function documentChecks(
  service: Map<string, number>,
  books: readonly { documentId: string | null; openCents: number }[],
  ignored: ReadonlySet<string> = new Set(),
): DocumentCheck[] {
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
}

/** Each payment link's receivable against its remainder at the service (requested less completed). */
export function receivableChecks(input: CloseInput): DocumentCheck[] {
  const remainders = new Map<string, number>();
  // A reusable link is a standing price, not an invoice (nothing is invoiced): it has no remainder to compare.
  const reusable = new Set<string>();
  for (const link of input.links) {
    if (link.reusable) reusable.add(link.id);
    else remainders.set(link.id, link.requestedAmountCents - link.completedAmountCents);
  }
  return documentChecks(remainders, input.receivables, reusable);
}

/** Each bill's payable against what is still owed (its amount less its sent, not failed, payments). */
export function payableChecks(input: CloseInput): DocumentCheck[] {
  const owed = new Map<string, number>();
  for (const bill of input.bills) owed.set(bill.id, bill.amountCents);
  for (const bp of input.billPayments) {
    const sent = bp.sentAt ?? (bp.status === 'SUCCEEDED' ? bp.completedAt : null);
    if (bp.status === 'FAILED' || !sent || !owed.has(bp.billId)) continue;
    owed.set(bp.billId, owed.get(bp.billId)! - bp.amountCents);
  }
  return documentChecks(owed, input.payables);
}

/** Each target's index over the period's entries: pushed, skipped, or not (with its status and reason). */
export function targetChecks(
  views: readonly TargetIndexView[],
  periodEntries: readonly BookedEntry[],
): TargetCheck[] {
  return views.map((view) => {
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
    return check;
  });
}

/**
 * The third side: the ledger as of the period's last day against each target's own report of that day.
 * Null when no target reports figures; a target whose figures could not be read is a problem of its own.
 */
export function targetFigureChecks(input: CloseInput): {
  comparisons: TargetComparison[] | null;
  problems: string[];
} {
  if (!input.targetFigures || input.targetFigures.length === 0) return { comparisons: null, problems: [] };
  const ledgerAsOf = ledgerFiguresAsOf(input.entries, input.period.to);
  const comparisons: TargetComparison[] = [];
  const problems: string[] = [];
  for (const read of input.targetFigures) {
    if ('error' in read) {
      problems.push(
        `target ${read.target}: its figures as of ${input.period.to} could not be read: ${read.error}`,
      );
      continue;
    }
    const comparison = compareWithTarget(read.target, ledgerAsOf, read.figures);
    problems.push(...comparison.problems);
    comparisons.push(comparison);
  }
  return { comparisons, problems };
}
