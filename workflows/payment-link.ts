import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  log,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type {
  LinkWriteResult,
  PaymentLinkActivities,
  PaymentLinkSyncResult,
} from '../activities/payment-link-contract.js';
import { serviceCallRetry } from '../src/workflow-safe/retry-policy.js';
import {
  AmountCents,
  CustomerId,
  PaymentLinkId,
  ServiceObjectId,
  ServiceStatus,
  SyncState,
} from '../src/workflow-safe/search-attributes.js';
import { showLastError } from './attention.js';
import { type CommandFailure, commandFailure, lastErrorValue } from './command-failure.js';
import {
  commandReference,
  linkCommandUpdate,
  type PaymentLinkView,
  type PaymentLinkWorkflowInput,
  paymentLinkViewQuery,
  type QueuedCommand,
  recordDebitMemoSignal,
  recordExternalPaymentSignal,
  syncPaymentLinkSignal,
  validateLinkCommand,
  voidDebitMemoSignal,
  voidExternalPaymentSignal,
} from './payment-link-contract.js';
import { PaymentLinkState } from './payment-link-state.js';

const defaultIdleDays = 30;
const dayMs = 24 * 60 * 60 * 1000;

/**
 * Mirrors a payment link's external payments (2.7, 4.2) and debit memos (2.8) into the books. Commands
 * write at the service first, then the link is fetched and the books made to match it
 * (`syncPaymentLink`): records made elsewhere (the dashboard) are picked up, and a record voided at the
 * service, which disappears from the link, has its entry reversed.
 *
 * Lifetime: open while commands come; closes after `idleDays` (default 30) without one, and continues as new
 * when Temporal suggests it, carrying the command ids it has seen. A command after the close starts a fresh
 * run (signalWithStart) which syncs again; a retried command reaching a fresh run is still safe, because
 * its write carries the same deterministic externalReferenceId (D14) and voids are idempotent (D12, D15).
 */
