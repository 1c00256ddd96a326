import { DEFAULT_TOLERANCE_SECONDS } from '@booksync/service-contract/webhook-signature';
import type { Client } from '@temporalio/client';
import { Registry } from 'prom-client';
import { bearerCheck, bearerThrottle } from '../command-api/bearer-auth.js';
import { commandRoutes } from '../command-api/routes.js';
import type { WriteOffSources } from '../command-api/write-off-routes.js';
import type { ConsoleOptions } from '../console/options.js';
import { consolePlugin } from '../console/plugin.js';
import type { ReturnedCheckFeeSplit } from '../flows/check-deposit/returned-check-fee.js';
import type { Logger } from '../logging/logger.js';
import { createBaseApp, type TrustProxy } from './base-app.js';
import { IngressError } from './errors.js';
import type { IngressApp } from './ingress-app.js';
import { createIngressMetrics } from './metrics.js';
import { type CodecRoutesOptions, codecRoutes } from './routes/codec.js';
import { healthRoutes } from './routes/health.js';
import { metricsRoutes } from './routes/metrics.js';
import { unroutedEventsRoutes } from './routes/unrouted-events.js';
import { webhookRoutes } from './routes/webhooks.js';
import { checkTemporal } from './temporal-signal.js';
import { UnroutedEvents } from './unrouted-events.js';

export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024;
export const DEFAULT_SIGNAL_TIMEOUT_MS = 5_000;
export const DEFAULT_READINESS_TIMEOUT_MS = 2_000;
/** A whole request (headers and body) must arrive within this; a slow-loris sender is cut off. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;
/** A socket idle this long is closed. */
export const DEFAULT_CONNECTION_TIMEOUT_MS = 60_000;

export interface IngressOptions {
  /** Client on the namespace the workflows run in. The ingress never closes it. */
  temporalClient: Client;
  /** Task queue the started workflows are scheduled on (the worker's). */
  taskQueue: string;
  /** Every webhook secret currently valid, whole `whsec_...` strings; several during rotation. */
  webhookSecrets: readonly string[];
  /** Accept deliveries with no Service-Signature header (legacy subscription, spec 6.1 rule 3). Default false. */
  allowUnsigned?: boolean;
  /** Allowed distance between the signature's t and now, both ways. Default 300 (spec 6.4). */
  toleranceSeconds?: number;
  /** Largest accepted delivery body. Default 64 KiB; larger answers 413. */
  bodyLimitBytes?: number;
  /** Upper bound on one signalWithStart, client retries included. Default 5 s (the sender waits 10 s). */
  signalTimeoutMs?: number;
  /**
   * Time to receive a whole request, headers and body. Default 15 s (a delivery is small and its sender gives
   * up after 10 s). Node enforces it on its connection check, every 30 s, so a cut can come up to 30 s late.
   */
  requestTimeoutMs?: number;
  /** Idle socket timeout. Default 60 s. */
  connectionTimeoutMs?: number;
  /**
   * TRUST_PROXY: the proxies in front whose X-Forwarded-For and X-Forwarded-Proto are believed, so a request's
   * address (the throttles', the console's audit log) is the client's. Default: none, the connection's address.
   */
  trustProxy?: TrustProxy;
  /** Bound on the default readiness probe. Default 2 s. */
  readinessTimeoutMs?: number;
  /** Replaces the default readiness probe (Temporal getSystemInfo); throw when not ready. */
  readinessCheck?: () => Promise<void>;
  /** Default: silent. Deliveries are logged with eventId, category, objectId, workflowId; never secrets. */
  logger?: Logger;
  /** Where the ingress metrics are registered. Default: a fresh registry per app, never the global one. */
  metricsRegistry?: Registry;
  /** Bearer key of the command API (`/commands/...`); the API is not served without one. */
  commandApiKey?: string;
  /** RETURNED_CHECK_FEE_CENTS, handed to the check-deposit workflows the command API starts. Default 0. */
  returnedCheckFeeCents?: number;
  /** RETURNED_CHECK_FEE_SPLIT, likewise. */
  returnedCheckFeeSplit?: ReturnedCheckFeeSplit;
  /**
   * PAYLOAD_KEYS: serve Temporal's codec protocol (/codec/decode, /codec/encode when asked) with the
   * operators' routes, for the Web UI (its origin answered by CORS) and the temporal CLI. Who may call it is
   * its own (`access`: CODEC_SERVER_TOKEN, or open on purpose), on whichever listener: never the command API
   * key, never open because of the listener (src/runtime/codec-server-options.ts). Omitted: not served.
   */
  codec?: CodecRoutesOptions;
  /** SQLite file binding the command API's Idempotency-Keys to their requests. Default: in memory. */
  commandKeysFile?: string;
  /** How long a command waits for its outcome before answering 202 with where to ask. Default 10 s. */
  commandAnswerWithinMs?: number;
  /**
   * The ledger's store and the service the command API's write-offs go through (a link's receivable given up:
   * recorded in the books, then the link lowered at the service). Omitted: a write-off answers 503.
   */
  writeOffs?: WriteOffSources;
  /**
   * The bookkeeper's console (/console, src/console/) with the operators' routes: its own sign-in (its
   * accounts' passwords, never the command API key), so it is served on a shared listener too. Omitted: not
   * served.
   */
  console?: ConsoleOptions;
}

