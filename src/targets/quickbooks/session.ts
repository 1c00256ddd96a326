import type { Logger } from 'pino';
import type { AccountMapping, VendorExpenseAccounts } from '../account-mapping.js';
import { datedOpen } from '../closed-periods.js';
import type { PushContext, PushResult, RemoteRecord, TargetDocument } from '../target-port.js';
import type { AccountDirectory, Ref } from './accounts.js';
import type { DocumentMapper } from './documents.js';
import type { QboClient, QboEntity } from './http-client.js';
import type { RealmLimiter } from './limiter.js';
import type { MatchingPolicy, PartyDirectory } from './parties.js';
import type { OAuthTokenStore } from './token-store.js';

export interface QuickBooksTargetOptions {
  baseUrl: string;
  realmId: string;
  tokenStore: OAuthTokenStore;
  accounts: AccountMapping;
  /** VENDOR_EXPENSE_ACCOUNTS: the vendors whose bills are expensed to an account of their own. */
  vendorExpenses?: VendorExpenseAccounts;
  matching: MatchingPolicy;
  logger?: Logger;
  /** Defaults to the worker-wide limiter of the realm. */
  limiter?: RealmLimiter;
  /** How long the books closing date read from QBO is trusted (60 s; a closed-period refusal reads it again). */
  lockTtlMs?: number;
  /** The non-taxable sales tax code (Id or name) on every sales line: QBO_TAX_CODE, `NON` by default. */
  taxCode?: string;
}

/**
 * What the QuickBooks adapter's modules (look-ups, plans, batches, reversals, credit memos, Unapplied Cash
 * journals) share for one QuickBooksTarget: its client, options and directories, and what it caches for the
 * life of the process (the records it made or found by key, invoices' customers, a backlog's invoice numbers,
 * documents' own dates when dated out of a closed period).
 */
export interface QuickBooksSession {
  readonly name: 'quickbooks';
  readonly client: QboClient;
  readonly options: QuickBooksTargetOptions;
  readonly accounts: AccountDirectory;
  readonly parties: PartyDirectory;
  readonly mapper: DocumentMapper;
  readonly invoiceCustomers: Map<string, Ref>;
  /** What this adapter made or found, by key: a later document (a payment, a reversal) needs no query. */
  readonly known: Map<string, RemoteRecord>;
  /** A backlog's invoice numbers and the invoices holding them, read in one request (prefetch); null: ask. */
  numbers: Map<string, QboEntity[]> | null;
  /** A document's own date, by key, when it was dated out of a closed period: a find looks there too. */
  readonly ownDates: Map<string, string>;
  /** The target's push(), for a document a batch sends one by one (a reversal, a fallback found). */
  push(document: TargetDocument, context: PushContext): Promise<PushResult>;
}

/** The document dated out of the closed period; its own date remembered for finding it again. */
export function open(s: QuickBooksSession, document: TargetDocument, lock: string | null): TargetDocument {
  const dated = datedOpen(document, lock);
  if (dated.date !== document.date) s.ownDates.set(document.key, document.date);
  return dated;
}

/** An invoice's customer never changes once booksync made it: kept, so its payments need no read. */
export function remember(s: QuickBooksSession, entity: string, record: QboEntity) {
  if (entity === 'Invoice' && record.CustomerRef) {
    s.invoiceCustomers.set(record.Id, record.CustomerRef as Ref);
  }
}
