import type {
  PaymentActivities,
  PaymentSyncResult,
  SyncPaymentInput,
} from '../../../src/flows/payment/activities-contract.js';

/**
 * A payment activity that answers from a script instead of the service: these workflow tests check the
 * workflow's own logic (signals, dedup, timers, closing). End-to-end tests run the real activities.
 */
export function scriptedPaymentActivity(initial: Omit<PaymentSyncResult, 'posted' | 'reversed'>) {
  const state = { current: { ...initial }, calls: [] as SyncPaymentInput[] };
  const activities: PaymentActivities = {
    async syncPayment(input) {
      state.calls.push(input);
      return { ...state.current, posted: [], reversed: [] };
    },
  };
  return { activities, state };
}