/** The ingress split over two listeners (OPS_PORT): what the service reaches, and what only operators reach. */
export interface IngressApps {
  /** POST /webhooks/service, /healthz and /readyz: the only routes the public listener serves. */
  public: IngressApp;
  /** The command API, /metrics, /events/unrouted, /healthz and /readyz. */
  operations: IngressApp;
}

/**
 * Builds the webhook ingress as one Fastify app serving every route, not listening yet (the caller chooses
 * `listen` or `inject`). Throws on a configuration that could accept nothing. That one listener is the one
 * the payment service reaches, so /metrics and /events/unrouted answer there only with the command API's
 * bearer key (and to nobody without one); createIngressApps serves them openly on a private listener.
 */
export function createIngress(options: IngressOptions): IngressApp {
  const parts = ingressParts(options);
  const app = createBaseApp(parts.base);
  registerPublicRoutes(app, parts);
  registerOperationsRoutes(app, parts, { shared: true });
  return app;
}

/**
 * The same ingress as two apps sharing metrics and the unrouted events, for two listeners: the webhook route
 * can face the internet while the command API and the operators' endpoints stay on a private address.
 */
export function createIngressApps(options: IngressOptions): IngressApps {
  const parts = ingressParts(options);
  const publicApp = createBaseApp(parts.base);
  registerPublicRoutes(publicApp, parts);
  publicApp.register(healthRoutes, { readinessCheck: parts.readinessCheck });
  const operations = createBaseApp(parts.base);
  registerOperationsRoutes(operations, parts);
  return { public: publicApp, operations };
}

type IngressParts = ReturnType<typeof ingressParts>;

function ingressParts(options: IngressOptions) {
  const secrets = [...options.webhookSecrets];
  const allowUnsigned = options.allowUnsigned ?? false;
  if (secrets.some((secret) => secret.length === 0)) throw new Error('webhook secrets must be non-empty');
  if (secrets.length === 0 && !allowUnsigned) {
    throw new Error(
      'no webhook secret configured and unsigned deliveries not allowed: every delivery would fail',
    );
  }
  const bodyLimitBytes = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const registry = options.metricsRegistry ?? new Registry();
  const metrics = createIngressMetrics(registry);
  const readinessTimeoutMs = options.readinessTimeoutMs ?? DEFAULT_READINESS_TIMEOUT_MS;
  return {
    options,
    secrets,
    allowUnsigned,
    bodyLimitBytes,
    registry,
    metrics,
    unrouted: new UnroutedEvents(),
    /** Wrong command API keys per address, on every route that asks for it (both listeners). */
    bearerThrottle: bearerThrottle(options.logger),
    signalTimeoutMs: options.signalTimeoutMs ?? DEFAULT_SIGNAL_TIMEOUT_MS,
    readinessCheck:
      options.readinessCheck ?? (() => checkTemporal(options.temporalClient, readinessTimeoutMs)),
    base: {
      ...(options.logger ? { logger: options.logger } : {}),
      bodyLimitBytes,
      requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      connectionTimeoutMs: options.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS,
      metrics,
      ...(options.trustProxy !== undefined ? { trustProxy: options.trustProxy } : {}),
    },
  };
}

