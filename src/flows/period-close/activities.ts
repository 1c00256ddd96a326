import { setTimeout as sleep } from 'node:timers/promises';
import { closeCertificate, periodEntryKeys } from '../../close/certificate.js';
import { certificateSummary } from '../../close/certificate-summary.js';
import type { ClosePeriod, TargetFiguresRead, TargetIndexView } from '../../close/close-input.js';
import type { FetchedState } from '../../service/fetched-state.js';
import { TargetUnavailableError } from '../../targets/errors.js';
import type { TargetFigures, TargetFiguresReader } from '../../targets/target-figures.js';
import { type ActivityDependencies, activityLogger, reportStoreOf } from '../in-activity/context.js';
import { translatingFailures } from '../in-activity/failures.js';
import type {
  CloseBooksThroughInput,
  CloseBooksThroughResult,
  CloseCertificateSummary,
  PeriodCloseActivities,
} from './activities-contract.js';

const pageSize = 100;

/**
 * A target's figures as of a day, read again after a passing unavailability (a 429, an outage, a timeout:
 * TargetUnavailableError, waiting its Retry-After when it gave one, else 1, 2, 4 s): the push of the same
 * company shares the vendor's rate limit, and one throttled report must not fail the certificate. Still
 * unavailable after `attempts`, or any other error at once, is thrown (the certificate names it).
 */
export async function readTargetFigures(
  reader: Pick<TargetFiguresReader, 'figuresAsOf'>,
  day: string,
  options: { attempts?: number; wait?: (ms: number) => Promise<unknown> } = {},
): Promise<TargetFigures> {
  const attempts = options.attempts ?? 4;
  const wait = options.wait ?? sleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await reader.figuresAsOf(day);
    } catch (error) {
      if (!(error instanceof TargetUnavailableError) || attempt >= attempts) throw error;
      await wait(Math.min(error.retryAfterMs ?? 1_000 * 2 ** (attempt - 1), 30_000));
    }
  }
}

/** Every item of a paged listing, in order. */
async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/**
 * What the service holds now, every page (links, payments, check deposits, disbursements; the bills and bill
 * payments the books name, asked by id: they have no list endpoint), and every booked entry.
 */
export async function fetchServiceState(deps: ActivityDependencies): Promise<FetchedState> {
  const links = await collect(deps.service.paymentLinks({ pageSize }));
  const payments = await collect(deps.service.payments({ pageSize }));
  const checkDeposits = await collect(deps.service.checkDeposits({ pageSize }));
  const disbursements = [];
  for (let page = 1; ; page++) {
    const list = await deps.service.listDisbursements({ page, pageSize });
    disbursements.push(...list.disbursements);
    if (list.disbursements.length === 0 || page * pageSize >= list.totalResults) break;
  }
  const entries = await deps.ledger.allEntries();
  // No list endpoint for bills or bill payments: the ones the books name, asked by id.
  const billIds = new Set<string>();
  const billPaymentIds = new Set<string>();
  for (const entry of entries) {
    if (entry.links.billId) billIds.add(entry.links.billId);
    if (entry.links.billPaymentId) billPaymentIds.add(entry.links.billPaymentId);
  }
  const billPayments = [];
  for (const id of billPaymentIds) {
    const bp = await deps.service.getBillPayment(id);
    billPayments.push(bp);
    billIds.add(bp.billId);
  }
  const bills = [];
  for (const id of billIds) bills.push(await deps.service.getBill(id));

  const opensOn = await deps.ledger.booksOpenOn();
  return { links, payments, checkDeposits, disbursements, bills, billPayments, entries, opensOn };
}

export function createPeriodCloseActivities(deps: ActivityDependencies): PeriodCloseActivities {
  return {
    async buildCloseCertificate(period: ClosePeriod): Promise<CloseCertificateSummary> {
      return translatingFailures(async () => {
        const log = activityLogger(deps, { period });
        const asOf = new Date().toISOString();
        const state = await fetchServiceState(deps);

        let targets: TargetIndexView[] | null = null;
        if (deps.targets && deps.targets.targets.size > 0) {
          const keys = periodEntryKeys(state.entries, period);
          targets = [];
          for (const name of deps.targets.targets.keys()) {
            const statuses = new Map<string, { status: string; reason: string | null }>();
            for (const key of keys) {
              const indexed = await deps.targets.index.get(name, key);
              if (indexed) statuses.set(key, { status: indexed.status, reason: indexed.reason });
            }
            targets.push({ target: name, statuses });
          }
        }
        // Each reporting target's own figures as of the period's last day: an outage is named in the
        // certificate (it fails), never taken for agreement.
        const targetFigures: TargetFiguresRead[] = [];
        for (const [target, reader] of deps.targetFigures ?? []) {
          try {
            targetFigures.push({ target, figures: await readTargetFigures(reader, period.to) });
          } catch (error) {
            log.warn({ target, err: error }, 'target figures could not be read');
            targetFigures.push({ target, error: error instanceof Error ? error.message : String(error) });
          }
        }
        const certificate = closeCertificate({
          period,
          asOf,
          targetFigures: targetFigures.length > 0 ? targetFigures : null,
          timeZone: deps.timeZone,
          ...(deps.payoutBankAccounts?.length ? { payoutBankAccounts: deps.payoutBankAccounts } : {}),
          ...state,
          receivables: await deps.ledger.openItems('receivable'),
          payables: await deps.ledger.openItems('payable'),
          targets,
        });
        // Whole in the ledger's reports; the workflow's result is the summary (bounded whatever the month).
        const stored = await reportStoreOf(deps).storeReport({
          kind: 'close-certificate',
          period,
          document: certificate,
        });
        log.info(
          {
            passes: certificate.passes,
            counts: certificate.counts,
            problems: certificate.problems.length,
            reportId: stored.id,
            bytes: stored.bytes,
          },
          'period close certificate made',
        );
        return certificateSummary(certificate, stored);
      });
    },

    async closeBooksThrough({ through, reason }: CloseBooksThroughInput): Promise<CloseBooksThroughResult> {
      return translatingFailures(async () => {
        const log = activityLogger(deps, { through });
        const closedThrough = await deps.ledger.booksClosedThrough();
        if (closedThrough !== null && closedThrough >= through) return { closed: false, closedThrough };
        const { created } = await deps.ledger.closeBooks(through, { reason, forced: false });
        if (created) log.info({ reason }, 'books closed after a passing certificate');
        return { closed: created, closedThrough: through };
      });
    },
  };
}
