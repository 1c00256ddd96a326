// The emulator's public surface.

export { type FaultConfig, FaultInjector, type FaultKind } from './sandbox/faults.js';
export { type DemoSeed, seedDemo } from './seed.js';
export { createEmulator, type Emulator, type EmulatorApp, type EmulatorOptions } from './server.js';
export { type EventRow, openStore, Store } from './store/store.js';
export {
  type AttemptOutcome,
  createDeliveryActivities,
  type DeliverWebhookAttemptInput,
  type DeliveryActivities,
  type DeliveryActivitiesOptions,
} from './webhooks/delivery-activities.js';
export {
  attemptDelivery,
  buildSignedDelivery,
  type DeliveryAttempt,
  nextAttemptNumber,
  recordDeliveryAttempt,
} from './webhooks/delivery-attempt.js';
export {
  createDeliveryWorker,
  type DeliveryWorkerOptions,
  defaultDeliveryTaskQueue,
  deliveryWorkflowsPath,
} from './webhooks/delivery-worker.js';
export { DirectHttpDispatcher, defaultBackoffMs } from './webhooks/direct-http-dispatcher.js';
export type { DeliveryTarget, WebhookDispatcher } from './webhooks/dispatcher.js';
export { eventEnvelope } from './webhooks/envelope.js';
export { RecordingDispatcher } from './webhooks/recording-dispatcher.js';
export { TemporalDispatcher, type TemporalDispatcherOptions } from './webhooks/temporal-dispatcher.js';
