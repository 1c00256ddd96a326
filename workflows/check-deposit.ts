import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { CheckDepositActivities, CheckDepositSyncResult } from '../activities/check-deposit-contract.js';
import { serviceCallRetry } from '../src/workflow-safe/retry-policy.js';
import {
  AmountCents,
  ServiceObjectId,
  ServiceStatus,
  SyncState,
} from '../src/workflow-safe/search-attributes.js';
import { showLastError } from './attention.js';
import { compactApplications } from './check-deposit-applications.js';
import {
  type ApplyDepositCommand,
  applyDepositSignal,
  applyDepositUpdate,
  boundedApplicationsPatch,
  type CheckApplicationView,
  type CheckDepositView,
  type CheckDepositWorkflowInput,
  checkDepositViewQuery,
  type ReturnedCheckFeeView,
  refreshDepositSignal,
  type VoidApplicationCommand,
  type VoidCommandView,
  validateApplyCommand,
  validateVoidCommand,
  voidApplicationSignal,
  voidApplicationUpdate,
} from './check-deposit-contract.js';
import { CheckDepositRun } from './check-deposit-state.js';
import { childWorkflowIdFor } from './child-workflow-ids.js';
import { commandFailure } from './command-failure.js';
import { paymentLink } from './payment-link.js';
import { syncPaymentLinkSignal } from './payment-link-contract.js';
import { returnedCheckFeeShares } from './returned-check-fee.js';

/** 4.1 externalReferenceId of one application: stable per command, at most 255 characters. */
export function applicationReference(
  checkDepositId: string,
  paymentLinkId: string,
  commandId: string,
): string {
  const full = `booksync:${checkDepositId}:${paymentLinkId}:${commandId}`;
  return full.length <= 255 ? full : `booksync:${commandId}`.slice(0, 255);
}

/** The patch that charges a returned check's fee once per check, not once per link. */
export const feeOncePerCheckPatch = 'returned-check-fee-once-per-check';

/** The returned-check fee memo's reference: one per deposit and link (references are per link, D14). */
export function returnedCheckFeeReference(checkDepositId: string): string {
  return `booksync:returned-check-fee:${checkDepositId}`.slice(0, 255);
}

const hourMs = 60 * 60 * 1000;
const dayMs = 24 * hourMs;

/**
 * Applies one check deposit to payment links on the business's command (4.1) and follows it until the bank's
 * verdict. Each application carries a deterministic externalReferenceId, so a retried activity returns the
 * existing application (rule 5); it is then booked (Checks To Deposit / Accounts Receivable). The deposit is
 * looked at on durable timers (1 hour, doubling to 1 day) and on `refresh`. CLEARED: booked to the bank
 * (Operating Bank / Checks To Deposit), and the workflow closes. RETURNED / REJECTED: it confirms the service
 * voided the applications (the links reopen), reverses each in the books, and with a returned-check fee
 * configured records it as a debit memo on each affected link and has the link's workflow mirror it.
 * A refused application (409 REFERENCE_CONFLICT, 400, 403, 404) shows in `view` and NeedsAttention/LastError;
 * the workflow keeps serving other commands.
 */
