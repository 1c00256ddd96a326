import { condition, continueAsNew, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import { countingDuplicatesIn, listenForServiceEvents } from '../in-workflow/service-event.js';
import { type PaymentView, type PaymentWorkflowInput, paymentViewQuery } from './contract.js';
import { PaymentRun } from './state.js';
import { PaymentSteps } from './steps.js';

export { achReturnWindowDays } from './state.js';

/** Runs recorded before it waited for a payment the service did not know forever. */
const closesNotFoundPatch = 'payment-closes-not-found';
/** An id the service answers 404 for is looked at once more after this, then the run closes NOT_FOUND. */
const notFoundRecheck = '10 minutes';

/**
 * Mirrors one payment into the books. Every payment.* event makes it fetch the payment and book the
 * difference (payment received, absorbed card fee, refunds, voids, ACH return, returned refund credit).
 * Card and balance payments close once booked; ACH payments stay open on a durable timer for the 60-day
 * return window from payment.made, then close as final. A later event starts a fresh run, which books
 * only what is missing.
 *
 * The loop below is the run's shape; its state is a PaymentRun (src/flows/payment/state.ts), its steps
 * PaymentSteps (src/flows/payment/steps.ts).
 */
export async function payment(input: PaymentWorkflowInput): Promise<PaymentView> {
  const run = new PaymentRun(input, new Date().toISOString());
  const steps = new PaymentSteps(run);
  const inbox = listenForServiceEvents(input.seenEventIds, countingDuplicatesIn(run.view));
  setHandler(paymentViewQuery, () => run.view);

  if (input.syncOnStart) {
    // Started without an event (reconciliation booked the payment): settle its state as an event would.
    const first = await steps.sync([]);
    if (first && (first.status === 'FAILED' || first.methodType !== 'ACH')) return steps.close(first);
    if (first) steps.inReturnWindow(first);
  }

  for (;;) {
    // Wait for events; an ACH payment inside its window also wakes when the window ends.
    const windowEnd = run.returnWindowEnd;
    let woken = true;
    if (windowEnd === null) await condition(() => inbox.hasPending());
    else woken = await condition(() => inbox.hasPending(), Math.max(0, windowEnd - Date.now()));
    if (!woken) return steps.windowEnded();

    let result = await steps.sync(inbox.take());
    // A payment the service has never shown (a bad or test delivery): one more look after a while, in case
    // the event outran the object, then the run closes NOT_FOUND (flagged) instead of waiting forever.
    if (result === null && run.unknownToService && patched(closesNotFoundPatch)) {
      await condition(() => inbox.hasPending(), notFoundRecheck);
      if (!inbox.hasPending()) {
        result = await steps.sync([]);
        if (result === null && run.unknownToService) return steps.closeNotFound();
      }
    }
    if (result === null) continue;

    if (run.isFinal(result, Date.now()) && !inbox.hasPending()) return steps.close(result);
    steps.inReturnWindow(result);

    if (workflowInfo().continueAsNewSuggested && !inbox.hasPending()) {
      await continueAsNew<typeof payment>({ paymentId: input.paymentId, seenEventIds: inbox.seenIds() });
    }
  }
}
