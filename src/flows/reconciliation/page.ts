import type { Payment, PaymentLink } from '@booksync/service-contract/schemas/index';
import { ApplicationFailure } from '@temporalio/common';
import { baseKey, entryKeys, keyPrefix } from '../../ledger/entry-key.js';
import { type PaymentSettles, paymentSettles } from '../../ledger/mapping/index.js';
import type { SyncResult } from '../../ledger/sync.js';
import type { Logger } from '../../logging/logger.js';
import { syncCheckDepositBooks } from '../check-deposit/activities.js';
import { type ActivityDependencies, accountingDate, activityLogger } from '../in-activity/context.js';
import { asActivityFailure } from '../in-activity/failures.js';
import { syncDisbursementBooks, syncPaymentLinkRecords } from '../in-activity/link-and-payout-books.js';
import { syncPaymentBooks } from '../payment/activities.js';
import type {
  ReconciledObject,
  ReconcilePageInput,
  ReconcilePageResult,
  ReconciliationScope,
} from './activities-contract.js';

// One page of a reconciliation's scope: lists it at the service and makes the books hold what each object's
// state says, through the same idempotent syncs the event-driven workflows use. What it had to write is drift
// (a dropped webhook, a record made in the dashboard...). A failure retrying cannot fix is reported per
// object and the page goes on; anything transient fails the page, which is retried whole (idempotent).

const reason = 'reconciliation';

type Phase = 'links' | 'payments' | 'disbursements' | 'checkDeposits';

/** The phases each scope walks, in order. Link and customer scopes sync each link's payments with it. */
function phasesOf(scope: ReconciliationScope): Phase[] {
  switch (scope.kind) {
    case 'all':
      return ['links', 'payments', 'disbursements', 'checkDeposits'];
    case 'link':
    case 'customer':
      return ['links'];
    case 'paymentsSince':
      return ['payments', 'disbursements'];
  }
}

function parseToken(scope: ReconciliationScope, token: string | null): { phase: Phase; page: number } {
  const phases = phasesOf(scope);
  if (token === null) return { phase: phases[0]!, page: 1 };
  const [phase, page] = token.split(':');
  if (!phases.includes(phase as Phase) || !Number.isSafeInteger(Number(page)) || Number(page) < 1) {
    throw ApplicationFailure.nonRetryable(`bad reconciliation page token ${token}`, 'BadPageToken');
  }
  return { phase: phase as Phase, page: Number(page) };
}

/** The token after this page: the next page of the phase, else the first page of the next phase, else null. */
function nextToken(scope: ReconciliationScope, phase: Phase, page: number, more: boolean): string | null {
  if (more) return `${phase}:${page + 1}`;
  const phases = phasesOf(scope);
  const next = phases[phases.indexOf(phase) + 1];
  return next ? `${next}:1` : null;
}

const entryKind = (key: string): string => keyPrefix(baseKey(key));

const achReturnWindowMs = 60 * 24 * 60 * 60 * 1000;

/** An ACH payment the bank can still return (6.5: up to 60 days after payment.made). */
function inReturnWindow(payment: Payment, deps: ActivityDependencies): boolean {
  if (payment.paymentMethod?.type !== 'ACH' || payment.status === 'FAILED') return false;
  const now = Date.parse(`${accountingDate(deps)}T23:59:59Z`);
  return now - payment.createdAt < achReturnWindowMs;
}

export class ReconcilePage {
  readonly #deps: ActivityDependencies;
  readonly #scope: ReconciliationScope;
  readonly #phase: Phase;
  readonly #page: number;
  readonly #pageSize: number;
  readonly #log: Logger;
  readonly #result: ReconcilePageResult;
  /**
   * Whether a link's payments pay its invoice (a reusable link books none: its payments are sales), from the
   * link itself: the listed links, else fetched once per page.
   */
  readonly #settlesByLink = new Map<string, PaymentSettles>();

