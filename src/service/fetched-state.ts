import type {
  Bill,
  BillPayment,
  CheckDeposit,
  Disbursement,
  Payment,
  PaymentLink,
} from '@booksync/service-contract/schemas/index';
import type { BookedEntry } from '../ledger/entry.js';

/**
 * What the service holds now, fetched again (every page), beside every booked entry: what the period close
 * (src/close/certificate.ts) and the resync (src/resync/plan.ts) compare. Types only, no I/O.
 */
export interface FetchedState {
  links: readonly PaymentLink[];
  payments: readonly Payment[];
  disbursements: readonly Disbursement[];
  checkDeposits: readonly CheckDeposit[];
  /** Bills and bill payments have no list endpoint: those the books name, fetched by id. */
  bills: readonly Bill[];
  billPayments: readonly BillPayment[];
  /** Every entry of the ledger, reversals included. */
  entries: readonly BookedEntry[];
  /** The day the books open (a backfill): objects settled before it are in Opening Balances. */
  opensOn?: string | null;
}
