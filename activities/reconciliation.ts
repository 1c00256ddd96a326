import { ApplicationFailure } from '@temporalio/common';
import { baseKey, entryKeys, keyPrefix } from '../src/accounting/entry-key.js';
import {
  disbursementEntries,
  disbursementEntryKinds,
  type PaymentSettles,
  paymentLinkEntries,
  paymentLinkEntryKinds,
  paymentSettles,
} from '../src/accounting/mapping/index.js';
import { type SyncResult, syncEntries } from '../src/accounting/sync.js';
import type { Disbursement, Payment, PaymentLink } from '../src/service/schemas/index.js';
import { syncCheckDepositBooks } from './check-deposit.js';
import { type ActivityDependencies, accountingDate, activityLogger, linkBookingOptions } from './context.js';
import { asActivityFailure, translatingFailures } from './failures.js';
import { syncInvoiceBooks } from './invoice-books.js';
import { syncPaymentBooks } from './payment.js';
import type {
  ReconciledObject,
  ReconcilePageInput,
  ReconcilePageResult,
  ReconciliationActivities,
  ReconciliationScope,
} from './reconciliation-contract.js';

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

/** Link entries (live external payments and debit memos): the payment-link flow's mapping and kinds. */
export async function syncPaymentLinkRecords(
  deps: ActivityDependencies,
  link: PaymentLink,
  reason: string,
): Promise<SyncResult> {
  const invoice = await syncInvoiceBooks(deps, link);
  const records = await syncEntries(
    deps.ledger,
    paymentLinkEntries(link, linkBookingOptions(deps)),
    { paymentLinkId: link.id },
    { kinds: paymentLinkEntryKinds, date: accountingDate(deps), reason: `${reason}: not on link ${link.id}` },
  );
  return { ...records, posted: [...invoice.posted, ...records.posted] };
}

export async function syncDisbursementBooks(
  deps: ActivityDependencies,
  disbursement: Disbursement,
  reason: string,
): Promise<SyncResult> {
  return syncEntries(
    deps.ledger,
    disbursementEntries(disbursement),
    { disbursementId: disbursement.id },
    {
      kinds: disbursementEntryKinds,
      date: accountingDate(deps),
      reason: `${reason}: disbursement ${disbursement.id} is ${disbursement.status}`,
    },
  );
}

