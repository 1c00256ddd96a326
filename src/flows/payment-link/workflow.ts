import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  log,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { PaymentLinkId, SyncState } from '../../workflow-safe/search-attributes.js';
import {
  linkCommandUpdate,
  type PaymentLinkView,
  type PaymentLinkWorkflowInput,
  paymentLinkViewQuery,
  recordDebitMemoSignal,
  recordExternalPaymentSignal,
  syncPaymentLinkSignal,
  validateLinkCommand,
  voidDebitMemoSignal,
  voidExternalPaymentSignal,
} from './contract.js';
import { PaymentLinkState } from './state.js';
import { PaymentLinkSteps } from './steps.js';

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
 * its write carries the same deterministic externalReferenceId (decision “Reference rule”) and voids are idempotent (decisions “Void an external payment”, “Debit memos”).
 *
 * The loop below is the run's shape; its state is a PaymentLinkState (src/flows/payment-link/state.ts), its
 * steps PaymentLinkSteps (src/flows/payment-link/steps.ts).
 */
export async function paymentLink(input: PaymentLinkWorkflowInput): Promise<PaymentLinkView> {
  const { paymentLinkId } = input;
  const idleDays = input.idleDays ?? defaultIdleDays;
  const state = new PaymentLinkState(input, new Date().toISOString());
  const steps = new PaymentLinkSteps(state);
  listen(state);

  upsertSearchAttributes([
    { key: PaymentLinkId, value: paymentLinkId },
    { key: SyncState, value: state.view.state },
  ]);
  if (input.syncOnStart) steps.flag(await steps.sync('start', []));

  for (;;) {
    if (!(await condition(() => state.hasQueued, idleDays * dayMs))) {
      state.close(new Date().toISOString());
      upsertSearchAttributes([{ key: SyncState, value: state.view.state }]);
      log.info('payment link idle; closing', { paymentLinkId, idleDays });
      return state.view;
    }
    await steps.runBatch();

    if (workflowInfo().continueAsNewSuggested && !state.hasQueued && allHandlersFinished()) {
      await continueAsNew<typeof paymentLink>({
        paymentLinkId,
        ...(input.idleDays === undefined ? {} : { idleDays: input.idleDays }),
        seenCommandIds: state.seen.toArray(),
        commands: state.view.commands,
      });
    }
  }
}

/**
 * The run's signals, query and Update, each handed to its state. An Update is answered once its write and
 * the fetch after it are done, so the answer carries the link's remainder.
 */
function listen(state: PaymentLinkState): void {
  setHandler(recordExternalPaymentSignal, (command) =>
    state.enqueue({ kind: 'recordExternalPayment', command }),
  );
  setHandler(recordDebitMemoSignal, (command) => state.enqueue({ kind: 'recordDebitMemo', command }));
  setHandler(voidExternalPaymentSignal, (command) => state.enqueue({ kind: 'voidExternalPayment', command }));
  setHandler(voidDebitMemoSignal, (command) => state.enqueue({ kind: 'voidDebitMemo', command }));
  setHandler(syncPaymentLinkSignal, (command) => state.enqueue({ kind: 'sync', command }));
  setHandler(paymentLinkViewQuery, () => state.view);
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
}
