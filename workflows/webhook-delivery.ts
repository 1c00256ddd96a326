import {
  ActivityFailure,
  ApplicationFailure,
  defineQuery,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type {
  AttemptOutcome,
  DeliverWebhookAttemptInput,
  DeliveryActivities,
} from '../src/emulator/webhooks/delivery-activities.js';

// The emulator's side of D32: one workflow delivers one event to one subscription. The emulator's worker
// bundles this file alone; booksync's worker (workflows/index.ts) never sees it.

/** The activity's input as is: the envelope is the exact body of every attempt; the secret stays out of history. */
export type WebhookDeliveryInput = DeliverWebhookAttemptInput;

export interface WebhookDeliveryResult {
  delivered: boolean;
  attempts: number;
}

export interface DeliveryState {
  /** Attempts this workflow knows of (the retries of one activity become visible when it resolves). */
  attempts: number;
  delivered: boolean;
  /** HTTP status of the last known attempt; null when none yet or no answer arrived. */
  lastStatus: number | null;
}

export const deliveryStateQuery = defineQuery<DeliveryState>('deliveryState');

/** 6.3: 3 s, 6 s, 12 s, 24 s between attempts, 5 attempts in all. */
export const maximumAttempts = 5;

/**
 * `webhook-delivery-{eventId}` for the account's API subscription (D32). The legacy subscription (6.1 rule 2)
 * receives the same event beside it, so it gets a suffix; so does each sandbox redelivery.
 */
export function webhookDeliveryWorkflowId(
  eventId: string,
  variant: { legacy?: boolean; redelivery?: number } = {},
): string {
  let id = `webhook-delivery-${eventId}`;
  if (variant.legacy) id += '-legacy';
  if (variant.redelivery !== undefined) id += `-redelivery-${variant.redelivery}`;
  return id;
}

const { deliverWebhookAttempt } = proxyActivities<DeliveryActivities>({
  // Each HTTP attempt gives up after 10 s; the rest is room for signing and recording.
  startToCloseTimeout: '15s',
  retry: { initialInterval: '3s', backoffCoefficient: 2, maximumAttempts, maximumInterval: '24s' },
});

/** Delivered on the first 2xx, or gives up after 5 attempts; never fails (a lost webhook is not an error). */
export async function webhookDelivery(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const state: DeliveryState = { attempts: 0, delivered: false, lastStatus: null };
  setHandler(deliveryStateQuery, () => state);

  try {
    const outcome = await deliverWebhookAttempt(input);
    Object.assign(state, { attempts: outcome.attempt, delivered: true, lastStatus: outcome.statusCode });
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    // The last attempt's outcome rides on its failure; a timed-out attempt carries none.
    const last =
      error.cause instanceof ApplicationFailure
        ? (error.cause.details?.[0] as AttemptOutcome | undefined)
        : undefined;
    state.attempts = last?.attempt ?? maximumAttempts;
    state.lastStatus = last?.statusCode ?? null;
  }
  return { delivered: state.delivered, attempts: state.attempts };
}
