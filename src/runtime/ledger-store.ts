import type { Settings } from '../config/settings.js';
import { SqliteTargetIndex, type TargetIndexStore } from '../flows/push/target-index.js';
import { EmbeddedLedger } from '../ledger/embedded-ledger.js';
import type { LedgerPort } from '../ledger/ledger-port.js';
import { type ReportStore, SqliteReportStore } from '../ledger/report-store.js';
import type { Logger } from '../logging/logger.js';

// The one place that picks where the books live: LEDGER_URL (postgres:// or postgresql://) is the ledger on
// PostgreSQL; unset, the embedded SQLite file LEDGER_DB. Either way the accounting targets' index lives in the
// same store, beside the entries it indexes, and so do the reports workflow results only summarize.

/** The ledger a store holds: the whole port (bulk posting and the full read are part of it). */
export type StoredLedger = LedgerPort;

export interface LedgerStore {
  kind: 'sqlite' | 'postgres';
  ledger: StoredLedger;
  targetIndex: TargetIndexStore;
  /** Reports kept whole (certificates, payout period reports) that workflow results only summarize. */
  reports: ReportStore;
  /** Where the books are, for people: the SQLite file, or the url without its password. */
  location: string;
  close(): Promise<void>;
}

export async function openLedgerStore(
  settings: Pick<Settings, 'LEDGER_URL' | 'ledgerDb'>,
  logger?: Logger,
): Promise<LedgerStore> {
  const url = settings.LEDGER_URL;
  if (url !== undefined) {
    // PostgreSQL's modules (and the pg driver) are imported only by a process whose books are there.
    const [{ PostgresLedger, redactUrl }, { PostgresTargetIndex }, { PostgresReportStore }] =
      await Promise.all([
        import('../ledger/postgres-ledger.js'),
        import('../flows/push/postgres-target-index.js'),
        import('../ledger/postgres-report-store.js'),
      ]);
    if (!/^postgres(ql)?:\/\//.test(url)) {
      throw new Error(`LEDGER_URL: a postgres:// or postgresql:// url, got ${redactUrl(url)}`);
    }
    const ledger = await PostgresLedger.open({ url, ...(logger ? { logger } : {}) });
    logger?.info({ ledger: redactUrl(url) }, 'ledger on PostgreSQL');
    return {
      kind: 'postgres',
      ledger,
      targetIndex: new PostgresTargetIndex(ledger.pool),
      reports: new PostgresReportStore(ledger.pool),
      location: redactUrl(url),
      close: () => ledger.close(),
    };
  }
  const ledger = EmbeddedLedger.open({ path: settings.ledgerDb, ...(logger ? { logger } : {}) });
  return {
    kind: 'sqlite',
    ledger,
    targetIndex: new SqliteTargetIndex(ledger.database),
    reports: new SqliteReportStore(ledger.database),
    location: settings.ledgerDb,
    close: async () => ledger.close(),
  };
}
