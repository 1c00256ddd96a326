import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { LedgerPort } from '../../ledger/ledger-port.js';
import { dayInZone } from '../../ledger/mapping/dates.js';
import type { PayoutBookingOptions } from '../../ledger/mapping/disbursement.js';
import type { PaymentLinkBookingOptions } from '../../ledger/mapping/payment-link.js';
import type { ReportStore } from '../../ledger/report-store.js';
import type { Logger } from '../../logging/logger.js';
import type { ServiceClient } from '../../service/client.js';
import type { ReferenceData } from '../../targets/documents.js';
import type { TargetFiguresReader } from '../../targets/target-figures.js';
import type { AccountingTarget } from '../../targets/target-port.js';
import type { TargetIndexStore } from '../push/target-index.js';

/** What activities need from the process that hosts them; built once by the worker. */
export interface ActivityDependencies {
  service: ServiceClient;
  ledger: LedgerPort;
  /**
   * Where a certificate or payout period report is kept whole, in the ledger's store: workflow results carry
   * only its summary and id. Unset, those activities fail (nothing bounded could be returned).
   */
  reports?: ReportStore;
  logger: Logger;
  /** BOOKS_TIME_ZONE: every entry is dated on the business day, in this zone, of the time it comes from. */
  timeZone: string;
  /** Today's accounting date (YYYY-MM-DD) for reversals; injectable so tests pin it. */
  today?: () => string;
  /** Where external payments are booked (EXTERNAL_PAYMENTS_ACCOUNT); default Checks To Deposit. */
  externalPaymentAccount?: 'checks-to-deposit' | 'operating-bank';
  /**
   * PAYOUT_BANK_ACCOUNTS: the last four digits of the accounts whose payouts are received in Payout Bank;
   * unset or empty, every payout is received in Operating Bank.
   */
  payoutBankAccounts?: readonly string[];
  /**
   * Settings CHECK_DELIVERY_WINDOW_DAYS / CHECK_CASHING_WINDOW_DAYS. The bill payment activity hands them to
   * its workflow (which cannot read configuration); unset, the workflow's own defaults apply.
   */
  checkWindows?: { deliveryDays: number; cashingDays: number };
  /** Accounting targets (ACCOUNTING_TARGET) and their index; unset when the books stay embedded only. */
  targets?: TargetPushDependencies;
  /** The configured targets that report their own figures (trial balance, aged items), by target name. */
  targetFigures?: ReadonlyMap<string, TargetFiguresReader>;
  /**
   * How a backfill page writes its new entries: together in one transaction (the default), or each in its
   * own (the bench's before/after, BENCH_BACKFILL_ONE_BY_ONE).
   */
  backfillPageWrites?: 'one-transaction' | 'entry-by-entry';
}

/** What the push needs besides the other activities' dependencies; built by the worker when targets exist. */
export interface TargetPushDependencies {
  targets: ReadonlyMap<string, AccountingTarget>;
  index: TargetIndexStore;
  references: ReferenceData;
  /**
   * PUSH_IN_FLIGHT_WAIT_SECONDS in ms: the longest an attempt waits for an earlier attempt's write still in
   * flight (waitForEarlierWrites) before it looks the entry up at the target.
   */
  inFlightWaitMs: number;
}

/** The report store, or a failure naming what is missing (a worker always has one; a bare test may not). */
export function reportStoreOf(deps: ActivityDependencies): ReportStore {
  if (!deps.reports) {
    throw ApplicationFailure.nonRetryable(
      'no report store: the worker keeps reports in the ledger store',
      'NoReportStore',
    );
  }
  return deps.reports;
}

/** A child logger carrying the workflow id and activity type, plus the fields given (event and object ids). */
export function activityLogger(deps: ActivityDependencies, fields: Record<string, unknown>): Logger {
  let workflow: Record<string, unknown> = {};
  try {
    const info = Context.current().info;
    workflow = {
      workflowId: info.workflowExecution?.workflowId,
      activity: info.activityType,
      attempt: info.attempt,
    };
  } catch {
    // Called outside an activity (a CLI command reusing the same code): no workflow context to add.
  }
  return deps.logger.child({ ...workflow, ...fields });
}

/**
 * Logs what a sync booked, with the fields given: "<subject> booked", or "<subject> already in the books"
 * when it posted and reversed nothing.
 */
export function logBooked(
  log: Logger,
  subject: string,
  result: { posted: string[]; reversed: string[] },
  fields: Record<string, unknown>,
): void {
  const { posted, reversed } = result;
  log.info(
    { ...fields, posted, reversed },
    posted.length + reversed.length > 0 ? `${subject} booked` : `${subject} already in the books`,
  );
}

/** How a link's external payments and memos are booked, from the settings. */
export function linkBookingOptions(deps: ActivityDependencies): PaymentLinkBookingOptions {
  return {
    timeZone: deps.timeZone,
    ...(deps.externalPaymentAccount ? { externalPaymentAccount: deps.externalPaymentAccount } : {}),
  };
}

/** Which bank account a paid payout is received in, from the settings. */
export function payoutBookingOptions(deps: ActivityDependencies): PayoutBookingOptions {
  return deps.payoutBankAccounts?.length ? { payoutBankAccounts: deps.payoutBankAccounts } : {};
}

/** Today as a business day in the books' time zone: the date of reversals and of what has no date of its own. */
export function accountingDate(deps: ActivityDependencies): string {
  return deps.today ? deps.today() : dayInZone(Date.now(), deps.timeZone);
}
