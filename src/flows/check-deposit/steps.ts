import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  getExternalWorkflowHandle,
  log,
  ParentClosePolicy,
  patched,
  proxyActivities,
  startChild,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { serviceCallRetry } from '../../workflow-safe/retry-policy.js';
import {
  AmountCents,
  ServiceObjectId,
  ServiceStatus,
  SyncState,
} from '../../workflow-safe/search-attributes.js';
import { showLastError } from '../in-workflow/attention.js';
import { childWorkflowIdFor } from '../in-workflow/child-workflow-ids.js';
import { commandFailure } from '../in-workflow/command-failure.js';
import { syncPaymentLinkSignal } from '../payment-link/contract.js';
import { paymentLink } from '../payment-link/workflow.js';
import type { CheckDepositActivities, CheckDepositSyncResult } from './activities-contract.js';
import { compactApplications } from './applications.js';
import {
  type ApplyDepositCommand,
  boundedApplicationsPatch,
  type CheckDepositState,
  type CheckDepositView,
  type CheckDepositWorkflowInput,
  type ReturnedCheckFeeView,
  type VoidApplicationCommand,
} from './contract.js';
import { returnedCheckFeeShares } from './returned-check-fee.js';
import type { CheckDepositRun } from './state.js';

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

/** The returned-check fee memo's reference: one per deposit and link (references are per link, decision “Reference rule”). */
export function returnedCheckFeeReference(checkDepositId: string): string {
  return `booksync:returned-check-fee:${checkDepositId}`.slice(0, 255);
}

/**
 * The named steps of a check-deposit run (src/flows/check-deposit/workflow.ts is the loop over them): the activities
 * and child workflows of each command, the deposit's sync, and what a returned check settles. Each step
 * keeps its outcome in the run's state (src/flows/check-deposit/state.ts); a refused command is recorded,
 * never thrown.
 */
