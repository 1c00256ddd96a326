import { log, proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import { serviceCallRetry } from '../../workflow-safe/retry-policy.js';
import {
  AmountCents,
  CustomerId,
  PaymentLinkId,
  ServiceObjectId,
  ServiceStatus,
} from '../../workflow-safe/search-attributes.js';
import { showLastError } from '../in-workflow/attention.js';
import { type CommandFailure, commandFailure, lastErrorValue } from '../in-workflow/command-failure.js';
import type { LinkWriteResult, PaymentLinkActivities, PaymentLinkSyncResult } from './activities-contract.js';
import { commandReference, type LinkWriteCommand, type QueuedCommand } from './contract.js';
import type { PaymentLinkState } from './state.js';

/**
 * The named steps of a payment-link run (src/flows/payment-link/workflow.ts is the loop over them): a batch of
 * commands written at the service, then one fetch of the link that books what changed. Each step keeps its
 * outcome in the run's state (src/flows/payment-link/state.ts); a refused command is recorded, never thrown.
 */
export class PaymentLinkSteps {
  readonly #activities = proxyActivities<PaymentLinkActivities>({
    startToCloseTimeout: '1m',
    retry: serviceCallRetry,
  });

  private readonly state: PaymentLinkState;
  constructor(state: PaymentLinkState) {
    this.state = state;
  }

  get #paymentLinkId(): string {
    return this.state.view.paymentLinkId;
  }

  /** Every queued command written in arrival order, then one fetch that books them and whatever changed elsewhere. */
  async runBatch(): Promise<void> {
    const batch = this.state.takeBatch();
    let failure: CommandFailure | null = null;
    for (const queued of batch) failure = (await this.execute(queued)) ?? failure;
    const reasons = [...new Set(batch.map((q) => (q.kind === 'sync' ? q.command.reason : q.kind)))];
    const syncFailure = await this.sync(
      reasons.join(', '),
      batch.map((q) => q.command.commandId ?? ''),
    );
    this.flag(syncFailure ?? failure);
    this.state.finishBatch();
  }

  /** Writes one command at the service; a refusal is recorded, never thrown. */
  async execute(queued: QueuedCommand): Promise<CommandFailure | null> {
    const at = new Date().toISOString();
    const commandId = queued.command.commandId ?? '';
    if (queued.kind === 'sync') {
      this.state.remember({
        commandId,
        kind: 'sync',
        status: 'DONE',
        recordId: null,
        externalReferenceId: null,
        at,
      });
      return null;
    }
    const { write, externalReferenceId } = this.#write(queued, commandId);
    try {
      const result = await write;
      this.state.remember({
        commandId,
        kind: queued.kind,
        status: 'DONE',
        recordId: result.recordId,
        externalReferenceId,
        at,
      });
      log.info('payment link command done', {
        paymentLinkId: this.#paymentLinkId,
        commandId,
        kind: queued.kind,
        recordId: result.recordId,
      });
      return null;
    } catch (error) {
      const failure = commandFailure(error);
      this.state.remember({
        commandId,
        kind: queued.kind,
        status: 'FAILED',
        recordId: null,
        externalReferenceId,
        at,
        ...failure,
      });
      log.warn('payment link command refused', {
        paymentLinkId: this.#paymentLinkId,
        commandId,
        kind: queued.kind,
        ...failure,
      });
      return failure;
    }
  }

  /** The command's write at the service (started), with the reference a record carries (decision “Reference rule”). */
  #write(
    queued: LinkWriteCommand,
    commandId: string,
  ): { write: Promise<LinkWriteResult>; externalReferenceId: string | null } {
    const paymentLinkId = this.#paymentLinkId;
    switch (queued.kind) {
      case 'recordExternalPayment': {
        const c = queued.command;
        const externalReferenceId = c.externalReferenceId ?? commandReference(c.commandId);
        const write = this.#activities.recordLinkExternalPayment({
          paymentLinkId,
          commandId,
          amountCents: c.amountCents,
          paidAt: c.paidAt,
          externalReferenceId,
        });
        return { write, externalReferenceId };
      }
      case 'recordDebitMemo': {
        const c = queued.command;
        const externalReferenceId = c.externalReferenceId ?? commandReference(c.commandId);
        const write = this.#activities.recordLinkDebitMemo({
          paymentLinkId,
          commandId,
          amountCents: c.amountCents,
          description: c.description,
          externalReferenceId,
        });
        return { write, externalReferenceId };
      }
      case 'voidExternalPayment':
        return {
          write: this.#activities.voidLinkExternalPayment({
            paymentLinkId,
            commandId,
            externalPaymentId: queued.command.externalPaymentId,
          }),
          externalReferenceId: null,
        };
      case 'voidDebitMemo':
        return {
          write: this.#activities.voidLinkDebitMemo({
            paymentLinkId,
            commandId,
            debitMemoId: queued.command.debitMemoId,
          }),
          externalReferenceId: null,
        };
    }
  }

  /** Fetches the link and books it; the failure when the fetch failed. */
  async sync(reason: string, commandIds: string[]): Promise<CommandFailure | null> {
    const paymentLinkId = this.#paymentLinkId;
    let result: PaymentLinkSyncResult;
    try {
      result = await this.#activities.syncPaymentLink({ paymentLinkId, reason, commandIds });
    } catch (error) {
      const failure = commandFailure(error);
      log.warn('payment link sync failed', { paymentLinkId, commandIds, ...failure });
      return failure;
    }
    this.state.synced(result, reason, new Date().toISOString());
    upsertSearchAttributes([
      { key: PaymentLinkId, value: paymentLinkId },
      { key: ServiceObjectId, value: paymentLinkId },
      { key: ServiceStatus, value: result.status },
      { key: AmountCents, value: result.requestedAmountCents },
      ...(result.customerId ? [{ key: CustomerId, value: result.customerId }] : []),
    ]);
    return null;
  }

  /** NeedsAttention and LastError while a failure stands; cleared by a batch without one. */
  flag(failure: CommandFailure | null): void {
    const { view } = this.state;
    view.lastError = showLastError(view.lastError, failure ? lastErrorValue(failure) : null);
  }
}