function registerPublicRoutes(app: IngressApp, parts: IngressParts): void {
  app.register(webhookRoutes, {
    temporalClient: parts.options.temporalClient,
    taskQueue: parts.options.taskQueue,
    authentication: {
      secrets: parts.secrets,
      allowUnsigned: parts.allowUnsigned,
      toleranceSeconds: parts.options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
    },
    bodyLimitBytes: parts.bodyLimitBytes,
    signalTimeoutMs: parts.signalTimeoutMs,
    metrics: parts.metrics,
    unrouted: parts.unrouted,
  });
}

/**
 * The operators' routes. `shared`: on the public listener, where /metrics and /events/unrouted (what arrives,
 * what fails, the business's event ids) require the command API key; on the operations listener (OPS_PORT,
 * a private address) they stay open to Prometheus.
 */
function registerOperationsRoutes(app: IngressApp, parts: IngressParts, { shared = false } = {}): void {
  const { options } = parts;
  if (options.commandApiKey !== undefined) {
    app.register(commandRoutes, {
      temporalClient: options.temporalClient,
      taskQueue: options.taskQueue,
      apiKey: options.commandApiKey,
      bearerThrottle: parts.bearerThrottle,
      signalTimeoutMs: parts.signalTimeoutMs,
      ...(options.returnedCheckFeeCents ? { returnedCheckFeeCents: options.returnedCheckFeeCents } : {}),
      ...(options.returnedCheckFeeSplit ? { returnedCheckFeeSplit: options.returnedCheckFeeSplit } : {}),
      ...(options.commandKeysFile ? { commandKeysFile: options.commandKeysFile } : {}),
      ...(options.commandAnswerWithinMs ? { answerWithinMs: options.commandAnswerWithinMs } : {}),
      ...(options.writeOffs ? { writeOffs: options.writeOffs } : {}),
    });
  }
  if (options.console) {
    app.register(consolePlugin, {
      ...options.console,
      temporalClient: options.temporalClient,
      taskQueue: options.taskQueue,
    });
  }
  app.register(healthRoutes, { readinessCheck: parts.readinessCheck });
  app.register(async (scope) => {
    if (shared) scope.addHook('onRequest', operationsKeyCheck(options.commandApiKey, parts));
    await scope.register(unroutedEventsRoutes, { unrouted: parts.unrouted });
    await scope.register(metricsRoutes, { registry: parts.registry });
  });
  // The codec server checks its own callers (its token, or open on purpose), on a shared listener too.
  if (options.codec) app.register(codecRoutes, options.codec);
}

/**
 * The bearer check of the operators' routes on a shared listener: the command API key, its wrong keys counted
 * with the command API's.
 */
function operationsKeyCheck(apiKey: string | undefined, parts: IngressParts) {
  if (apiKey === undefined) {
    return async () => {
      throw new IngressError(
        401,
        'unauthorized',
        'not served on the public listener without COMMAND_API_KEY: set OPS_PORT (a private listener) or COMMAND_API_KEY',
      );
    };
  }
  return bearerCheck(apiKey, parts.bearerThrottle, 'missing bearer key (the command API key)');
}
