import { condition, continueAsNew, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import { countingDuplicatesIn, listenForServiceEvents } from '../in-workflow/service-event.js';
import { type BillPaymentView, type BillPaymentWorkflowInput, billPaymentViewQuery } from './contract.js';
import { BillPaymentRun } from './state.js';
import { BillPaymentSteps } from './steps.js';

export {
  billPaymentState,
  defaultCheckCashingWindowDays,
  defaultCheckDeliveryWindowDays,
} from './state.js';

/** Runs recorded before it did not look at an ACH bill payment daily. */
const achBillPaymentPollPatch = 'ach-bill-payment-poll';

/**
 * Mirrors one bill payment into the books. bill_payment.* and check.* events (check events carry the bill
 * payment's id) make it fetch the bill payment and book the difference: sent (Accounts Payable to Outgoing
 * Payments Clearing), paid when the vendor deposits the check or the ACH succeeds (clearing to Operating
 * Bank), reversed when the check is returned or fails, the ACH fails, or the payment is cancelled. Events out
 * of order converge because state is fetched. A check not delivered within N days of being sent, or not
 * cashed within M days of delivery, is flagged (NeedsAttention, SyncState CHECK_OVERDUE, a warning log).
 * Closes at a terminal state; a later event starts a fresh run, which books only what is missing.
 *
 * The loop below is the run's shape; its state is a BillPaymentRun (src/flows/bill-payment/state.ts), its
 * steps BillPaymentSteps (src/flows/bill-payment/steps.ts).
 */
export async function billPayment(input: BillPaymentWorkflowInput): Promise<BillPaymentView> {
  const run = new BillPaymentRun(input, new Date().toISOString());
  const steps = new BillPaymentSteps(run);
  const inbox = listenForServiceEvents(input.seenEventIds, countingDuplicatesIn(run.view));
  setHandler(billPaymentViewQuery, () => run.view);

  if (input.syncOnStart) {
    await steps.sync([]);
    await steps.evaluate();
  }

  for (;;) {
    // Wake on events, or when a look without one is due (the end of a check window, an overdue check...).
    const wakeAt = run.wakeAt(Date.now(), () => patched(achBillPaymentPollPatch));
    if (wakeAt === null) await condition(() => inbox.hasPending());
    else await condition(() => inbox.hasPending(), Math.max(0, wakeAt - Date.now()));

    const result = await steps.sync(inbox.take());
    if (result === null) {
      if (run.unknownToService && !inbox.hasPending()) return steps.closeNotFound();
      // Without a fresh state, still flag a check whose window ended (from the last known state).
      await steps.evaluate();
      if (run.view.lastSync === null) steps.publish();
      continue;
    }
    await steps.evaluate();

    if (run.terminal && !inbox.hasPending()) return steps.close();

    if (workflowInfo().continueAsNewSuggested && !inbox.hasPending()) {
      await continueAsNew<typeof billPayment>(run.continuation(inbox.seenIds()));
    }
  }
}
