import type { Logger } from 'pino';
import type { LockReader } from '../closed-periods.js';
import type { AccountDirectory } from './accounts.js';
import type { XeroClient } from './client.js';
import type { ContactDirectory, MatchingPolicy } from './contacts.js';
import type { Body } from './records.js';
import type { TaxTypeDirectory } from './tax-rates.js';

/**
 * What the Xero adapter's steps share (one per XeroTarget): the organisation's client (its tenant and
 * limiter), the account mapping, the contacts, booksync's tax type and Xero's lock dates, read once and held.
 */
export interface XeroContext {
  readonly name: 'xero';
  readonly client: XeroClient;
  readonly accounts: AccountDirectory;
  readonly taxTypes: TaxTypeDirectory;
  readonly contacts: ContactDirectory;
  readonly matching: MatchingPolicy;
  /** Xero's lock dates, read at most once a minute. */
  readonly locks: LockReader;
  readonly logger?: Logger | undefined;
  /** Invoice numbers looked up in advance by pushMany (number -> the ACCREC invoices holding it). */
  numbers: Map<string, Body[]> | null;
}
