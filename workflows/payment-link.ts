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
import { serviceCallRetry } from '../activities/retry-policy.js';
import {
  AmountCents,
  CustomerId,
  PaymentLinkId,
  ServiceObjectId,
  ServiceStatus,
  SyncState,
} from '../src/temporal/search-attributes.js';
import { showLastError } from './attention.js';
import { type CommandFailure, commandFailure, lastErrorValue } from './command-failure.js';
import {
  commandReference,
  type LinkCommandResult,
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
import { SeenIds } from './seen-ids.js';

const defaultIdleDays = 30;
const keptCommands = 20;
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
  const seen = new SeenIds(input.seenCommandIds);
  const idleMs = (input.idleDays ?? defaultIdleDays) * dayMs;
  let queue: QueuedCommand[] = [];
  const view: PaymentLinkView = {
    paymentLinkId,
    state: 'OPEN',
    serviceStatus: null,
    requestedAmountCents: null,
    completedAmountCents: null,
    debitMemoAmountCents: null,
    externalPayments: [],
    debitMemos: [],
    booked: [],
    commands: input.commands ?? [],
    duplicatesDropped: 0,
    syncs: 0,
    lastSync: null,
    lastError: null,
    openedAt: new Date().toISOString(),
    closedAt: null,
  };

  const enqueue = (command: QueuedCommand) => {
    const id = command.command.commandId;
    if (id !== undefined && !seen.add(id)) {
      view.duplicatesDropped++;
      return;
    }
    queue.push(command);
  };
  setHandler(recordExternalPaymentSignal, (command) => enqueue({ kind: 'recordExternalPayment', command }));
  setHandler(recordDebitMemoSignal, (command) => enqueue({ kind: 'recordDebitMemo', command }));
  setHandler(voidExternalPaymentSignal, (command) => enqueue({ kind: 'voidExternalPayment', command }));
  setHandler(voidDebitMemoSignal, (command) => enqueue({ kind: 'voidDebitMemo', command }));
  setHandler(syncPaymentLinkSignal, (command) => enqueue({ kind: 'sync', command }));
  setHandler(paymentLinkViewQuery, () => view);

  // Update answers: a command is answered once its write and the fetch after it are done, so the answer
  // carries the link's remainder. `inFlight` is the batch being written; `answered` this run's results.
  const answered = new Map<string, LinkCommandResult>();
  const inFlight = new Set<string>();
  const settledCommand = (id: string) =>
    answered.get(id) ??
    (queue.some((q) => q.command.commandId === id) || inFlight.has(id)
      ? undefined
      : view.commands.find((c) => c.commandId === id));
  setHandler(
    linkCommandUpdate,
    async (queued) => {
      const id = queued.command.commandId;
      if (seen.add(id)) queue.push(queued);
      else if (!settledCommand(id) && !queue.some((q) => q.command.commandId === id) && !inFlight.has(id)) {
        throw ApplicationFailure.nonRetryable(
          `command ${id} was handled before; its outcome is no longer kept`,
          'CommandOutcomeUnknown',
        );
      }
      await condition(() => settledCommand(id) !== undefined);
      return {
        result: settledCommand(id) as LinkCommandResult,
        link: {
          requestedAmountCents: view.requestedAmountCents,
          completedAmountCents: view.completedAmountCents,
          debitMemoAmountCents: view.debitMemoAmountCents,
        },
      };
    },
    { validator: validateLinkCommand },
  );

  const remember = (result: LinkCommandResult) => {
    view.commands.push(result);
    if (view.commands.length > keptCommands) view.commands.splice(0, view.commands.length - keptCommands);
  };

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
        remember({ commandId, kind: 'sync', status: 'DONE', recordId: null, externalReferenceId, at });
        return null;
    }
    try {
      const result = await write;
      remember({
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
      remember({
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
    view.syncs++;
    view.serviceStatus = result.status;
    view.requestedAmountCents = result.requestedAmountCents;
    view.completedAmountCents = result.completedAmountCents;
    view.debitMemoAmountCents = result.debitMemoAmountCents;
    view.externalPayments = result.externalPayments;
    view.debitMemos = result.debitMemos;
    view.booked = result.booked;
    view.lastSync = {
      at: new Date().toISOString(),
      reason,
      posted: result.posted,
      reversed: result.reversed,
    };
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
    const next = failure ? lastErrorValue(failure) : null;
    view.lastError = showLastError(view.lastError, next);
  };

  upsertSearchAttributes([
    { key: PaymentLinkId, value: paymentLinkId },
    { key: SyncState, value: view.state },
  ]);
  if (input.syncOnStart) flag(await sync('start', []));

  for (;;) {
    const woken = await condition(() => queue.length > 0, idleMs);
    if (!woken) {
      view.state = 'CLOSED';
      view.closedAt = new Date().toISOString();
      upsertSearchAttributes([{ key: SyncState, value: view.state }]);
      log.info('payment link idle; closing', { paymentLinkId, idleDays: input.idleDays ?? defaultIdleDays });
      return view;
    }
    const batch = queue;
    queue = [];
    for (const q of batch) if (q.command.commandId) inFlight.add(q.command.commandId);
    let failure: CommandFailure | null = null;
    for (const queued of batch) failure = (await execute(queued)) ?? failure;
    // One fetch after the batch books what the writes changed, and whatever was changed elsewhere.
    const reasons = [...new Set(batch.map((q) => (q.kind === 'sync' ? q.command.reason : q.kind)))];
    const syncFailure = await sync(
      reasons.join(', '),
      batch.map((q) => q.command.commandId ?? ''),
    );
    flag(syncFailure ?? failure);
    for (const id of inFlight) {
      const result = view.commands.findLast((c) => c.commandId === id);
      if (result) answered.set(id, result);
    }
    inFlight.clear();

    if (workflowInfo().continueAsNewSuggested && queue.length === 0 && allHandlersFinished()) {
      await continueAsNew<typeof paymentLink>({
        paymentLinkId,
        ...(input.idleDays === undefined ? {} : { idleDays: input.idleDays }),
        seenCommandIds: seen.toArray(),
        commands: view.commands,
      });
    }
  }
}
