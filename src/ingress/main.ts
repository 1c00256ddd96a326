import { Client, Connection, type ConnectionOptions } from '@temporalio/client';
import type { Logger } from '../logging/logger.js';
import { createIngress, type IngressOptions } from './server.js';

export interface StartIngressOptions extends Omit<IngressOptions, 'temporalClient'> {
  /** Interface to listen on. Default 127.0.0.1; use 0.0.0.0 in a container. */
  host?: string;
  /** Port to listen on; 0 picks a free one. Default 0. */
  port?: number;
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
  /** Base URL, e.g. http://127.0.0.1:8081. */
  address: string;
  /** Stops accepting, lets in-flight deliveries finish (their signal included), then releases Temporal. */
  close(): Promise<void>;
}

/** Connects to Temporal, builds the ingress and listens. For the CLI and the supervised process tree. */
export async function startIngress(options: StartIngressOptions): Promise<RunningIngress> {
  const { host = '127.0.0.1', port = 0, temporal, ...ingressOptions } = options;
  let ownedConnection: Connection | undefined;
  let client: Client;
  if ('client' in temporal) {
    client = temporal.client;
  } else {
    ownedConnection = await Connection.connect({ ...temporal.connection, address: temporal.address });
    client = new Client({ connection: ownedConnection, namespace: temporal.namespace ?? 'default' });
  }

  let app: ReturnType<typeof createIngress>;
  let address: string;
  try {
    app = createIngress({ ...ingressOptions, temporalClient: client });
    address = await app.listen({ host, port });
  } catch (err) {
    await ownedConnection?.close();
    throw err;
  }
  options.logger.info({ address, taskQueue: options.taskQueue }, 'ingress listening');

  let closing: Promise<void> | undefined;
  return {
    address,
    close() {
      // Fastify's close stops the listener, answers 503 to new requests and waits for in-flight ones.
      closing ??= (async () => {
        await app.close();
        await ownedConnection?.close();
        options.logger.info({ address }, 'ingress closed');
      })();
      return closing;
    },
  };
}