  constructor(deps: ActivityDependencies, { scope, pageToken, pageSize, runId }: ReconcilePageInput) {
    const { phase, page } = parseToken(scope, pageToken);
    this.#deps = deps;
    this.#scope = scope;
    this.#phase = phase;
    this.#page = page;
    this.#pageSize = pageSize;
    this.#log = activityLogger(deps, { reconciliationRunId: runId, scope, phase, page });
    this.#result = {
      nextPageToken: null,
      phase,
      examined: { paymentLink: 0, payment: 0, disbursement: 0, checkDeposit: 0 },
      drift: [],
      problems: [],
    };
  }

  async run(): Promise<ReconcilePageResult> {
    const more =
      this.#phase === 'links'
        ? await this.#links()
        : this.#phase === 'payments'
          ? await this.#payments()
          : this.#phase === 'checkDeposits'
            ? await this.#checkDeposits()
            : await this.#disbursements();
    this.#result.nextPageToken = nextToken(this.#scope, this.#phase, this.#page, more);
    const { examined, drift, problems } = this.#result;
    this.#log.info({ examined, drift: drift.length, problems: problems.length }, 'reconciliation page done');
    return this.#result;
  }

  /** Whether more pages of the listing follow this one. */
  #more(listed: number, totalResults: number): boolean {
    return listed > 0 && (this.#page - 1) * this.#pageSize + listed < totalResults;
  }

  async #links(): Promise<boolean> {
    const scope = this.#scope;
    let links: PaymentLink[];
    let more = false;
    if (scope.kind === 'link') {
      links = [await this.#deps.service.getPaymentLink(scope.paymentLinkId)];
    } else {
      const list = await this.#deps.service.listPaymentLinks({
        page: this.#page,
        pageSize: this.#pageSize,
        ...(scope.kind === 'customer' ? { customerId: scope.customerId } : {}),
      });
      links = list.paymentLinks;
      more = this.#more(links.length, list.totalResults);
    }
    for (const link of links) {
      this.#settlesByLink.set(link.id, paymentSettles(link));
      await this.#check('paymentLink', link.id, () => syncPaymentLinkRecords(this.#deps, link, reason));
      // Scoped to links: their payments too ('all' walks every payment in its own phase).
      if (scope.kind !== 'all') for (const payment of link.payments) await this.#checkPayment(payment);
    }
    return more;
  }

  async #payments(): Promise<boolean> {
    const scope = this.#scope;
    const list = await this.#deps.service.listPayments({
      page: this.#page,
      pageSize: this.#pageSize,
      ...(scope.kind === 'paymentsSince' ? { since: scope.date } : {}),
    });
    for (const payment of list.payments) await this.#checkPayment(payment);
    return this.#more(list.payments.length, list.totalResults);
  }

  /**
   * A deposit's verdict has no webhook, and a cleared check can still come back (E2): the books follow each
   * deposit's current state, for the applications booksync made (links from the books).
   */
  async #checkDeposits(): Promise<boolean> {
    const list = await this.#deps.service.listCheckDeposits({ page: this.#page, pageSize: this.#pageSize });
    for (const deposit of list.checkDeposits) {
      await this.#check('checkDeposit', deposit.id, async () => {
        const { result: synced } = await syncCheckDepositBooks(this.#deps, deposit, {}, reason);
        return synced;
      });
    }
    return this.#more(list.checkDeposits.length, list.totalResults);
  }

  async #disbursements(): Promise<boolean> {
    const scope = this.#scope;
    const list = await this.#deps.service.listDisbursements({ page: this.#page, pageSize: this.#pageSize });
    for (const disbursement of list.disbursements) {
      if (
        scope.kind === 'paymentsSince' &&
        disbursement.createdAt !== null &&
        disbursement.createdAt < scope.date
      ) {
        continue;
      }
      await this.#check('disbursement', disbursement.id, () =>
        syncDisbursementBooks(this.#deps, disbursement, reason),
      );
    }
    return this.#more(list.disbursements.length, list.totalResults);
  }

  async #settlesOf(payment: Payment): Promise<PaymentSettles> {
    if (!payment.paymentLinkId) return 'sale';
    const known = this.#settlesByLink.get(payment.paymentLinkId);
    if (known) return known;
    const settles = paymentSettles(await this.#deps.service.getPaymentLink(payment.paymentLinkId));
    this.#settlesByLink.set(payment.paymentLinkId, settles);
    return settles;
  }

  #checkPayment(payment: Payment): Promise<void> {
    return this.#check('payment', payment.id, async () => {
      const synced = await syncPaymentBooks(this.#deps, payment, await this.#settlesOf(payment));
      const received = [entryKeys.payment(payment.id), entryKeys.sale(payment.id)];
      if (synced.posted.some((k) => received.includes(k)) && inReturnWindow(payment, this.#deps)) {
        this.#result.achWindowsToWatch = [...(this.#result.achWindowsToWatch ?? []), payment.id];
      }
      return synced;
    });
  }

  /** Syncs one object; what it wrote is drift, a failure retrying cannot fix the object's problem. */
  async #check(object: ReconciledObject, id: string, sync: () => Promise<SyncResult>): Promise<void> {
    this.#result.examined[object]++;
    try {
      const synced = await sync();
      if (synced.posted.length + synced.reversed.length === 0) return;
      const drift = {
        object,
        id,
        posted: synced.posted.map(entryKind),
        reversed: synced.reversed.map(entryKind),
      };
      this.#result.drift.push(drift);
      this.#log.warn(
        { object, serviceObjectId: id, posted: synced.posted, reversed: synced.reversed },
        'drift repaired',
      );
    } catch (error) {
      const failure = asActivityFailure(error);
      if (!(failure instanceof ApplicationFailure) || !failure.nonRetryable) throw error;
      this.#result.problems.push({ object, id, error: `${failure.type}: ${failure.message}` });
      this.#log.error({ object, serviceObjectId: id, err: error }, 'cannot reconcile object');
    }
  }
}
