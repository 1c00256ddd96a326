import { FetchedRun, freshCounters } from '../in-workflow/fetched-run.js';
import type { PaymentSyncResult } from './activities-contract.js';
import type { PaymentSyncState, PaymentView, PaymentWorkflowInput } from './contract.js';

/** Spec 6.5 / 8: an ACH payment can come back as payment.failed up to 60 days after payment.made. */
export const achReturnWindowDays = 60;
const dayMs = 24 * 60 * 60 * 1000;

/**
 * What a payment run holds between its loop and its steps: the view, and (FetchedRun) whether the service
 * has never known the payment. No workflow API here: the workflow (src/flows/payment/workflow.ts) does the waiting,
 * src/flows/payment/steps.ts the activity and the search attributes.
 */
export class PaymentRun extends FetchedRun<PaymentView> {
  constructor(input: PaymentWorkflowInput, now: string) {
    super({
      paymentId: input.paymentId,
      state: 'SYNCING',
      serviceStatus: null,
      methodType: null,
      returnWindowEndsAt: null,
      ...freshCounters(now),
    });
  }

  /** The payment as fetched; an ACH payment's return window runs from payment.made. */
  synced(result: PaymentSyncResult): void {
    const { view } = this;
    view.syncs++;
    view.lastSync = result;
    view.serviceStatus = result.status;
    view.methodType = result.methodType;
    if (result.methodType === 'ACH') {
      view.returnWindowEndsAt = new Date(
        Date.parse(result.madeAt) + achReturnWindowDays * dayMs,
      ).toISOString();
    }
  }

  /** When the ACH return window ends (epoch ms), or null when there is none to wait for. */
  get returnWindowEnd(): number | null {
    return this.view.returnWindowEndsAt ? Date.parse(this.view.returnWindowEndsAt) : null;
  }

  /** Nothing more can happen to it: failed (returned), not ACH, or its return window is over at `now`. */
  isFinal(result: PaymentSyncResult, now: number): boolean {
    const terminal = result.status === 'FAILED' || result.methodType !== 'ACH';
    const windowEnd = this.returnWindowEnd;
    return terminal || (windowEnd !== null && now >= windowEnd);
  }

  /** The run ends: RETURNED when the payment failed at the last look, else CLOSED (or as given). */
  close(last: PaymentSyncResult | null, at: string, state?: PaymentSyncState): void {
    this.view.state = state ?? (last?.status === 'FAILED' ? 'RETURNED' : 'CLOSED');
    this.view.closedAt = at;
  }
}