export class CheckDepositSteps {
  readonly #activities = proxyActivities<CheckDepositActivities>({
    startToCloseTimeout: '1m',
    retry: serviceCallRetry,
  });
  readonly #checkDepositId: string;

  private readonly input: CheckDepositWorkflowInput;
  private readonly run: CheckDepositRun;
  constructor(input: CheckDepositWorkflowInput, run: CheckDepositRun) {
    this.input = input;
    this.run = run;
    this.#checkDepositId = input.checkDepositId;
  }

  /** Every queued command, applies then voids, until none is left; the reasons they give the next sync. */
  async runCommands(): Promise<string[]> {
    const reasons: string[] = [];
    while (this.run.hasCommands) {
      const batch = this.run.takeApplies();
      for (const command of batch) await this.apply(command);
      const voidBatch = this.run.takeVoids();
      for (const command of voidBatch) await this.voidOne(command);
      if (batch.length > 0) reasons.push('apply');
      if (voidBatch.length > 0) reasons.push('void');
    }
    return reasons;
  }

  async apply(command: ApplyDepositCommand): Promise<void> {
    const checkDepositId = this.#checkDepositId;
    const application = this.run.applying(
      command,
      applicationReference(checkDepositId, command.paymentLinkId, command.commandId),
    );
    try {
      const result = await this.#activities.applyCheckDepositToLink({
        checkDepositId,
        paymentLinkId: command.paymentLinkId,
        ...(command.amountCents === undefined ? {} : { amountCents: command.amountCents }),
        externalReferenceId: application.externalReferenceId,
        commandId: command.commandId,
      });
      this.run.applied(application, result);
      log.info('check deposit applied', {
        checkDepositId,
        commandId: command.commandId,
        paymentLinkId: command.paymentLinkId,
        externalPaymentId: result.externalPaymentId,
      });
    } catch (error) {
      const failure = commandFailure(error);
      this.run.refused(application, failure);
      log.warn('check deposit application refused', {
        checkDepositId,
        commandId: command.commandId,
        paymentLinkId: command.paymentLinkId,
        ...failure,
      });
    }
  }

  async voidOne(command: VoidApplicationCommand): Promise<void> {
    const checkDepositId = this.#checkDepositId;
    const { record, application } = this.run.voiding(command);
    if (!application) {
      this.run.voidRefused(record, {
        error: `external payment ${command.externalPaymentId} is not an application of check deposit ${checkDepositId} made by booksync`,
        errorType: 'UnknownApplication',
        errorCode: null,
        httpStatus: null,
      });
    } else {
      try {
        await this.#activities.voidCheckApplication({
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
        this.run.voidRefused(record, commandFailure(error));
      }
    }
    this.run.voidSettled(command.commandId);
  }

  /** Fetches the deposit and books what changed; null when the fetch failed (a failure of this round). */
  async sync(reason: string): Promise<CheckDepositSyncResult | null> {
    const checkDepositId = this.#checkDepositId;
    this.run.view.polls++;
    try {
      const result = await this.#activities.syncCheckDeposit({
        checkDepositId,
        paymentLinkOf: this.run.paymentLinkOf(),
        reason,
      });
      this.run.synced(result, reason, new Date().toISOString());
      upsertSearchAttributes([
        { key: ServiceObjectId, value: checkDepositId },
        { key: ServiceStatus, value: result.status },
        { key: AmountCents, value: result.amountCents },
      ]);
      return result;
    } catch (error) {
      this.run.failed(commandFailure(error));
      return null;
    }
  }

  /**
   * A returned or rejected check: the service must have voided its applications (the links reopen), and a
   * configured returned-check fee is recorded as a debit memo on the links it falls on, each mirrored by its
   * link's workflow.
   */
  async settleReturn(result: CheckDepositSyncResult): Promise<void> {
    const { view } = this.run;
    const checkDepositId = this.#checkDepositId;
    const fee = this.input.returnedCheckFeeCents ?? 0;
    const affected = view.applications.filter((a) => a.status === 'RETURNED' && a.externalPaymentId);
    try {
      view.linksAfterReturn = await this.#activities.confirmApplicationsVoided({
        checkDepositId,
        applications: affected.map((a) => ({
          externalPaymentId: a.externalPaymentId!,
          paymentLinkId: a.paymentLinkId,
        })),
      });
    } catch (error) {
      this.run.failed(commandFailure(error));
    }
    if (fee <= 0) return;
    // One fee per check; runs recorded before charged it on each affected link.
    const shares = patched(feeOncePerCheckPatch)
      ? returnedCheckFeeShares(fee, affected, this.input.returnedCheckFeeSplit ?? 'first-link')
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
      if (await this.#recordFee(record, result))
        record.mirrorRequested = await this.#mirrorLink(paymentLinkId);
    }
  }

  /** One link's share of the fee as a debit memo; false when the service refused it (a failure of this round). */
  async #recordFee(record: ReturnedCheckFeeView, result: CheckDepositSyncResult): Promise<boolean> {
    const checkDepositId = this.#checkDepositId;
    const { paymentLinkId, amountCents } = record;
    try {
      const { debitMemoId } = await this.#activities.recordReturnedCheckFee({
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
      return true;
    } catch (error) {
      const failure = commandFailure(error);
      Object.assign(record, failure);
      this.run.failed(failure);
      return false;
    }
  }

  /** Has the link's payment-link workflow sync, starting it when no run is open, so the memo is mirrored. */
  async #mirrorLink(paymentLinkId: string): Promise<boolean> {
    const checkDepositId = this.#checkDepositId;
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
  }

  /** NeedsAttention while a failure of this round or a refused application stands; LastError names it. */
  flag(): void {
    this.run.view.lastError = showLastError(this.run.view.lastError, this.run.lastError());
  }

  /** The run is over (the bank's verdict is in): SyncState says how, and the view is the workflow's result. */
  close(status: CheckDepositState): CheckDepositView {
    this.run.close(status, new Date().toISOString());
    upsertSearchAttributes([{ key: SyncState, value: this.run.view.state }]);
    log.info('check deposit settled', { checkDepositId: this.#checkDepositId, status });
    return this.run.current();
  }

  /**
   * The next run's input. decision “Bounded check-deposit state”: older settled applications go on as a tally. Runs from before keep carrying
   * the whole list, so their recorded histories replay unchanged.
   */
  continuation(pollInitialMs: number, pollMaxMs: number): CheckDepositWorkflowInput {
    const { input, run } = this;
    const { view } = run;
    const bounded = patched(boundedApplicationsPatch)
      ? compactApplications(view.applications, view.unlistedApplications)
      : null;
    return {
      checkDepositId: this.#checkDepositId,
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
    };
  }
}
