// The contract between the period-close workflow and its activity (implementation: src/flows/period-close/activities.ts).
// Types only: the workflow imports nothing that does I/O.

import type { CloseCertificateSummary } from '../../close/certificate-summary.js';
import type { ClosePeriod } from '../../close/close-input.js';

export type { CloseCertificate } from '../../close/certificate.js';
export type { CloseCertificateSummary } from '../../close/certificate-summary.js';
export type { ClosePeriod } from '../../close/close-input.js';

export interface PeriodCloseActivities {
  /**
   * Reads the service's objects (links, payments, disbursements, check deposits; the bills and bill payments
   * the books name), the ledger's entries, balances and open items, and the accounting targets' index, and
   * makes the period's completeness certificate. The certificate is stored whole in the ledger's reports;
   * the result is its bounded summary (verdict, counts, first problems) with the stored id. (Runs of earlier
   * releases recorded the whole certificate as this activity's result.)
   */
  buildCloseCertificate(period: ClosePeriod): Promise<CloseCertificateSummary>;
  /**
   * Closes the ledger through `through` after its certificate passed (the Schedule's runs, when
   * PERIOD_CLOSE_CLOSES_BOOKS is on). Only forward: a day the books are closed through already, or before, is
   * left as it is (`closed: false`, with the day they are closed through).
   */
  closeBooksThrough(input: CloseBooksThroughInput): Promise<CloseBooksThroughResult>;
}

export interface CloseBooksThroughInput {
  through: string;
  reason: string;
}

export interface CloseBooksThroughResult {
  closed: boolean;
  closedThrough: string;
}