export async function checkDeposit(input: CheckDepositWorkflowInput): Promise<CheckDepositView> {
  const activities = proxyActivities<CheckDepositActivities>({
    startToCloseTimeout: '1m',
    retry: serviceCallRetry,
  });
  const { checkDepositId } = input;
  const pollInitialMs = input.pollInitialMs ?? hourMs;
  const pollMaxMs = Math.max(input.pollMaxMs ?? dayMs, pollInitialMs);
  const fee = input.returnedCheckFeeCents ?? 0;
  const run = new CheckDepositRun(input, pollInitialMs, new Date().toISOString());
  const { view } = run;

  setHandler(applyDepositSignal, (command) => run.applySignalled(command));
  setHandler(voidApplicationSignal, (command) => run.voidSignalled(command));
  setHandler(refreshDepositSignal, (request) => run.refreshAsked(request?.reason ?? 'refresh'));
  setHandler(checkDepositViewQuery, () => run.current());
  setHandler(
    applyDepositUpdate,
    async (command) => {
      if (!run.applyRequested(command)) throw outcomeGone(command.commandId);
      await condition(() => run.settledApplication(command.commandId) !== undefined);
      return run.settledApplication(command.commandId) as CheckApplicationView;
    },
    { validator: validateApplyCommand },
  );
  setHandler(
    voidApplicationUpdate,
    async (command) => {
      if (!run.voidRequested(command)) throw outcomeGone(command.commandId);
      await condition(() => run.voidAnswer(command.commandId) !== undefined);
      return run.voidAnswer(command.commandId) as VoidCommandView;
    },
    { validator: validateVoidCommand },
  );

  const apply = async (command: ApplyDepositCommand) => {
    const application = run.applying(
      command,
      applicationReference(checkDepositId, command.paymentLinkId, command.commandId),
    );
    try {
      const result = await activities.applyCheckDepositToLink({
        checkDepositId,
        paymentLinkId: command.paymentLinkId,
        ...(command.amountCents === undefined ? {} : { amountCents: command.amountCents }),
        externalReferenceId: application.externalReferenceId,
        commandId: command.commandId,
      });
      run.applied(application, result);
      log.info('check deposit applied', {
        checkDepositId,
        commandId: command.commandId,
        paymentLinkId: command.paymentLinkId,
        externalPaymentId: result.externalPaymentId,
      });
    } catch (error) {
      const failure = commandFailure(error);
      run.refused(application, failure);
      log.warn('check deposit application refused', {
        checkDepositId,
        commandId: command.commandId,
        paymentLinkId: command.paymentLinkId,
        ...failure,
      });
    }
  };

  const voidOne = async (command: VoidApplicationCommand) => {
    const { record, application } = run.voiding(command);
    if (!application) {
      run.voidRefused(record, {
        error: `external payment ${command.externalPaymentId} is not an application of check deposit ${checkDepositId} made by booksync`,
        errorType: 'UnknownApplication',
        errorCode: null,
        httpStatus: null,
      });
    } else {
      try {
        await activities.voidCheckApplication({
          checkDepositId,
          paymentLinkId: application.paymentLinkId,
          externalPaymentId: command.externalPaymentId,
          commandId: command.commandId,
        });
        application.status = 'VOIDED';
        log.info('check deposit application voided', {
          checkDepositId,
          commandId: command.commandId,
          externalPaymentId: command.externalPaymentId,
        });
      } catch (error) {
        run.voidRefused(record, commandFailure(error));
      }
    }
    run.voidSettled(command.commandId);
  };

  const sync = async (reason: string): Promise<CheckDepositSyncResult | null> => {
    view.polls++;
    try {
      const result = await activities.syncCheckDeposit({
        checkDepositId,
        paymentLinkOf: run.paymentLinkOf(),
        reason,
      });
      run.synced(result, reason, new Date().toISOString());
      upsertSearchAttributes([
        { key: ServiceObjectId, value: checkDepositId },
        { key: ServiceStatus, value: result.status },
        { key: AmountCents, value: result.amountCents },
      ]);
      return result;
    } catch (error) {
      run.failed(commandFailure(error));
      return null;
    }
  };

  /** Has the link's payment-link workflow sync, starting it when no run is open, so the memo is mirrored. */
  const mirrorLink = async (paymentLinkId: string): Promise<boolean> => {
    const workflowId = childWorkflowIdFor('paymentLink', paymentLinkId);
    try {
      await startChild(paymentLink, {
        workflowId,
        args: [{ paymentLinkId, syncOnStart: true }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
      });
      return true;
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
    try {
      await getExternalWorkflowHandle(workflowId).signal(syncPaymentLinkSignal, {
        reason: `returned check fee of check deposit ${checkDepositId}`,
        commandId: `returned-check-fee:${checkDepositId}`,
      });
      return true;
    } catch (error) {
      log.warn('could not signal the payment link workflow', {
        checkDepositId,
        paymentLinkId,
        error: String(error),
      });
      return false;
    }
  };

  const settleReturn = async (result: CheckDepositSyncResult) => {
    const affected = view.applications.filter((a) => a.status === 'RETURNED' && a.externalPaymentId);
    try {
      view.linksAfterReturn = await activities.confirmApplicationsVoided({
        checkDepositId,
        applications: affected.map((a) => ({
          externalPaymentId: a.externalPaymentId!,
          paymentLinkId: a.paymentLinkId,
        })),
      });
    } catch (error) {
      run.failed(commandFailure(error));
    }
    if (fee <= 0) return;
    // One fee per check (issue 30, item 5); runs recorded before charged it on each affected link.
    const shares = patched(feeOncePerCheckPatch)
      ? returnedCheckFeeShares(fee, affected, input.returnedCheckFeeSplit ?? 'first-link')
      : [...new Set(affected.map((a) => a.paymentLinkId))].map((paymentLinkId) => ({
          paymentLinkId,
          amountCents: fee,
        }));
    for (const { paymentLinkId, amountCents } of shares) {
      const record: ReturnedCheckFeeView = {
        paymentLinkId,
        amountCents,
        debitMemoId: null,
        mirrorRequested: false,
      };
      view.returnedCheckFees.push(record);
      try {
        const { debitMemoId } = await activities.recordReturnedCheckFee({
          checkDepositId,
          paymentLinkId,
          amountCents,
          externalReferenceId: returnedCheckFeeReference(checkDepositId),
        });
        record.debitMemoId = debitMemoId;
        log.info('returned check fee recorded', {
          checkDepositId,
          paymentLinkId,
          debitMemoId,
          status: result.status,
        });
      } catch (error) {
        const failure = commandFailure(error);
        Object.assign(record, failure);
        run.failed(failure);
        continue;
      }
      record.mirrorRequested = await mirrorLink(paymentLinkId);
    }
  };

  /** NeedsAttention while a failure of this round or a refused application stands; LastError names it. */
  const flag = () => {
    view.lastError = showLastError(view.lastError, run.lastError());
  };

  let settled = false;
  for (;;) {
    const woken = await condition(() => run.hasWork, view.pollIntervalMs);
    const reasons = run.beginRound(woken, pollMaxMs);
    while (run.hasCommands) {
      const batch = run.takeApplies();
      for (const command of batch) await apply(command);
      const voidBatch = run.takeVoids();
      for (const command of voidBatch) await voidOne(command);
      if (batch.length > 0) reasons.push('apply');
      if (voidBatch.length > 0) reasons.push('void');
    }
    const refresh = run.takeRefresh();
    if (refresh !== null) reasons.push(refresh);

    const result = await sync([...new Set(reasons)].join(', '));
    if (result?.status === 'CLEARED' || result?.status === 'RETURNED' || result?.status === 'REJECTED') {
      if (result.status !== 'CLEARED' && !settled) {
        settled = true;
        await settleReturn(result);
      }
      flag();
      // An Update still answering would be cut off by the return.
      if (!allHandlersFinished()) await condition(allHandlersFinished);
      if (!run.hasCommands) {
        run.close(result.status, new Date().toISOString());
        upsertSearchAttributes([{ key: SyncState, value: view.state }]);
        log.info('check deposit settled', { checkDepositId, status: result.status });
        return run.current();
      }
      continue;
    }
    flag();
    upsertSearchAttributes([{ key: SyncState, value: view.state }]);

    if (workflowInfo().continueAsNewSuggested && !run.hasCommands && allHandlersFinished()) {
      // D44: older settled applications go on as a tally. Runs from before keep carrying the whole list, so
      // their recorded histories replay unchanged.
      const bounded = patched(boundedApplicationsPatch)
        ? compactApplications(view.applications, view.unlistedApplications)
        : null;
      await continueAsNew<typeof checkDeposit>({
        checkDepositId,
        ...(input.returnedCheckFeeCents === undefined
          ? {}
          : { returnedCheckFeeCents: input.returnedCheckFeeCents }),
        ...(input.returnedCheckFeeSplit === undefined
          ? {}
          : { returnedCheckFeeSplit: input.returnedCheckFeeSplit }),
        pollInitialMs,
        pollMaxMs,
        applications: bounded?.applications ?? view.applications,
        ...(bounded ? { unlistedApplications: bounded.unlisted } : {}),
        seenCommandIds: run.seen.toArray(),
        pollIntervalMs: view.pollIntervalMs,
      });
    }
  }
}

/** An Update for a command seen before whose outcome is no longer listed (D44): it cannot be answered. */
function outcomeGone(commandId: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(
    `command ${commandId} was handled before; its outcome is no longer listed`,
    'CommandOutcomeUnknown',
  );
}
