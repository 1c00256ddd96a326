import { afterAll } from 'vitest';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { PostgresLedger } from '../../src/ledger/postgres-ledger.js';
import type { StoredLedger } from '../../src/runtime/ledger-store.js';
import type { PostgresCluster } from '../support/postgres.js';
import { sharedPostgres } from '../support/shared-postgres.js';

// The ledger contract runs on both stores: `describe.each(ledgerStores())('$name ledger', (store) => ...)`.
// SQLite: an in-memory ledger per open(). PostgreSQL: one throwaway cluster per test file (started at the
// first open), a fresh database per open(), created from a template migrated once.

export interface TestLedger extends StoredLedger {
  close(): Promise<void> | void;
}

export interface LedgerStoreCase {
  name: 'sqlite' | 'postgres';
  open(options?: { now?: () => Date }): Promise<TestLedger>;
}

export interface PostgresStoreCase extends LedgerStoreCase {
  name: 'postgres';
  /** The cluster, started if need be. */
  cluster(): Promise<PostgresCluster>;
  /** A fresh, migrated database: its url. */
  freshDatabase(): Promise<{ url: string; database: string }>;
}

export const sqliteStore: LedgerStoreCase = {
  name: 'sqlite',
  async open(options = {}) {
    return EmbeddedLedger.open(options);
  },
};

/** Registers an afterAll that stops the cluster; call at a test file's top level. */
export function postgresStore(): PostgresStoreCase {
  let started: Promise<PostgresCluster> | null = null;
  let template: Promise<void> | null = null;
  let databases = 0;
  afterAll(async () => {
    if (started) await (await started).stop();
  });
  const cluster = () => {
    started ??= sharedPostgres({ name: 'ledger' });
    return started;
  };
  const freshDatabase = async () => {
    const pg = await cluster();
    template ??= (async () => {
      const url = await pg.createDatabase('ledger_template');
      await (await PostgresLedger.open({ url })).close();
    })();
    await template;
    const url = await pg.createDatabase(`ledger_${++databases}`, { template: 'ledger_template' });
    return { url, database: new URL(url).pathname.slice(1) };
  };
  return {
    name: 'postgres',
    cluster,
    freshDatabase,
    async open(options = {}) {
      const { url } = await freshDatabase();
      return PostgresLedger.open({ url, ...options });
    },
  };
}

export function ledgerStores(): LedgerStoreCase[] {
  return [sqliteStore, postgresStore()];
}
