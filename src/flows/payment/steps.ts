import { log, patched, proxyActivities, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { serviceCallRetry } from '../../workflow-safe/retry-policy.js';
import {
  AmountCents,
  CustomerId,
  PaymentLinkId,
  PaymentMethodType,
  ReturnWindowEndsAt,
  ServiceObjectId,
  ServiceStatus,
  SyncState,
} from '../../workflow-safe/search-attributes.js';
import { fetchOrFlag, showLastError } from '../in-workflow/attention.js';
import type { ServiceEventSignal } from '../in-workflow/service-event.js';
import type { PaymentActivities, PaymentSyncResult } from './activities-contract.js';
import type { PaymentView } from './contract.js';
import type { PaymentRun } from './state.js';

/** Runs recorded before the triggering events' times were sent with the sync. */
const reversalDatedByEventPatch = 'payment-reversal-dated-by-event';

/**
 * The named steps of a payment run (src/flows/payment/workflow.ts is the loop over them): the fetch that books, what
 * the run shows in search attributes, and each way it closes. Each step keeps its outcome in the run's state
 * (src/flows/payment/state.ts).
 */
export class PaymentSteps {
  readonly #activities = proxyActivities<PaymentActivities>({
    startToCloseTimeout: '30s',
    retry: serviceCallRetry,
  });

  private readonly run: PaymentRun;
  constructor(run: PaymentRun) {
    this.run = run;
  }

  get #paymentId(): string {
    return this.run.view.paymentId;
  }

  /** Fetches and books; null when it failed in a way retrying cannot fix (flagged for a person). */
  async sync(events: ServiceEventSignal[]): Promise<PaymentSyncResult | null> {
    const { view } = this.run;
    view.eventsHandled += events.length;
    const result = await fetchOrFlag(this.run, () =>
      this.#activities.syncPayment({
        paymentId: this.#paymentId,
        eventIds: events.map((e) => e.eventId),
        workflowId: workflowInfo().workflowId,
        // The service's time of a return or cancellation dates its reversal, not the day it was synced.
        ...(patched(reversalDatedByEventPatch)
          ? { events: events.map(({ category, createdAt }) => ({ category, createdAt })) }
          : {}),
      }),
    );
    if (result === null) {
      log.warn('payment sync failed', { paymentId: this.#paymentId, error: view.lastError });
      return null;
    }
    this.run.synced(result);
    view.lastError = showLastError(view.lastError, null);
    this.publish(result);
    return result;
  }

  /** Booked, and more can still happen (an ACH return): the run waits in the return window. */
  inReturnWindow(result: PaymentSyncResult): void {
    this.run.view.state = 'IN_RETURN_WINDOW';
    this.publish(result);
  }

  /** Booked for good: RETURNED or CLOSED. */
  close(result: PaymentSyncResult): PaymentView {
    this.run.close(result, new Date().toISOString());
    this.publish(result);
    return this.run.view;
  }

  /** The window is over: one last look catches a return whose event never arrived. */
  async windowEnded(): Promise<PaymentView> {
    const last = await this.sync([]);
    this.run.close(last, new Date().toISOString());
    if (last) this.publish(last);
    log.info('ACH return window ended', { paymentId: this.#paymentId, status: last?.status });
    return this.run.view;
  }

  /** The service still does not know the payment: closed NOT_FOUND (flagged by the failed sync). */
  closeNotFound(): PaymentView {
    this.run.close(null, new Date().toISOString(), 'NOT_FOUND');
    upsertSearchAttributes([
      { key: ServiceObjectId, value: this.#paymentId },
      { key: SyncState, value: this.run.view.state },
    ]);
    log.warn('payment unknown to the service; closing', { paymentId: this.#paymentId });
    return this.run.view;
  }

  publish(result: PaymentSyncResult): void {
    const { view } = this.run;
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
}
