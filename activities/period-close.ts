import { Accounts } from '../src/accounting/chart-of-accounts.js';
import type { BookedEntry } from '../src/accounting/entry.js';
import type { LedgerPort } from '../src/accounting/ledger-port.js';
import {
  type ClosePeriod,
  closeCertificate,
  periodEntryKeys,
  type TargetIndexView,
} from '../src/close/certificate.js';
import type {
  Bill,
  BillPayment,
  CheckDeposit,
  Disbursement,
  Payment,
  PaymentLink,
} from '../src/service/schemas/index.js';
import { type ActivityDependencies, activityLogger } from './context.js';
import { translatingFailures } from './failures.js';
import type { PeriodCloseActivities } from './period-close-contract.js';

const pageSize = 100;

/** Every entry of the ledger: both stores have allEntries (the port does not promise it). */
async function allEntries(ledger: LedgerPort): Promise<BookedEntry[]> {
  const withAll = ledger as LedgerPort & { allEntries?: () => Promise<BookedEntry[]> };
  if (typeof withAll.allEntries !== 'function') {
    throw new Error(
      'the period close needs a ledger store that lists all its entries (SQLite or PostgreSQL)',
    );
  }
  return withAll.allEntries();
}

/**
 * What the service holds now, every page (links, payments, check deposits, disbursements; the bills and bill
 * payments the books name, asked by id: they have no list endpoint), and every booked entry.
 */
export async function fetchServiceState(deps: ActivityDependencies): Promise<{
  links: PaymentLink[];
  payments: Payment[];
  checkDeposits: CheckDeposit[];
  disbursements: Disbursement[];
  bills: Bill[];
  billPayments: BillPayment[];
  entries: BookedEntry[];
}> {
  const links: PaymentLink[] = [];
  for await (const link of deps.service.paymentLinks({ pageSize })) links.push(link);
  const payments: Payment[] = [];
  for await (const payment of deps.service.payments({ pageSize })) payments.push(payment);
  const checkDeposits: CheckDeposit[] = [];
  for await (const deposit of deps.service.checkDeposits({ pageSize })) checkDeposits.push(deposit);
  const disbursements: Disbursement[] = [];
  for (let page = 1; ; page++) {
    const list = await deps.service.listDisbursements({ page, pageSize });
    disbursements.push(...list.disbursements);
    if (list.disbursements.length === 0 || page * pageSize >= list.totalResults) break;
  }
  const entries = await allEntries(deps.ledger);
  // No list endpoint for bills or bill payments: the ones the books name, asked by id.
  const billIds = new Set<string>();
  const billPaymentIds = new Set<string>();
  for (const entry of entries) {
    if (entry.links.billId) billIds.add(entry.links.billId);
    if (entry.links.billPaymentId) billPaymentIds.add(entry.links.billPaymentId);
  }
  const billPayments: BillPayment[] = [];
  for (const id of billPaymentIds) {
    const bp = await deps.service.getBillPayment(id);
    billPayments.push(bp);
    billIds.add(bp.billId);
  }
  const bills: Bill[] = [];
  for (const id of billIds) bills.push(await deps.service.getBill(id));

  return { links, payments, checkDeposits, disbursements, bills, billPayments, entries };
}

export function createPeriodCloseActivities(deps: ActivityDependencies): PeriodCloseActivities {
  return {
    async buildCloseCertificate(period: ClosePeriod) {
      return translatingFailures(async () => {
        const log = activityLogger(deps, { period });
        const asOf = new Date().toISOString();
        const { links, payments, checkDeposits, disbursements, bills, billPayments, entries } =
          await fetchServiceState(deps);

        let targets: TargetIndexView[] | null = null;
        if (deps.targets && deps.targets.targets.size > 0) {
          const keys = periodEntryKeys(entries, period);
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
        const certificate = closeCertificate({
          period,
          asOf,
          links,
          payments,
          disbursements,
          checkDeposits,
          bills,
          billPayments,
          entries,
          receivables: await deps.ledger.openItems('receivable'),
          payables: await deps.ledger.openItems('payable'),
          balances: {
            processorClearingCents: await deps.ledger.balanceOf(Accounts.ProcessorClearing),
            payoutsInTransitCents: await deps.ledger.balanceOf(Accounts.PayoutsInTransit),
          },
          targets,
        });
        log.info(
          { passes: certificate.passes, counts: certificate.counts, problems: certificate.problems.length },
          'period close certificate made',
        );
        return certificate;
      });
    },
  };
}