export async function paymentLink(input: PaymentLinkWorkflowInput): Promise<PaymentLinkView> {
  const activities = proxyActivities<PaymentLinkActivities>({
    startToCloseTimeout: '1m',
    retry: serviceCallRetry,
  });
  const { paymentLinkId } = input;
  const idleMs = (input.idleDays ?? defaultIdleDays) * dayMs;
  const state = new PaymentLinkState(input, new Date().toISOString());
  const { view } = state;

  setHandler(recordExternalPaymentSignal, (command) =>
    state.enqueue({ kind: 'recordExternalPayment', command }),
  );
  setHandler(recordDebitMemoSignal, (command) => state.enqueue({ kind: 'recordDebitMemo', command }));
  setHandler(voidExternalPaymentSignal, (command) => state.enqueue({ kind: 'voidExternalPayment', command }));
  setHandler(voidDebitMemoSignal, (command) => state.enqueue({ kind: 'voidDebitMemo', command }));
  setHandler(syncPaymentLinkSignal, (command) => state.enqueue({ kind: 'sync', command }));
  setHandler(paymentLinkViewQuery, () => view);
  // Update answers: a command is answered once its write and the fetch after it are done, so the answer
  // carries the link's remainder.
  setHandler(
    linkCommandUpdate,
    async (queued) => {
      const id = queued.command.commandId;
      if (!state.enqueueUpdate(queued)) {
        throw ApplicationFailure.nonRetryable(
          `command ${id} was handled before; its outcome is no longer kept`,
          'CommandOutcomeUnknown',
        );
      }
      await condition(() => state.settled(id) !== undefined);
      return state.answer(id);
    },
    { validator: validateLinkCommand },
  );

  /** Writes one command at the service; a refusal is recorded, never thrown. */
  const execute = async (queued: QueuedCommand): Promise<CommandFailure | null> => {
    const at = new Date().toISOString();
    const commandId = queued.command.commandId ?? '';
    let write: Promise<LinkWriteResult> | null = null;
    let externalReferenceId: string | null = null;
    switch (queued.kind) {
      case 'recordExternalPayment': {
        const c = queued.command;
        externalReferenceId = c.externalReferenceId ?? commandReference(c.commandId);
        write = activities.recordLinkExternalPayment({
          paymentLinkId,
          commandId,
          amountCents: c.amountCents,
          paidAt: c.paidAt,
          externalReferenceId,
        });
        break;
      }
      case 'recordDebitMemo': {
        const c = queued.command;
        externalReferenceId = c.externalReferenceId ?? commandReference(c.commandId);
        write = activities.recordLinkDebitMemo({
          paymentLinkId,
          commandId,
          amountCents: c.amountCents,
          description: c.description,
          externalReferenceId,
        });
        break;
      }
      case 'voidExternalPayment':
        write = activities.voidLinkExternalPayment({
          paymentLinkId,
          commandId,
          externalPaymentId: queued.command.externalPaymentId,
        });
        break;
      case 'voidDebitMemo':
        write = activities.voidLinkDebitMemo({
          paymentLinkId,
          commandId,
          debitMemoId: queued.command.debitMemoId,
        });
        break;
      case 'sync':
        state.remember({ commandId, kind: 'sync', status: 'DONE', recordId: null, externalReferenceId, at });
        return null;
    }
    try {
      const result = await write;
      state.remember({
        commandId,
        kind: queued.kind,
        status: 'DONE',
        recordId: result.recordId,
        externalReferenceId,
        at,
      });
      log.info('payment link command done', {
        paymentLinkId,
        commandId,
        kind: queued.kind,
        recordId: result.recordId,
      });
      return null;
    } catch (error) {
      const failure = commandFailure(error);
      state.remember({
        commandId,
        kind: queued.kind,
        status: 'FAILED',
        recordId: null,
        externalReferenceId,
        at,
        ...failure,
      });
      log.warn('payment link command refused', { paymentLinkId, commandId, kind: queued.kind, ...failure });
      return failure;
    }
  };

  const sync = async (reason: string, commandIds: string[]): Promise<CommandFailure | null> => {
    let result: PaymentLinkSyncResult;
    try {
      result = await activities.syncPaymentLink({ paymentLinkId, reason, commandIds });
    } catch (error) {
      const failure = commandFailure(error);
      log.warn('payment link sync failed', { paymentLinkId, commandIds, ...failure });
      return failure;
    }
    state.synced(result, reason, new Date().toISOString());
    upsertSearchAttributes([
      { key: PaymentLinkId, value: paymentLinkId },
      { key: ServiceObjectId, value: paymentLinkId },
      { key: ServiceStatus, value: result.status },
      { key: AmountCents, value: result.requestedAmountCents },
      ...(result.customerId ? [{ key: CustomerId, value: result.customerId }] : []),
    ]);
    return null;
  };

  const flag = (failure: CommandFailure | null) => {
    view.lastError = showLastError(view.lastError, failure ? lastErrorValue(failure) : null);
  };

  upsertSearchAttributes([
    { key: PaymentLinkId, value: paymentLinkId },
    { key: SyncState, value: view.state },
  ]);
  if (input.syncOnStart) flag(await sync('start', []));

  for (;;) {
    if (!(await condition(() => state.hasQueued, idleMs))) {
      state.close(new Date().toISOString());
      upsertSearchAttributes([{ key: SyncState, value: view.state }]);
      log.info('payment link idle; closing', { paymentLinkId, idleDays: input.idleDays ?? defaultIdleDays });
      return view;
    }
    const batch = state.takeBatch();
    let failure: CommandFailure | null = null;
    for (const queued of batch) failure = (await execute(queued)) ?? failure;
    // One fetch after the batch books what the writes changed, and whatever was changed elsewhere.
    const reasons = [...new Set(batch.map((q) => (q.kind === 'sync' ? q.command.reason : q.kind)))];
    const syncFailure = await sync(
      reasons.join(', '),
      batch.map((q) => q.command.commandId ?? ''),
    );
    flag(syncFailure ?? failure);
    state.finishBatch();

    if (workflowInfo().continueAsNewSuggested && !state.hasQueued && allHandlersFinished()) {
      await continueAsNew<typeof paymentLink>({
        paymentLinkId,
        ...(input.idleDays === undefined ? {} : { idleDays: input.idleDays }),
        seenCommandIds: state.seen.toArray(),
        commands: view.commands,
      });
    }
  }
}
