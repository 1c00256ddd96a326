import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { NativeConnection } from '@temporalio/worker';
import type { Logger } from '../../../src/logging/logger.js';
import {
  type RunningDevServer,
  startDevServer as startDevServerProcess,
} from '../../../src/runtime/temporal/dev-server.js';
import { freePort } from '../free-port.js';
import { startDevServer } from '../temporal.js';
import type { Closer } from './closer.js';

/**
 * Which Temporal the stack talks to: a test environment the caller started (and tears down), a dev server
 * of the stack's own (TestWorkflowEnvironment.createLocal, torn down with the stack), or 'process': the
 * CLI's dev server as booksync runs it, a process on a SQLite file in the stack's folder that stop() and
 * start() take down and bring back on the same port and file (outage tests).
 */
export type TemporalChoice = TestWorkflowEnvironment | 'dev-server' | 'process';

export interface TemporalPart {
  client: Client;
  namespace: string;
  /** The frontend, host:port (what a worker process is given). */
  address: string;
  /** The test environment, unless the choice was 'process'. */
  env: TestWorkflowEnvironment | undefined;
  /** The connection an in-process worker polls on. */
  nativeConnection(): Promise<NativeConnection>;
  /** The server's time (a time-skipping server's runs ahead). */
  currentTimeMs(): Promise<number>;
  /** 'process' only: the server goes down / comes back on the same port and file. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startTemporalPart(
  choice: TemporalChoice,
  context: { dir: string; closing: Closer; logger: Logger | undefined },
): Promise<TemporalPart> {
  if (choice === 'process') return startRestartable(context);
  const env = choice === 'dev-server' ? await startDevServer() : choice;
  if (choice === 'dev-server') context.closing.push(() => env.teardown());
  const notRestartable = async () => {
    throw new Error("only a 'process' Temporal stops and starts");
  };
  return {
    client: env.client,
    namespace: env.namespace ?? 'default',
    address: env.address,
    env,
    nativeConnection: async () => env.nativeConnection,
    currentTimeMs: () => env.currentTimeMs(),
    stop: notRestartable,
    start: notRestartable,
  };
}

async function startRestartable(context: {
  dir: string;
  closing: Closer;
  logger: Logger | undefined;
}): Promise<TemporalPart> {
  const { closing, logger } = context;
  if (!logger) throw new Error("a 'process' Temporal logs through the stack's logger");
  const port = await freePort();
  let server: RunningDevServer | null = null;
  const start = async () => {
    server = await startDevServerProcess({
      dbFile: path.join(context.dir, 'temporal.db'),
      port,
      uiPort: await freePort(),
      namespace: 'default',
      logger,
    });
  };
  const stop = async () => {
    const running = server;
    server = null;
    await running?.stop();
  };
  closing.push(stop);
  await start();
  const address = `127.0.0.1:${port}`;
  const connection = await Connection.connect({ address });
  closing.push(() => connection.close());
  let native: Promise<NativeConnection> | undefined;
  closing.push(async () => (await native)?.close());
  return {
    client: new Client({ connection }),
    namespace: 'default',
    address,
    env: undefined,
    nativeConnection: () => {
      native ??= NativeConnection.connect({ address });
      return native;
    },
    currentTimeMs: async () => Date.now(),
    stop,
    start,
  };
}
