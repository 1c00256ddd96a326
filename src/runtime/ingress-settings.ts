import type { Settings } from '../config/settings.js';
import type { TrustProxy } from '../ingress/base-app.js';
import type { StartIngressOptions } from '../ingress/main.js';

/**
 * The ingress's options that every process running it (booksync start, booksync ingress) reads from the
 * settings alike: where it listens, the proxies it trusts, the task queue, the webhook checks and the
 * returned-check fee.
 */
export function ingressSettings(settings: Settings) {
  return {
    host: settings.INGRESS_HOST,
    port: settings.INGRESS_PORT,
    ...(settings.OPS_PORT !== undefined
      ? { operations: { host: settings.OPS_HOST, port: settings.OPS_PORT } }
      : {}),
    operatorRoutesOnWebhookListener: settings.OPERATOR_ROUTES_ON_WEBHOOK_LISTENER,
    taskQueue: settings.TEMPORAL_TASK_QUEUE,
    allowUnsigned: settings.WEBHOOK_ALLOW_UNSIGNED,
    toleranceSeconds: settings.WEBHOOK_TOLERANCE_SECONDS,
    returnedCheckFeeCents: settings.RETURNED_CHECK_FEE_CENTS,
    returnedCheckFeeSplit: settings.RETURNED_CHECK_FEE_SPLIT,
    ...(settings.TRUST_PROXY !== undefined ? { trustProxy: trustProxy(settings.TRUST_PROXY) } : {}),
  } satisfies Partial<StartIngressOptions>;
}

/** TRUST_PROXY as Fastify takes it: the proxies' addresses, or a number of hops counted from the connection. */
function trustProxy(setting: number | string[]): TrustProxy {
  return typeof setting === 'number' ? (_address: string, hop: number) => hop < setting : setting;
}
