import type { Client, Connection } from '@temporalio/client';
import type { Settings } from '../config/settings.js';
import { connectClient, temporalTarget } from '../runtime/temporal-connection.js';

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
