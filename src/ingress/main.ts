import { Client, Connection, type ConnectionOptions } from '@temporalio/client';
import type { Logger } from '../logging/logger.js';
import { isLoopback } from '../runtime/codec-server-options.js';
import { activeTracing } from '../telemetry/tracing.js';
import type { IngressApp } from './ingress-app.js';
import { createIngress, createIngressApps, type IngressOptions } from './server.js';

export interface StartIngressOptions extends Omit<IngressOptions, 'temporalClient'> {
  /** Interface to listen on. Default 127.0.0.1; use 0.0.0.0 in a container. */
  host?: string;
  /** Port to listen on; 0 picks a free one. Default 0. */
  port?: number;
  /**
   * A second listener for the command API, /metrics and /events/unrouted (OPS_HOST, OPS_PORT); the first then
   * serves only the webhook route and health. Omitted: one listener serves everything, /metrics and
   * /events/unrouted with the command API key only (createIngress).
   */
  operations?: { host?: string; port: number };
  /**
   * Without `operations`, a listener that is not loopback (the one the internet reaches) serves the console and
   * the command API only when this says so on purpose (OPERATOR_ROUTES_ON_WEBHOOK_LISTENER); else start-up fails.
   */
  operatorRoutesOnWebhookListener?: boolean;
  /**
   * Temporal to signal: either an existing client (left open on close) or how to connect (the connection is
   * opened here and closed by close()).
   */
  temporal:
    | { client: Client }
    | { address: string; namespace?: string; connection?: Omit<ConnectionOptions, 'address'> };
  logger: Logger;
}

export interface RunningIngress {
  /** Base URL of the webhook listener, e.g. http://127.0.0.1:8081. */
  address: string;
  /** Base URL of the command API and operators' endpoints: the operations listener, or `address`. */
  operationsAddress: string;
  /** Stops accepting, lets in-flight deliveries finish (their signal included), then releases Temporal. */
  close(): Promise<void>;
}

/** Connects to Temporal, builds the ingress and listens. For the CLI and the supervised process tree. */
export async function startIngress(options: StartIngressOptions): Promise<RunningIngress> {
  const {
    host = '127.0.0.1',
    port = 0,
    operations,
    operatorRoutesOnWebhookListener = false,
    temporal,
    ...ingressOptions
  } = options;
  const operatorRoutes = ingressOptions.commandApiKey !== undefined || ingressOptions.console !== undefined;
  if (!operations && operatorRoutes && !isLoopback(host) && !operatorRoutesOnWebhookListener) {
    throw new Error(
      `INGRESS_HOST=${host} is not loopback and OPS_PORT is unset: the console and command API would share the webhook listener; set OPS_PORT (a private operations listener), or OPERATOR_ROUTES_ON_WEBHOOK_LISTENER=true to serve them there on purpose`,
    );
  }
  let ownedConnection: Connection | undefined;
  let client: Client;
  if ('client' in temporal) {
    client = temporal.client;
  } else {
    ownedConnection = await Connection.connect({ ...temporal.connection, address: temporal.address });
    const tracing = activeTracing();
    client = new Client({
      connection: ownedConnection,
      namespace: temporal.namespace ?? 'default',
      ...(tracing ? { interceptors: tracing.clientInterceptors } : {}),
    });
  }

  // Closed in this order: intake first, so no delivery arrives while the operators' side goes away.
  const apps: IngressApp[] = [];
  let address: string;
  let operationsAddress: string;
  try {
    if (operations) {
      const split = createIngressApps({ ...ingressOptions, temporalClient: client });
      apps.push(split.public, split.operations);
      address = await split.public.listen({ host, port });
      operationsAddress = await split.operations.listen({
        host: operations.host ?? '127.0.0.1',
        port: operations.port,
      });
    } else {
      const app = createIngress({ ...ingressOptions, temporalClient: client });
      apps.push(app);
      address = await app.listen({ host, port });
      operationsAddress = address;
    }
  } catch (err) {
    await Promise.all(apps.map((app) => app.close()));
    await ownedConnection?.close();
    throw err;
  }
  options.logger.info({ address, operationsAddress, taskQueue: options.taskQueue }, 'ingress listening');
  if (!operations) {
    // One listener, the one the service reaches: the operators' endpoints there take the command API key.
    options.logger[ingressOptions.commandApiKey === undefined ? 'warn' : 'info'](
      { address },
      ingressOptions.commandApiKey === undefined
        ? '/metrics and /events/unrouted are not served: set OPS_PORT for a private operations listener, or COMMAND_API_KEY'
        : '/metrics and /events/unrouted answer with the command API key only on this public listener; OPS_PORT serves them privately',
    );
  }

  let closing: Promise<void> | undefined;
  return {
    address,
    operationsAddress,
    close() {
      // Fastify's close stops the listener, answers 503 to new requests and waits for in-flight ones.
      closing ??= (async () => {
        for (const app of apps) await app.close();
        await ownedConnection?.close();
        options.logger.info({ address, operationsAddress }, 'ingress closed');
      })();
      return closing;
    },
  };
}
