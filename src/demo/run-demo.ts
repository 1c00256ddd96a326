import { SandboxClient } from '@booksync/emulator/sandbox-client';
import { CommandApiClient, type CommandApiTarget } from '../command-api/client.js';
import { billPaymentWorkflowId } from '../flows/bill-payment/contract.js';
import { checkDepositWorkflowId } from '../flows/check-deposit/contract.js';
import { disbursementWorkflowId } from '../flows/disbursement/contract.js';
import { paymentWorkflowId } from '../flows/payment/contract.js';
import { paymentLinkWorkflowId } from '../flows/payment-link/contract.js';
import type { LedgerPort } from '../ledger/ledger-port.js';
import { trialBalanceText } from '../ledger/trial-balance-text.js';
import { ServiceClient } from '../service/client.js';
import { runBusinessDay, waitForQuietBooks } from './business-day.js';
import { closeDemoMonth, type MonthCloseParties } from './month-close.js';

/** How the demo closes its month: the workflows it starts (as the CLI does) and the emulator's admin token. */
export interface DemoMonthClose extends Pick<MonthCloseParties, 'reconcile' | 'targets' | 'certify'> {
  /** Moving the emulator's clock takes its admin token (E17); without one the month is left open, said so. */
  adminToken: string | undefined;
}

export interface DemoTargets {
  serviceBaseUrl: string;
  serviceApiKey: string;
  commands: CommandApiTarget;
  ledger: LedgerPort;
  /** Where to point people; null when Temporal runs elsewhere without a known UI. */
  temporalUiUrl: string | null;
  namespace: string;
  /** BOOKS_TIME_ZONE. */
  timeZone: string;
  /** After the day, end its month on the emulator's clock and close it; null: the day only. */
  monthClose: DemoMonthClose | null;
  out: (line: string) => void;
}

/**
 * Runs the business day against a running booksync and prints the books, then (with `monthClose`) closes the
 * day's month, then where to look.
 */
export async function runDemo(targets: DemoTargets): Promise<void> {
  const { out } = targets;
  out('');
  out('demo: a day at Bluebird Bakery');
  const sandbox = new SandboxClient({
    baseUrl: targets.serviceBaseUrl,
    apiKey: targets.serviceApiKey,
    ...(targets.monthClose?.adminToken ? { adminToken: targets.monthClose.adminToken } : {}),
  });
  const day = await runBusinessDay({
    service: new ServiceClient({ baseUrl: targets.serviceBaseUrl, apiKey: targets.serviceApiKey }),
    sandbox,
    commands: new CommandApiClient(targets.commands),
    ledger: targets.ledger,
    timeZone: targets.timeZone,
    progress: out,
  });
  out('');
  out('trial balance');
  for (const line of trialBalanceText(await targets.ledger.trialBalance())) out(`  ${line}`);
  const close = targets.monthClose;
  if (close && close.adminToken === undefined) {
    out('');
    out(
      "the month stays open: moving the emulator's clock takes its admin token (set EMULATOR_ADMIN_TOKEN for 'booksync start' and 'booksync demo' alike)",
    );
  } else if (close) {
    await closeDemoMonth({
      sandbox,
      ledger: targets.ledger,
      timeZone: targets.timeZone,
      reconcile: close.reconcile,
      settle: () => waitForQuietBooks(targets.ledger, sandbox, day.startedAt),
      targets: close.targets,
      certify: close.certify,
      progress: out,
    });
  }
  if (targets.temporalUiUrl) {
    const ui = `${targets.temporalUiUrl}/namespaces/${encodeURIComponent(targets.namespace)}/workflows`;
    out('');
    out('each flow in the Temporal UI');
    const flow = (workflowId: string) => `${ui}/${encodeURIComponent(workflowId)}`;
    out(`  card payment         ${flow(paymentWorkflowId(day.paymentIds.card))}`);
    out(`  ACH in its window    ${flow(paymentWorkflowId(day.paymentIds.ach))}`);
    out(`  ACH returned         ${flow(paymentWorkflowId(day.paymentIds.achReturned))}`);
    out(`  cleared deposit      ${flow(checkDepositWorkflowId(day.checkDepositIds.cleared))}`);
    out(`  returned deposit     ${flow(checkDepositWorkflowId(day.checkDepositIds.returned))}`);
    out(`  invoice INV-1003     ${flow(paymentLinkWorkflowId(day.paymentLinkIds['INV-1003']!))}`);
    out(`  payout               ${flow(disbursementWorkflowId(day.disbursementId))}`);
    out(`  bill paid by check   ${flow(billPaymentWorkflowId(day.billPaymentId))}`);
    out(`  every booksync flow  ${ui}?query=${encodeURIComponent('SyncState IS NOT NULL')}`);
  }
}
