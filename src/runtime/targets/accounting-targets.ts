import type { Client } from '@temporalio/client';
import { dataFile, type Settings } from '../../config/settings.js';
import type { TargetPushDependencies } from '../../flows/in-activity/context.js';
import { TargetCompanyMismatchError, type TargetIndexStore } from '../../flows/push/target-index.js';
import { PushWakeUp } from '../../flows/push/wake-up.js';
import { EmbeddedLedger } from '../../ledger/embedded-ledger.js';
import type { LedgerPort } from '../../ledger/ledger-port.js';
import type { Logger } from '../../logging/logger.js';
import type { ServiceClient } from '../../service/client.js';
import {
  type AccountMapping,
  parseAccountMapping,
  parseVendorExpenseAccounts,
  type VendorExpenseAccounts,
} from '../../targets/account-mapping.js';
import {
  TargetConfigurationError,
  TargetDisconnectedError,
  TargetUnavailableError,
} from '../../targets/errors.js';
import { LedgerMirrorTarget } from '../../targets/ledger-mirror-target.js';
import { FetchedLinks, rememberingLinks, serviceReferences } from '../../targets/service-references.js';
import type { TargetFiguresReader } from '../../targets/target-figures.js';
import type { AccountingTarget } from '../../targets/target-port.js';

