import { ApplicationFailure } from '@temporalio/common';
import {
  ActivityFailure,
  condition,
  continueAsNew,
  log,
  patched,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { PaymentActivities, PaymentSyncResult } from '../activities/payment-contract.js';
import { serviceCallRetry } from '../src/workflow-safe/retry-policy.js';
import {
  AmountCents,
  CustomerId,
  PaymentLinkId,
  PaymentMethodType,
  ReturnWindowEndsAt,
  ServiceObjectId,
  ServiceStatus,
  SyncState,
} from '../src/workflow-safe/search-attributes.js';
import { attention, showLastError } from './attention.js';
import { type PaymentView, type PaymentWorkflowInput, paymentViewQuery } from './payment-contract.js';
import { listenForServiceEvents, type ServiceEventSignal } from './service-event.js';

/** Spec 6.5 / 8: an ACH payment can come back as payment.failed up to 60 days after payment.made. */
export const achReturnWindowDays = 60;
const dayMs = 24 * 60 * 60 * 1000;
/** An id the service answers 404 for is looked at once more after this, then the run closes NOT_FOUND. */
const notFoundRecheck = '10 minutes';

/**
 * Mirrors one payment into the books. Every payment.* event makes it fetch the payment and book the
 * difference (payment received, absorbed card fee, refunds, voids, ACH return, returned refund credit).
 * Card and balance payments close once booked; ACH payments stay open on a durable timer for the 60-day
 * return window from payment.made, then close as final. A later event starts a fresh run, which books
 * only what is missing.
 */
export async function payment(input: PaymentWorkflowInput): Promise<PaymentView> {
  const { syncPayment } = proxyActivities<PaymentActivities>({
    startToCloseTimeout: '30s',
    retry: serviceCallRetry,
  });

  const view: PaymentView = {
    paymentId: input.paymentId,
    state: 'SYNCING',
    serviceStatus: null,
    methodType: null,
    returnWindowEndsAt: null,
    openedAt: new Date().toISOString(),
    closedAt: null,
    eventsHandled: 0,
    duplicatesDropped: 0,
    syncs: 0,
    lastSync: null,
    lastError: null,
  };

  const inbox = listenForServiceEvents(input.seenEventIds, {
    onDuplicate: () => {
      view.duplicatesDropped++;
    },
  });
  setHandler(paymentViewQuery, () => view);

  let notFound = false;
  /** Fetches and books; null when it failed in a way retrying cannot fix (flagged for a person). */
  const sync = async (events: ServiceEventSignal[]): Promise<PaymentSyncResult | null> => {
    view.eventsHandled += events.length;
    let result: PaymentSyncResult;
    try {
      result = await syncPayment({
        paymentId: input.paymentId,
        eventIds: events.map((e) => e.eventId),
        workflowId: workflowInfo().workflowId,
      });
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      view.lastError = error.cause?.message ?? error.message;
      notFound = error.cause instanceof ApplicationFailure && error.cause.type === 'ServiceNotFoundError';
      upsertSearchAttributes(attention(view.lastError));
      log.warn('payment sync failed', { paymentId: input.paymentId, error: view.lastError });
      return null;
    }
    notFound = false;
    view.syncs++;
    view.lastSync = result;
    view.serviceStatus = result.status;
    view.methodType = result.methodType;
    if (result.methodType === 'ACH') {
      view.returnWindowEndsAt = new Date(
        Date.parse(result.madeAt) + achReturnWindowDays * dayMs,
      ).toISOString();
    }
    view.lastError = showLastError(view.lastError, null);
    publish(view, result);
    return result;
  };

  if (input.syncOnStart) {
    // Started without an event (reconciliation booked the payment): settle its state as an event would.
    const first = await sync([]);
    if (first && (first.status === 'FAILED' || first.methodType !== 'ACH')) {
      view.state = first.status === 'FAILED' ? 'RETURNED' : 'CLOSED';
      view.closedAt = new Date().toISOString();
      publish(view, first);
      return view;
    }
    if (first) {
      view.state = 'IN_RETURN_WINDOW';
      publish(view, first);
    }
  }

  for (;;) {
    // Wait for events; an ACH payment inside its window also wakes when the window ends.
    const windowEnd = view.returnWindowEndsAt ? Date.parse(view.returnWindowEndsAt) : null;
    let woken = true;
    if (windowEnd === null) await condition(() => inbox.hasPending());
    else woken = await condition(() => inbox.hasPending(), Math.max(0, windowEnd - Date.now()));

    if (!woken) {
      // The window is over: one last look catches a return whose event never arrived.
      const last = await sync([]);
      view.state = last?.status === 'FAILED' ? 'RETURNED' : 'CLOSED';
      view.closedAt = new Date().toISOString();
      if (last) publish(view, last);
      log.info('ACH return window ended', { paymentId: input.paymentId, status: last?.status });
      return view;
    }

    const events = inbox.take();
    let result = await sync(events);
    // A payment the service has never shown (a bad or test delivery): one more look after a while, in case
    // the event outran the object, then the run closes NOT_FOUND (flagged) instead of waiting forever.
    if (result === null && notFound && view.lastSync === null && patched('payment-closes-not-found')) {
      await condition(() => inbox.hasPending(), notFoundRecheck);
      if (!inbox.hasPending()) {
        result = await sync([]);
        if (result === null && notFound) {
          view.state = 'NOT_FOUND';
          view.closedAt = new Date().toISOString();
          upsertSearchAttributes([
            { key: ServiceObjectId, value: input.paymentId },
            { key: SyncState, value: view.state },
          ]);
          log.warn('payment unknown to the service; closing', { paymentId: input.paymentId });
          return view;
        }
      }
    }
    if (result === null) continue;

    const terminal = result.status === 'FAILED' || result.methodType !== 'ACH';
    const windowOver = view.returnWindowEndsAt !== null && Date.now() >= Date.parse(view.returnWindowEndsAt);
    if ((terminal || windowOver) && !inbox.hasPending()) {
      view.state = result.status === 'FAILED' ? 'RETURNED' : 'CLOSED';
      view.closedAt = new Date().toISOString();
      publish(view, result);
      return view;
    }
    view.state = 'IN_RETURN_WINDOW';
    publish(view, result);

    if (workflowInfo().continueAsNewSuggested && !inbox.hasPending()) {
      await continueAsNew<typeof payment>({ paymentId: input.paymentId, seenEventIds: inbox.seenIds() });
    }
  }
}

function publish(view: PaymentView, result: PaymentSyncResult): void {
  upsertSearchAttributes([
    { key: ServiceObjectId, value: result.paymentId },
    { key: SyncState, value: view.state },
    { key: ServiceStatus, value: result.status },
    { key: AmountCents, value: result.amountInCents },
    ...(result.methodType ? [{ key: PaymentMethodType, value: result.methodType }] : []),
    ...(result.paymentLinkId ? [{ key: PaymentLinkId, value: result.paymentLinkId }] : []),
    ...(result.customerId ? [{ key: CustomerId, value: result.customerId }] : []),
    ...(view.returnWindowEndsAt
      ? [{ key: ReturnWindowEndsAt, value: new Date(view.returnWindowEndsAt) }]
      : []),
  ]);
}
