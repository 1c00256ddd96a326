import { log, proxyActivities, upsertMemo, upsertSearchAttributes } from '@temporalio/workflow';
import { serviceCallRetry } from '../../workflow-safe/retry-policy.js';
import {
  AmountCents,
  PaymentMethodType,
  ServiceObjectId,
  ServiceStatus,
  SyncState,
} from '../../workflow-safe/search-attributes.js';
import { attention, fetchOrFlag } from '../in-workflow/attention.js';
import type { ServiceEventSignal } from '../in-workflow/service-event.js';
import type { BillPaymentActivities, BillPaymentSyncResult } from './activities-contract.js';
import type { BillPaymentView } from './contract.js';
import type { BillPaymentRun } from './state.js';

/**
 * The named steps of a bill-payment run (src/flows/bill-payment/workflow.ts is the loop over them): the fetch that
 * books, the overdue check's report, and what the run shows in search attributes and memo. Each step keeps
 * its outcome in the run's state (src/flows/bill-payment/state.ts).
 */
export class BillPaymentSteps {
  readonly #activities = proxyActivities<BillPaymentActivities>({
    startToCloseTimeout: '30s',
    retry: serviceCallRetry,
  });

  private readonly run: BillPaymentRun;
  constructor(run: BillPaymentRun) {
    this.run = run;
  }

  get #billPaymentId(): string {
    return this.run.view.billPaymentId;
  }

  /** Fetches and books; null when it failed in a way retrying cannot fix (flagged for a person). */
  async sync(events: ServiceEventSignal[]): Promise<BillPaymentSyncResult | null> {
    const { view } = this.run;
    view.eventsHandled += events.length;
    const result = await fetchOrFlag(this.run, () =>
      this.#activities.syncBillPayment({
        billPaymentId: this.#billPaymentId,
        eventIds: events.map((e) => e.eventId),
      }),
    );
    if (result === null) {
      log.warn('bill payment sync failed', { billPaymentId: this.#billPaymentId, error: view.lastError });
      return null;
    }
    this.run.synced(result);
    return result;
  }

  /** State after a sync: the fetched state, or CHECK_OVERDUE once its window is over (reported once per kind). */
  async evaluate(): Promise<void> {
    const result = this.run.view.lastSync;
    if (!result) return;
    const overdue = this.run.evaluate(Date.now());
    if (overdue) {
      await this.#activities.reportOverdueCheck({
        billPaymentId: this.#billPaymentId,
        kind: overdue.kind,
        checkNumber: result.check?.checkNumber ?? null,
        since: overdue.since,
        deadline: overdue.deadline,
        windowDays: overdue.windowDays,
        amountCents: result.amountCents,
        vendorId: result.vendorId,
      });
      log.warn('check overdue', { billPaymentId: this.#billPaymentId, kind: overdue.kind });
    }
    this.publish();
  }

  /** SyncState, NeedsAttention and the fetched fields as search attributes; the check's details as memo. */
  publish(): void {
    const { view } = this.run;
    const result = view.lastSync;
    upsertSearchAttributes([
      { key: ServiceObjectId, value: this.#billPaymentId },
      { key: SyncState, value: view.state },
      ...attention(null, view.overdue !== null || view.lastError !== null),
      ...(result
        ? [
            { key: ServiceStatus, value: result.status },
            { key: AmountCents, value: result.amountCents },
            { key: PaymentMethodType, value: result.deliveryMethodType },
          ]
        : []),
    ]);
    upsertMemo({
      billId: result?.billId ?? null,
      vendorId: result?.vendorId ?? null,
      checkNumber: result?.check?.checkNumber ?? null,
      checkStatus: view.checkStatus,
      billStatus: view.billStatus,
      overdue: view.overdue,
    });
  }

  /** Nothing to book for an id the service does not know; the run stays listed (NeedsAttention). */
  closeNotFound(): BillPaymentView {
    this.run.close('NOT_FOUND', new Date().toISOString());
    this.publish();
    log.warn('bill payment unknown to the service', { billPaymentId: this.#billPaymentId });
    return this.run.view;
  }

  /** A terminal state is booked and no event waits. */
  close(): BillPaymentView {
    this.run.close(null, new Date().toISOString());
    log.info('bill payment closed', { billPaymentId: this.#billPaymentId, state: this.run.view.state });
    return this.run.view;
  }
}
