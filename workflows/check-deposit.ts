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
import { serviceCallRetry } from '../activities/retry-policy.js';
import { AmountCents, ServiceObjectId, ServiceStatus, SyncState } from '../src/temporal/search-attributes.js';
import { showLastError } from './attention.js';
import { addToTotals, compactApplications, emptyApplicationTotals } from './check-deposit-applications.js';
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
import { childWorkflowIdFor } from './child-workflow-ids.js';
import { type CommandFailure, commandFailure, lastErrorValue } from './command-failure.js';
import { paymentLink } from './payment-link.js';
import { syncPaymentLinkSignal } from './payment-link-contract.js';
import { SeenIds } from './seen-ids.js';

/** 4.1 externalReferenceId of one application: stable per command, at most 255 characters. */
export function applicationReference(
  checkDepositId: string,
  paymentLinkId: string,
  commandId: string,
): string {
  const full = `booksync:${checkDepositId}:${paymentLinkId}:${commandId}`;
  return full.length <= 255 ? full : `booksync:${commandId}`.slice(0, 255);
}

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
  const seen = new SeenIds(input.seenCommandIds);
  let applies: ApplyDepositCommand[] = [];
  let voids: VoidApplicationCommand[] = [];
  let refreshReason: string | null = null;

  const view: Omit<CheckDepositView, 'applicationTotals'> = {
    checkDepositId,
    state: 'WATCHING',
    serviceStatus: null,
    amountCents: null,
    unappliedAmountCents: null,
    applications: input.applications ?? [],
    unlistedApplications: input.unlistedApplications
      ? addToTotals(input.unlistedApplications, [])
      : emptyApplicationTotals(),
    voids: [],
    unknownApplicationIds: [],
    linksAfterReturn: [],
    returnedCheckFees: [],
    polls: 0,
    pollIntervalMs: input.pollIntervalMs ?? pollInitialMs,
    duplicatesDropped: 0,
    lastSync: null,
    lastError: null,
    openedAt: new Date().toISOString(),
    closedAt: null,
  };

  const fresh = (commandId: string) => {
    if (seen.add(commandId)) return true;
    view.duplicatesDropped++;
    return false;
  };
  setHandler(applyDepositSignal, (command) => {
    if (fresh(command.commandId)) applies.push(command);
  });
  /** Applications settled in this run, by command id, for the Update's answer. */
  const answered = new Map<string, CheckApplicationView>();
  const settledApplication = (commandId: string) =>
    answered.get(commandId) ??
    view.applications.find((a) => a.commandId === commandId && a.status !== 'APPLYING');
  setHandler(
    applyDepositUpdate,
    async (command) => {
      const id = command.commandId;
      if (fresh(id)) applies.push(command);
      else if (
        !applies.some((c) => c.commandId === id) &&
        !answered.has(id) &&
        !view.applications.some((a) => a.commandId === id)
      ) {
        // Seen before, and its row is no longer listed (D44): its outcome is gone from this run.
        throw ApplicationFailure.nonRetryable(
          `command ${id} was handled before; its outcome is no longer listed`,
          'CommandOutcomeUnknown',
        );
      }
      await condition(() => settledApplication(command.commandId) !== undefined);
      return settledApplication(command.commandId) as CheckApplicationView;
    },
    { validator: validateApplyCommand },
  );
  const voidsAnswered = new Map<string, VoidCommandView>();
  setHandler(
    voidApplicationUpdate,
    async (command) => {
      const id = command.commandId;
      if (fresh(id)) voids.push(command);
      else if (
        !voids.some((c) => c.commandId === id) &&
        !voidsAnswered.has(id) &&
        !view.voids.some((v) => v.commandId === id)
      ) {
        throw ApplicationFailure.nonRetryable(
          `command ${id} was handled before; its outcome is no longer listed`,
          'CommandOutcomeUnknown',
        );
      }
      await condition(() => voidsAnswered.has(id));
      return voidsAnswered.get(id) as VoidCommandView;
    },
    { validator: validateVoidCommand },
  );
  setHandler(voidApplicationSignal, (command) => {
    if (fresh(command.commandId)) voids.push(command);
  });
  setHandler(refreshDepositSignal, (request) => {
    refreshReason = request?.reason ?? 'refresh';
  });
  /** The view with its totals worked out now (statuses of listed applications change as the deposit moves). */
  const current = (): CheckDepositView => ({
    ...view,
    applicationTotals: addToTotals(view.unlistedApplications, view.applications),
  });
  setHandler(checkDepositViewQuery, current);

  let failures: CommandFailure[] = [];
  /**
   * NeedsAttention while a failure of this round or a refused application stands (a person decides what to
   * do with it); LastError names the latest failure.
   */
  const flag = () => {
    const last = failures.at(-1);
    const refused = view.applications.some((a) => a.status === 'FAILED');
    const next = last ? lastErrorValue(last) : refused ? view.lastError : null;
    view.lastError = showLastError(view.lastError, next);
  };

  const apply = async (command: ApplyDepositCommand) => {
    const application: CheckApplicationView = {
      commandId: command.commandId,
      paymentLinkId: command.paymentLinkId,
      requestedAmountCents: command.amountCents ?? null,
      externalReferenceId: applicationReference(checkDepositId, command.paymentLinkId, command.commandId),
      status: 'APPLYING',
      externalPaymentId: null,
      amountCents: null,
    };
    view.applications.push(application);
    try {
      const result = await activities.applyCheckDepositToLink({
        checkDepositId,
        paymentLinkId: command.paymentLinkId,
        ...(command.amountCents === undefined ? {} : { amountCents: command.amountCents }),
        externalReferenceId: application.externalReferenceId,
        commandId: command.commandId,
      });
      // A repeated reference answers the existing application (rule 5): one record, however often asked.
      const existing = view.applications.find(
        (a) => a !== application && a.externalPaymentId === result.externalPaymentId,
      );
      if (existing) view.applications.splice(view.applications.indexOf(application), 1);
      const target = existing ?? application;
      target.status = 'APPLIED';
      target.externalPaymentId = result.externalPaymentId;
      target.amountCents = result.amountCents;
      if (result.linkRemainderCents !== undefined) target.linkRemainderCents = result.linkRemainderCents;
      answered.set(command.commandId, target);
      log.info('check deposit applied', {
        checkDepositId,
        commandId: command.commandId,
        paymentLinkId: command.paymentLinkId,
        externalPaymentId: result.externalPaymentId,
      });
    } catch (error) {
      const failure = commandFailure(error);
      Object.assign(application, { status: 'FAILED' }, failure);
      failures.push(failure);
      log.warn('check deposit application refused', {
        checkDepositId,
        commandId: command.commandId,
        paymentLinkId: command.paymentLinkId,
        ...failure,
      });
    }
  };

  const voidOne = async (command: VoidApplicationCommand) => {
    await voidAt(command);
    const record = view.voids.findLast((v) => v.commandId === command.commandId);
    if (record) voidsAnswered.set(command.commandId, record);
  };
  const voidAt = async (command: VoidApplicationCommand) => {
    const application = view.applications.find((a) => a.externalPaymentId === command.externalPaymentId);
    const record: VoidCommandView = {
      commandId: command.commandId,
      externalPaymentId: command.externalPaymentId,
      status: 'DONE',
    };
    view.voids.push(record);
    if (!application) {
      const failure: CommandFailure = {
        error: `external payment ${command.externalPaymentId} is not an application of check deposit ${checkDepositId} made by booksync`,
        errorType: 'UnknownApplication',
        errorCode: null,
        httpStatus: null,
      };
      Object.assign(record, { status: 'FAILED' }, failure);
      failures.push(failure);
      return;
    }
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
      const failure = commandFailure(error);
      Object.assign(record, { status: 'FAILED' }, failure);
      failures.push(failure);
    }
  };

  const paymentLinkOf = (): Record<string, string> => {
    const map: Record<string, string> = {};
    for (const a of view.applications) if (a.externalPaymentId) map[a.externalPaymentId] = a.paymentLinkId;
    return map;
  };

  const sync = async (reason: string): Promise<CheckDepositSyncResult | null> => {
    view.polls++;
    try {
      const result = await activities.syncCheckDeposit({
        checkDepositId,
        paymentLinkOf: paymentLinkOf(),
        reason,
      });
      view.serviceStatus = result.status;
      view.amountCents = result.amountCents;
      view.unappliedAmountCents = result.unappliedAmountCents;
      view.unknownApplicationIds = result.unknownApplicationIds;
      view.lastSync = {
        at: new Date().toISOString(),
        reason,
        posted: result.posted,
        reversed: result.reversed,
      };
      // An application voided at the service directly (the dashboard) is reversed by the sync; show it.
      for (const a of view.applications) {
        if (
          a.status === 'APPLIED' &&
          a.externalPaymentId &&
          !result.liveApplicationIds.includes(a.externalPaymentId)
        ) {
          a.status = result.status === 'RETURNED' || result.status === 'REJECTED' ? 'RETURNED' : 'VOIDED';
        }
      }
      upsertSearchAttributes([
        { key: ServiceObjectId, value: checkDepositId },
        { key: ServiceStatus, value: result.status },
        { key: AmountCents, value: result.amountCents },
      ]);
      if (result.unknownApplicationIds.length > 0) {
        failures.push({
          error: `applications not made by booksync (not booked): ${result.unknownApplicationIds.join(', ')}`,
          errorType: 'UnknownApplication',
          errorCode: null,
          httpStatus: null,
        });
      }
      return result;
    } catch (error) {
      failures.push(commandFailure(error));
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
      failures.push(commandFailure(error));
    }
    if (fee <= 0) return;
    for (const paymentLinkId of [...new Set(affected.map((a) => a.paymentLinkId))]) {
      const record: ReturnedCheckFeeView = {
        paymentLinkId,
        amountCents: fee,
        debitMemoId: null,
        mirrorRequested: false,
      };
      view.returnedCheckFees.push(record);
      try {
        const { debitMemoId } = await activities.recordReturnedCheckFee({
          checkDepositId,
          paymentLinkId,
          amountCents: fee,
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
        failures.push(failure);
        continue;
      }
      record.mirrorRequested = await mirrorLink(paymentLinkId);
    }
  };

  let settled = false;
  for (;;) {
    const woken = await condition(
      () => applies.length > 0 || voids.length > 0 || refreshReason !== null,
      view.pollIntervalMs,
    );
    failures = [];
    const reasons: string[] = [];
    if (!woken) {
      reasons.push('timer');
      view.pollIntervalMs = Math.min(view.pollIntervalMs * 2, pollMaxMs);
    }
    while (applies.length > 0 || voids.length > 0) {
      const batch = applies;
      applies = [];
      for (const command of batch) await apply(command);
      const voidBatch = voids;
      voids = [];
      for (const command of voidBatch) await voidOne(command);
      if (batch.length > 0) reasons.push('apply');
      if (voidBatch.length > 0) reasons.push('void');
    }
    if (refreshReason !== null) reasons.push(refreshReason);
    refreshReason = null;

    const result = await sync([...new Set(reasons)].join(', '));
    if (result?.status === 'CLEARED' || result?.status === 'RETURNED' || result?.status === 'REJECTED') {
      if (result.status !== 'CLEARED' && !settled) {
        settled = true;
        await settleReturn(result);
      }
      flag();
      // An Update still answering would be cut off by the return.
      if (!allHandlersFinished()) await condition(allHandlersFinished);
      if (applies.length === 0 && voids.length === 0) {
        view.state = result.status;
        view.closedAt = new Date().toISOString();
        upsertSearchAttributes([{ key: SyncState, value: view.state }]);
        log.info('check deposit settled', { checkDepositId, status: result.status });
        return current();
      }
      continue;
    }
    flag();
    upsertSearchAttributes([{ key: SyncState, value: view.state }]);

    if (
      workflowInfo().continueAsNewSuggested &&
      applies.length === 0 &&
      voids.length === 0 &&
      allHandlersFinished()
    ) {
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
        pollInitialMs,
        pollMaxMs,
        applications: bounded?.applications ?? view.applications,
        ...(bounded ? { unlistedApplications: bounded.unlisted } : {}),
        seenCommandIds: seen.toArray(),
        pollIntervalMs: view.pollIntervalMs,
      });
    }
  }
}
