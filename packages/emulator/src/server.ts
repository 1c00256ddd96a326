import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { ServiceError } from '@booksync/service-contract/errors';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { ADMIN_PATHS, authenticateApiKey } from './auth/authenticate.js';
import { undispatchedEvents } from './domain/events.js';
import { EmulatorHttpError } from './errors.js';
import { type Logger, silentLogger } from './logger.js';
import { customerRoutes } from './routes/customers.js';
import type { RouteDeps } from './routes/deps.js';
import { fileRoutes } from './routes/files.js';
import { HEALTH_PATHS, healthRoutes } from './routes/health.js';
import { paymentLinkRoutes } from './routes/payment-links.js';
import { paymentRoutes } from './routes/payments.js';
import { serviceBankingRoutes } from './routes/service-banking.js';
import { vendorRoutes } from './routes/vendors.js';
import { webhookRoutes } from './routes/webhooks.js';
import { sandboxBankingRoutes } from './sandbox/banking-routes.js';
import { sandboxControlRoutes } from './sandbox/control-routes.js';
import { sandboxEventRoutes } from './sandbox/event-routes.js';
import { FaultInjector } from './sandbox/faults.js';
import { sandboxMoneyRoutes } from './sandbox/money-routes.js';
import { organizationRoutes } from './sandbox/organization-routes.js';
import { sandboxPayablesRoutes } from './sandbox/payables-routes.js';
import type { TimeSource } from './store/clock.js';
import { Store } from './store/store.js';
import type { WebhookDispatcher } from './webhooks/dispatcher.js';
import { OutboxRelay } from './webhooks/outbox-relay.js';
import { RecordingDispatcher } from './webhooks/recording-dispatcher.js';

export interface EmulatorOptions {
  /** SQLite file, or ':memory:' (default). Ignored when `store` is given. */
  dbPath?: string;
  /** An already opened store (for a dispatcher that must record into it). */
  store?: Store;
  /** Bearer token of the admin paths (organizations, clock moves); default env EMULATOR_ADMIN_TOKEN. */
  adminToken?: string;
  /** Where events go after commit; a factory receives the store. Default: RecordingDispatcher. */
  dispatcher?: WebhookDispatcher | ((store: Store) => WebhookDispatcher);
  logger?: Logger;
  /** Base time source in unix ms (default Date.now); the sandbox clock offset is added on top. */
  clock?: TimeSource;
  /** Fault injection randomness (tests pin it). */
  random?: () => number;
  /** Per-request timeout in ms (default 30 s). */
  requestTimeoutMs?: number;
}

export type EmulatorApp = FastifyInstance<Server, IncomingMessage, ServerResponse, Logger>;

export interface Emulator {
  app: EmulatorApp;
  store: Store;
  dispatcher: WebhookDispatcher;
  faults: FaultInjector;
}

const jsonBodyLimit = 1024 * 1024;

export function createEmulator(options: EmulatorOptions = {}): Emulator {
  const store =
    options.store ??
    new Store({ dbPath: options.dbPath ?? ':memory:', ...(options.clock ? { time: options.clock } : {}) });
  const logger = options.logger ?? silentLogger;
  const dispatcher =
    typeof options.dispatcher === 'function'
      ? options.dispatcher(store)
      : (options.dispatcher ?? new RecordingDispatcher());
  const relay = new OutboxRelay(store, dispatcher, logger);
  store.onCommit((events) => relay.relay(events));
  const faults = new FaultInjector(options.random);
  const deps: RouteDeps = {
    store,
    logger,
    relay,
    faults,
    adminToken: options.adminToken ?? process.env.EMULATOR_ADMIN_TOKEN,
  };

  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: jsonBodyLimit,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    connectionTimeout: 60_000,
  });
  app.decorateRequest('principal', null);
  app.register(multipart);

  const apiKeyAuth = authenticateApiKey(store);
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    // Admin paths have their own token (decision “Sandbox controls”, E17); probes need none.
    if (ADMIN_PATHS.has(path) || HEALTH_PATHS.has(path)) return;
    await apiKeyAuth(request, reply);
    if (!path.startsWith('/sandbox/') && request.principal)
      await faults.before(request.principal.org.id, request, reply);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (faults.isDropped(request)) reply.raw.destroy();
    return payload;
  });

  app.setErrorHandler((error: FastifyError | Error, request, reply) => {
    if (error instanceof EmulatorHttpError) {
      return reply
        .code(error.statusCode)
        .send(error.code ? { error: error.message, code: error.code } : { error: error.message });
    }
    if (error instanceof ServiceError && error.status !== undefined) {
      return reply
        .code(error.status)
        .send(error.code ? { error: error.message, code: error.code } : { error: error.message });
    }
    const status = 'statusCode' in error && typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status >= 400 && status < 500) return reply.code(status).send({ error: error.message });
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({ error: 'internal error' });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: `no route ${request.method} ${request.url.split('?')[0]}` }),
  );

  for (const routes of [
    healthRoutes,
    paymentLinkRoutes,
    customerRoutes,
    paymentRoutes,
    serviceBankingRoutes,
    fileRoutes,
    vendorRoutes,
    webhookRoutes,
    organizationRoutes,
    sandboxMoneyRoutes,
    sandboxBankingRoutes,
    sandboxEventRoutes,
    sandboxControlRoutes,
    sandboxPayablesRoutes,
  ]) {
    app.register(async (scope) => routes(scope, deps));
  }

  // Outbox rows a crash left between commit and dispatch go out once the server is ready.
  app.addHook('onReady', async () => {
    const pending = store.read((reader) => undispatchedEvents(reader));
    if (pending.length > 0) relay.relay(pending);
  });
  app.addHook('onClose', async () => {
    if (!options.store) store.close();
  });

  return { app, store, dispatcher, faults };
}
