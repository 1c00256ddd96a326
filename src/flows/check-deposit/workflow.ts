import type { UpdateDefinition } from '@temporalio/common';
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { SyncState } from '../../workflow-safe/search-attributes.js';
import type { CheckDepositSyncResult } from './activities-contract.js';
import {
  applyDepositSignal,
  applyDepositUpdate,
  type CheckDepositState,
  type CheckDepositView,
  type CheckDepositWorkflowInput,
  checkDepositViewQuery,
  refreshDepositSignal,
  validateApplyCommand,
  validateVoidCommand,
  voidApplicationSignal,
  voidApplicationUpdate,
} from './contract.js';
import { CheckDepositRun } from './state.js';
import { CheckDepositSteps } from './steps.js';

export {
  applicationReference,
  feeOncePerCheckPatch,
  returnedCheckFeeReference,
} from './steps.js';

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
 *
 * The loop below is the run's shape; its state is a CheckDepositRun (src/flows/check-deposit/state.ts), its
 * steps CheckDepositSteps (src/flows/check-deposit/steps.ts).
 */
export async function checkDeposit(input: CheckDepositWorkflowInput): Promise<CheckDepositView> {
  const pollInitialMs = input.pollInitialMs ?? hourMs;
  const pollMaxMs = Math.max(input.pollMaxMs ?? dayMs, pollInitialMs);
  const run = new CheckDepositRun(input, pollInitialMs, new Date().toISOString());
  const steps = new CheckDepositSteps(input, run);
  listen(run);

  let settled = false;
  for (;;) {
    const woken = await condition(() => run.hasWork, run.view.pollIntervalMs);
    const reasons = run.beginRound(woken, pollMaxMs);
    reasons.push(...(await steps.runCommands()));
    const refresh = run.takeRefresh();
    if (refresh !== null) reasons.push(refresh);

    const result = await steps.sync([...new Set(reasons)].join(', '));
    const status = verdict(result);
    if (status !== null) {
      if (status !== 'CLEARED' && !settled) {
        settled = true;
        await steps.settleReturn(result!);
      }
      steps.flag();
      // An Update still answering would be cut off by the return.
      if (!allHandlersFinished()) await condition(allHandlersFinished);
      if (!run.hasCommands) return steps.close(status);
      continue;
    }
    steps.flag();
    upsertSearchAttributes([{ key: SyncState, value: run.view.state }]);

    if (workflowInfo().continueAsNewSuggested && !run.hasCommands && allHandlersFinished()) {
      await continueAsNew<typeof checkDeposit>(steps.continuation(pollInitialMs, pollMaxMs));
    }
  }
}

/** The bank's verdict on the deposit, once there is one. */
function verdict(result: CheckDepositSyncResult | null): Exclude<CheckDepositState, 'WATCHING'> | null {
  const status = result?.status;
  return status === 'CLEARED' || status === 'RETURNED' || status === 'REJECTED' ? status : null;
}

/** The run's signals, query and Updates, each handed to its state (an Update waits for its answer there). */
function listen(run: CheckDepositRun): void {
  setHandler(applyDepositSignal, (command) => run.applySignalled(command));
  setHandler(voidApplicationSignal, (command) => run.voidSignalled(command));
  setHandler(refreshDepositSignal, (request) => run.refreshAsked(request?.reason ?? 'refresh'));
  setHandler(checkDepositViewQuery, () => run.current());
  answerWhenSettled(
    applyDepositUpdate,
    (command) => run.applyRequested(command),
    (commandId) => run.settledApplication(commandId),
    validateApplyCommand,
  );
  answerWhenSettled(
    voidApplicationUpdate,
    (command) => run.voidRequested(command),
    (commandId) => run.voidAnswer(commandId),
    validateVoidCommand,
  );
}

/**
 * An Update that hands its command to the run (`requested`: false when its outcome is gone) and answers once
 * the run has settled it.
 */
function answerWhenSettled<Command extends { commandId: string }, Answer>(
  update: UpdateDefinition<Answer, [Command]>,
  requested: (command: Command) => boolean,
  answer: (commandId: string) => Answer | undefined,
  validator: (command: Command) => void,
): void {
  setHandler(
    update,
    async (command) => {
      if (!requested(command)) throw outcomeGone(command.commandId);
      await condition(() => answer(command.commandId) !== undefined);
      return answer(command.commandId) as Answer;
    },
    { validator },
  );
}

/** An Update for a command seen before whose outcome is no longer listed (decision “Bounded check-deposit state”): it cannot be answered. */
function outcomeGone(commandId: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(
    `command ${commandId} was handled before; its outcome is no longer listed`,
    'CommandOutcomeUnknown',
  );
}
