import type { Client } from '@temporalio/client';
import type { TargetIndexStore } from '../flows/push/target-index.js';
import type { LedgerPort } from '../ledger/ledger-port.js';
import type { ReportReader } from '../ledger/report-store.js';
import type { BoundTargetSetup } from '../runtime/targets/target-setups.js';
import type { ReferenceData } from '../targets/documents.js';
import type { ConsoleCredentials } from './credentials.js';
import type { OAuthConnectionSource } from './oauth-connections.js';

// What the console reads and acts through, handed by the composition root (booksync start, booksync ingress):
// the same ledger store and target index the CLI reads, the Temporal client the command API signals with.

export interface ConsoleOptions {
  ledger: LedgerPort;
  /** The accounting targets' index, in the ledger's store (what `booksync targets status` reads). */
  targetIndex: TargetIndexStore;
  /**
   * The reports kept whole in the ledger's store (certificates, payout period reports), read by the id the
   * workflows' summaries give. Absent, only results of earlier releases (whole in Temporal) can be shown.
   */
  reports?: ReportReader;
  /** ACCOUNTING_TARGET. */
  targets: readonly string[];
  /** CONSOLE_PASSWORD and CONSOLE_READONLY_PASSWORD: the accounts' passwords (never the command API key). */
  credentials: ConsoleCredentials;
  /** console.db beside command-keys.db in BOOKSYNC_DATA_DIR; default in memory. */
  storeFile?: string;
  /** BOOKS_TIME_ZONE: today for the aging and for closing the books. */
  timeZone: string;
  /**
   * The cookies' Secure flag: on unless the listener is loopback-only (plain http on this machine), or behind a
   * TLS proxy (CONSOLE_BEHIND_TLS). Off, a request that came over https (per TRUST_PROXY) still gets it.
   */
  secureCookie: boolean;
  /** CONSOLE_IDLE_MINUTES: a session unused this long ends. Default 30 minutes. */
  sessionIdleMs?: number;
  /** Names and numbers of customers, vendors, invoices and bills (the service); without it, ids only. */
  references?: ReferenceData;
  /** The Temporal Web UI, for links to the flows needing attention. */
  temporalUiUrl?: string | null;
  namespace?: string;
  /** How long closing the books waits for its certificate. Default 300 s. */
  closeTimeoutSeconds?: number;
  /**
   * The OAuth targets' connections (quickbooks, xero), by target: the stores their token stores refresh, read
   * for the connection's state. The console closes them with itself.
   */
  oauthConnections?: ReadonlyMap<string, OAuthConnectionSource>;
  /**
   * Each target's setup (`booksync targets setup`) under the process's settings, for the Connection page: its
   * plan, and applying it. Null for a target without one; absent, no target's setup is offered.
   */
  targetSetup?: (target: string) => Promise<BoundTargetSetup | null>;
  /** The clock (tests). */
  now?: () => Date;
}

/** The console's options plus what it shares with the command API on the same listener. */
export interface ConsolePluginOptions extends ConsoleOptions {
  temporalClient: Client;
  taskQueue: string;
}
