import type { EventEnvelope } from '@booksync/service-contract/schemas/index';
import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/client';
import type { DeliveryTarget, WebhookDispatcher } from './dispatcher.js';
import { type WebhookDeliveryInput, webhookDelivery, webhookDeliveryWorkflowId } from './webhook-delivery.js';

export interface TemporalDispatcherOptions {
  client: Client;
  /** The emulator's delivery worker polls it (createDeliveryWorker). */
  taskQueue: string;
}

/** Far more redeliveries of one event than anyone asks a sandbox for; a bound, not a limit anyone meets. */
const maxRedeliveries = 1_000;

/**
 * The durable sender (decision “Webhook delivery”): each delivery is a `webhookDelivery` workflow, so its retries survive an emulator
 * restart. Starting is idempotent: the outbox may relay an event twice after a crash, and the second start
 * finds the first workflow (open or closed) and does nothing.
 */
export class TemporalDispatcher implements WebhookDispatcher {
  private readonly options: TemporalDispatcherOptions;
  constructor(options: TemporalDispatcherOptions) {
    this.options = options;
  }

  async dispatch(event: EventEnvelope, subscription: DeliveryTarget): Promise<void> {
    const id = webhookDeliveryWorkflowId(event.id, { legacy: subscription.secret === null });
    await this.start(id, deliveryInput(event, subscription));
  }

  /** A new workflow per redelivery: `...-redelivery-{n}`, the first n not taken. */
  async redeliver(event: EventEnvelope, subscription: DeliveryTarget, firstAttempt: number): Promise<void> {
    const input = { ...deliveryInput(event, subscription), firstAttempt };
    for (let n = 1; n <= maxRedeliveries; n++) {
      const id = webhookDeliveryWorkflowId(event.id, { legacy: subscription.secret === null, redelivery: n });
      if (await this.start(id, input)) return;
    }
    throw new Error(`event ${event.id} was redelivered ${maxRedeliveries} times already`);
  }

  /** False when a workflow of that id exists already. */
  private async start(workflowId: string, input: WebhookDeliveryInput): Promise<boolean> {
    try {
      await this.options.client.workflow.start(webhookDelivery, {
        workflowId,
        taskQueue: this.options.taskQueue,
        args: [input],
        // A closed delivery is not started again either: that one already happened.
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      });
      return true;
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) return false;
      throw error;
    }
  }
}

function deliveryInput(event: EventEnvelope, subscription: DeliveryTarget): WebhookDeliveryInput {
  return {
    eventId: event.id,
    envelope: JSON.stringify(event),
    subscriptionId: subscription.subscriptionId,
    url: subscription.url,
    signed: subscription.secret !== null,
  };
}
