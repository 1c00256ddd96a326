import { setTimeout as sleep } from 'node:timers/promises';
import { type Client, type Connection, WorkflowFailedError } from '@temporalio/client';
import type { Settings } from '../config/settings.js';
import { connectClient, temporalTarget } from '../runtime/temporal/temporal-connection.js';
import { CommandError } from './command.js';

/** A client of the Temporal the settings name: TEMPORAL_ADDRESS, else the dev server on TEMPORAL_DEV_PORT. */
export function connectCliClient(settings: Settings): Promise<{ client: Client; connection: Connection }> {
  const address = settings.TEMPORAL_ADDRESS ?? `127.0.0.1:${settings.TEMPORAL_DEV_PORT}`;
  return connectClient(temporalTarget(settings, address));
}

/** Runs `use` with a client of that Temporal, closing its connection after. */
export async function withTemporalClient<T>(
  settings: Settings,
  use: (client: Client) => Promise<T>,
): Promise<T> {
  const { client, connection } = await connectCliClient(settings);
  try {
    return await use(client);
  } finally {
    await connection.close();
  }
}

/**
 * Runs `type` under `workflowId` and waits up to `timeoutSeconds` for its result. One already running under
 * that id is joined rather than duplicated; a finished one is run afresh. A workflow failure refuses the
 * command (`<command>: ...`) in the activity's own words.
 */
export async function runWorkflow<T>(
  client: Client,
  command: string,
  options: { type: string; workflowId: string; args: unknown[]; taskQueue: string; timeoutSeconds: number },
): Promise<T> {
  const handle = await client.workflow.start(options.type, {
    workflowId: options.workflowId,
    taskQueue: options.taskQueue,
    args: options.args,
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  return Promise.race([
    handle.result().catch((error: unknown) => {
      throw error instanceof WorkflowFailedError
        ? new CommandError(`${command}: ${rootCause(error)}`)
        : error;
    }) as Promise<T>,
    sleep(options.timeoutSeconds * 1000).then(() => {
      throw new CommandError(`${command}: ${options.workflowId} is still running (see the Temporal UI)`);
    }),
  ]);
}

/** The innermost message of a workflow failure (the activity's own words, e.g. a 404 from the service). */
function rootCause(error: Error): string {
  let current: Error = error;
  while (current.cause instanceof Error) current = current.cause;
  return current.message;
}
