import path from 'node:path';
import { seedDemo } from '@booksync/emulator/seed';
import { createEmulator, type Emulator } from '@booksync/emulator/server';
import { Store } from '@booksync/emulator/store/store';
import type { WebhookDispatcher } from '@booksync/emulator/webhooks/dispatcher';
import type { Logger } from '../logging/logger.js';
import {
  embeddedCredentialsPath,
  readEmbeddedCredentials,
  storeEmbeddedCredentials,
} from './embedded-credentials.js';

export interface EmbeddedEmulatorOptions {
  dataDir: string;
  host: string;
  port: number;
  adminToken: string;
  logger: Logger;
  dispatcher: (store: Store) => WebhookDispatcher;
}

/** The demo organization's keys (kept with the embedded credentials). */
export interface DemoCredentials {
  organizationId: string;
  /** Every permission: what the worker uses. */
  apiKey: string;
  /** REST access without permissions, for trying MISSING_PERMISSION. */
  limitedApiKey: string;
}

export interface RunningEmulator {
  baseUrl: string;
  credentials: DemoCredentials;
  /** The admin token it was started with: moving the sandbox clock takes it (the demo's month close). */
  adminToken: string;
  emulator: Emulator;
  close(): Promise<void>;
}

/**
 * The emulator inside booksync's process tree, on a SQLite file in the data folder. The demo organization
 * is seeded on first start; its keys are kept next to the data (mode 0600) because the emulator stores
 * only their hashes, and a restart must reuse them.
 */
export async function startEmbeddedEmulator(options: EmbeddedEmulatorOptions): Promise<RunningEmulator> {
  const dbPath = path.join(options.dataDir, 'emulator.db');
  const credentialsPath = embeddedCredentialsPath(options.dataDir);
  const store = new Store({ dbPath });
  let credentials: DemoCredentials;
  const stored = readEmbeddedCredentials(options.dataDir);
  if (stored?.organizationId && stored.apiKey && stored.limitedApiKey) {
    credentials = {
      organizationId: stored.organizationId,
      apiKey: stored.apiKey,
      limitedApiKey: stored.limitedApiKey,
    };
  } else {
    const organizations = store.db.prepare('SELECT COUNT(*) AS n FROM organizations').get() as { n: number };
    if (organizations.n > 0) {
      store.close();
      throw new Error(
        `${credentialsPath} is missing but ${dbPath} has data: restore the file, or delete both to start afresh`,
      );
    }
    const demo = seedDemo(store);
    credentials = {
      organizationId: demo.created.organization.id,
      apiKey: demo.apiKey,
      limitedApiKey: demo.limitedApiKey,
    };
    storeEmbeddedCredentials(options.dataDir, credentials);
  }

  const emulator = createEmulator({
    store,
    adminToken: options.adminToken,
    logger: options.logger.child({ component: 'emulator' }),
    dispatcher: options.dispatcher,
  });
  const baseUrl = await emulator.app.listen({ host: options.host, port: options.port });
  return {
    baseUrl,
    credentials,
    adminToken: options.adminToken,
    emulator,
    async close() {
      await emulator.app.close();
      store.close();
    },
  };
}