export function createReconciliationActivities(deps: ActivityDependencies): ReconciliationActivities {
  return {
    /**
     * One page of the scope: lists it at the service and makes the books hold what each object's state
     * says, through the same idempotent syncs the event-driven workflows use. What it had to write is drift
     * (a dropped webhook, a record made in the dashboard...). A failure retrying cannot fix is reported per
     * object and the page goes on; anything transient fails the page, which is retried whole (idempotent).
     */
    async reconcilePage({
      scope,
      pageToken,
      pageSize,
      runId,
    }: ReconcilePageInput): Promise<ReconcilePageResult> {
      return translatingFailures(async () => {
        const { phase, page } = parseToken(scope, pageToken);
        const log = activityLogger(deps, { reconciliationRunId: runId, scope, phase, page });
        const result: ReconcilePageResult = {
          nextPageToken: null,
          phase,
          examined: { paymentLink: 0, payment: 0, disbursement: 0, checkDeposit: 0 },
          drift: [],
          problems: [],
        };
        const reason = 'reconciliation';

        const check = async (object: ReconciledObject, id: string, sync: () => Promise<SyncResult>) => {
          result.examined[object]++;
          try {
            const synced = await sync();
            if (synced.posted.length + synced.reversed.length === 0) return;
            const drift = {
              object,
              id,
              posted: synced.posted.map(entryKind),
              reversed: synced.reversed.map(entryKind),
            };
            result.drift.push(drift);
            log.warn(
              { object, serviceObjectId: id, posted: synced.posted, reversed: synced.reversed },
              'drift repaired',
            );
          } catch (error) {
            const failure = asActivityFailure(error);
            if (!(failure instanceof ApplicationFailure) || !failure.nonRetryable) throw error;
            result.problems.push({ object, id, error: `${failure.type}: ${failure.message}` });
            log.error({ object, serviceObjectId: id, err: error }, 'cannot reconcile object');
          }
        };
        // Whether a link's payments pay its invoice (a reusable link books none: its payments are sales),
        // from the link itself: the listed links, else fetched once per page.
        const settlesByLink = new Map<string, PaymentSettles>();
        const settlesOf = async (payment: Payment): Promise<PaymentSettles> => {
          if (!payment.paymentLinkId) return 'sale';
          const known = settlesByLink.get(payment.paymentLinkId);
          if (known) return known;
          const settles = paymentSettles(await deps.service.getPaymentLink(payment.paymentLinkId));
          settlesByLink.set(payment.paymentLinkId, settles);
          return settles;
        };
        const checkPayment = (payment: Payment) =>
          check('payment', payment.id, async () => {
            const synced = await syncPaymentBooks(deps, payment, await settlesOf(payment));
            const received = [entryKeys.payment(payment.id), entryKeys.sale(payment.id)];
            if (synced.posted.some((k) => received.includes(k)) && inReturnWindow(payment, deps)) {
              result.achWindowsToWatch = [...(result.achWindowsToWatch ?? []), payment.id];
            }
            return synced;
          });

        if (phase === 'links') {
          let links: PaymentLink[];
          let more = false;
          if (scope.kind === 'link') {
            links = [await deps.service.getPaymentLink(scope.paymentLinkId)];
          } else {
            const list = await deps.service.listPaymentLinks({
              page,
              pageSize,
              ...(scope.kind === 'customer' ? { customerId: scope.customerId } : {}),
            });
            links = list.paymentLinks;
            more = links.length > 0 && (page - 1) * pageSize + links.length < list.totalResults;
          }
          for (const link of links) {
            settlesByLink.set(link.id, paymentSettles(link));
            await check('paymentLink', link.id, () => syncPaymentLinkRecords(deps, link, reason));
            // Scoped to links: their payments too ('all' walks every payment in its own phase).
            if (scope.kind !== 'all') for (const payment of link.payments) await checkPayment(payment);
          }
          result.nextPageToken = nextToken(scope, phase, page, more);
        } else if (phase === 'payments') {
          const list = await deps.service.listPayments({
            page,
            pageSize,
            ...(scope.kind === 'paymentsSince' ? { since: scope.date } : {}),
          });
          for (const payment of list.payments) await checkPayment(payment);
          const more =
            list.payments.length > 0 && (page - 1) * pageSize + list.payments.length < list.totalResults;
          result.nextPageToken = nextToken(scope, phase, page, more);
        } else if (phase === 'checkDeposits') {
          // A deposit's verdict has no webhook, and a cleared check can still come back (E2): the books
          // follow each deposit's current state, for the applications booksync made (links from the books).
          const list = await deps.service.listCheckDeposits({ page, pageSize });
          for (const deposit of list.checkDeposits) {
            await check('checkDeposit', deposit.id, async () => {
              const { result: synced } = await syncCheckDepositBooks(deps, deposit, {}, reason);
              return synced;
            });
          }
          const more =
            list.checkDeposits.length > 0 &&
            (page - 1) * pageSize + list.checkDeposits.length < list.totalResults;
          result.nextPageToken = nextToken(scope, phase, page, more);
        } else {
          const list = await deps.service.listDisbursements({ page, pageSize });
          for (const disbursement of list.disbursements) {
            if (
              scope.kind === 'paymentsSince' &&
              disbursement.createdAt !== null &&
              disbursement.createdAt < scope.date
            ) {
              continue;
            }
            await check('disbursement', disbursement.id, () =>
              syncDisbursementBooks(deps, disbursement, reason),
            );
          }
          const more =
            list.disbursements.length > 0 &&
            (page - 1) * pageSize + list.disbursements.length < list.totalResults;
          result.nextPageToken = nextToken(scope, phase, page, more);
        }
        log.info(
          { examined: result.examined, drift: result.drift.length, problems: result.problems.length },
          'reconciliation page done',
        );
        return result;
      });
    },
  };
}