export interface AccountingTargets {
  /** For the activities: the targets, their index, the references documents need. */
  dependencies: TargetPushDependencies;
  /** The ledger wrapped so each new entry wakes the push workflows. */
  ledger: LedgerPort;
  /** The service client for the bookings: each payment link it fetches is kept for the push's references. */
  service: ServiceClient;
  names: string[];
  /**
   * The targets that report their own figures as of a day (Tryton, QuickBooks, Xero), for the close
   * certificate's third side; the ledger mirror does not.
   */
  figures: ReadonlyMap<string, TargetFiguresReader>;
  /** Starts (or wakes) one push workflow per target; idempotent. */
  startPushing(client: Client, taskQueue: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Checks a target at start-up. A configuration problem (a missing account, a refused login, bad settings)
 * stops start-up with one line per problem. A target that cannot be reached now (an outage) or no longer
 * accepts booksync (a revoked connection) does not: the worker starts, so webhooks still reach the ledger,
 * and the push workflow retries, flags the target (NeedsAttention, LastError) and resumes once it is back.
 */
export async function verifyOrWait(
  target: AccountingTarget,
  logger: Logger,
): Promise<'verified' | 'waiting'> {
  try {
    await target.verify();
    return 'verified';
  } catch (error) {
    if (!(error instanceof TargetUnavailableError || error instanceof TargetDisconnectedError)) throw error;
    logger.warn(
      { target: target.name, reason: error.message },
      'accounting target not reachable at start; the worker starts, and the push retries and flags it until it is back',
    );
    return 'waiting';
  }
}

/**
 * Checks at start-up that the target index is the company's the target pushes to (QuickBooks' realm, Xero's
 * tenant), recording it when the index has none yet. When it is another company's, the target is not usable:
 * a configuration error is logged (both companies, and the commands that fix it) and false returned; the
 * worker still starts (no crash loop for the other targets and the webhooks), and every push to this target
 * is refused by the index (TargetIndexStore.lease) and flagged on its workflow until the operator reconnects
 * the index's company or switches with `booksync targets connect <target> --switch-company`.
 */
export async function indexOfCompany(
  index: TargetIndexStore,
  target: AccountingTarget,
  logger: Logger,
): Promise<boolean> {
  if (target.company === undefined) return true;
  try {
    await index.claimCompany(target.name, target.company);
    return true;
  } catch (error) {
    if (!(error instanceof TargetCompanyMismatchError)) throw error;
    const refusal = new TargetConfigurationError(target.name, [error.message]);
    logger.error(
      { target: target.name, company: target.company, indexCompany: error.indexCompany, err: refusal },
      'accounting target not usable: its index was built against another company; nothing is pushed to it',
    );
    return false;
  }
}

/** One configured target opened (its adapter's modules imported only now), what closes it kept in `closers`. */
async function openTarget(
  name: string,
  context: {
    settings: Settings;
    accounts: AccountMapping;
    vendorExpenses: VendorExpenseAccounts;
    logger: Logger;
    closers: (() => Promise<void> | void)[];
  },
): Promise<{ target: AccountingTarget; figures?: TargetFiguresReader }> {
  const { settings, accounts, vendorExpenses, logger, closers } = context;
  const log = logger.child({ component: 'accounting-target', target: name });
  if (name === 'ledger-mirror') {
    const mirror = EmbeddedLedger.open({
      path: dataFile(settings, 'LEDGER_MIRROR_DB'),
      logger: log,
    });
    closers.push(() => mirror.close());
    return { target: new LedgerMirrorTarget(mirror) };
  }
  if (name === 'tryton') {
    // Each adapter's modules (and its vendor SDK: xero-node alone is 14 MiB of heap) are imported only
    // when that target is configured.
    const { createTrytonTarget } = await import('../../targets/tryton/index.js');
    const tryton = createTrytonTarget({
      url: settings.TRYTON_URL as string,
      database: settings.TRYTON_DATABASE as string,
      username: settings.TRYTON_USER,
      password: settings.TRYTON_PASSWORD as string,
      accounts,
      vendorExpenses,
      matching: settings.TARGET_MATCHING,
      logger: log,
    });
    return { target: tryton, figures: tryton };
  }
  if (name === 'quickbooks') {
    const { openQuickBooksTarget } = await import('./quickbooks-connection.js');
    const quickbooks = await openQuickBooksTarget({
      settings,
      accounts,
      vendorExpenses,
      logger: log,
    });
    return { target: quickbooks, figures: quickbooks };
  }
  if (name === 'xero') {
    const { openXeroTarget } = await import('./xero-connection.js');
    const xero = await openXeroTarget({ settings, accounts, vendorExpenses, logger: log });
    return { target: xero, figures: xero };
  }
  throw new Error(`ACCOUNTING_TARGET: ${name} is not available in this release`);
}

/**
 * Opens the targets ACCOUNTING_TARGET names and checks each (connection, every mapped account): a
 * configuration problem stops start-up with one line per missing account, before any workflow runs; an
 * unreachable or disconnected target does not (verifyOrWait). Null when no target is set.
 */
export async function openAccountingTargets(options: {
  settings: Settings;
  /** The books (SQLite or PostgreSQL, see ledger-store.ts) and the target index in the same store. */
  ledger: LedgerPort;
  index: TargetIndexStore;
  service: ServiceClient;
  logger: Logger;
}): Promise<AccountingTargets | null> {
  const { settings, ledger, index, service, logger } = options;
  const names = settings.ACCOUNTING_TARGET ?? [];
  if (names.length === 0) return null;
  const accounts = parseAccountMapping(settings.TARGET_ACCOUNTS);
  const vendorExpenses = parseVendorExpenseAccounts(settings.VENDOR_EXPENSE_ACCOUNTS, accounts);
  const targets = new Map<string, AccountingTarget>();
  const figures = new Map<string, TargetFiguresReader>();
  const closers: (() => Promise<void> | void)[] = [];
  try {
    for (const name of names) {
      const opened = await openTarget(name, { settings, accounts, vendorExpenses, logger, closers });
      targets.set(name, opened.target);
      if (opened.figures) figures.set(name, opened.figures);
    }
    for (const target of targets.values()) {
      closers.push(() => target.close());
      if (!(await indexOfCompany(index, target, logger))) continue;
      await verifyOrWait(target, logger);
    }
  } catch (error) {
    for (const close of closers) await close();
    throw error;
  }

  const wakeUp = new PushWakeUp(
    names,
    {
      pollEvery: settings.PUSH_POLL_INTERVAL,
      retryMaximumInterval: settings.PUSH_RETRY_MAX_INTERVAL,
      heartbeatTimeout: settings.PUSH_HEARTBEAT_TIMEOUT,
    },
    logger,
  );

  // The links the bookings fetch are the push's: it names an invoice from what a booking read instead of
  // asking the service again. The bookings use `service` from here on (rememberingLinks).
  const fetchedLinks = new FetchedLinks();
  return {
    names,
    figures,
    service: rememberingLinks(service, fetchedLinks),
    dependencies: {
      targets,
      index,
      references: serviceReferences(service, fetchedLinks),
      inFlightWaitMs: settings.PUSH_IN_FLIGHT_WAIT_SECONDS * 1_000,
    },
    // Each new entry wakes the push workflows (the push's wake-up, src/flows/push/wake-up.ts).
    ledger: wakeUp.ledger(ledger),
    async startPushing(client, taskQueue) {
      await wakeUp.start(client, taskQueue);
      logger.info({ targets: names }, 'pushing the books to accounting targets');
    },
    async close() {
      wakeUp.stop();
      for (const close of closers.reverse()) await close();
    },
  };
}
