import { type ReportReader, readReport, type StoredReportRef } from '../ledger/report-store.js';
import type { CloseCertificate } from './certificate.js';

// What the periodClose workflow returns: the certificate's verdict, counts and first problems, and where the
// whole certificate is stored (report-store.ts). A certificate lists every object not booked, so a month with
// thousands of them runs to megabytes, past what a workflow result may carry; this summary stays a few
// kilobytes whatever the month.

/** How many problems a summary lists (`problemCount` counts them all). */
export const summaryProblemLimit = 20;
/** How long one listed problem may be, in characters (a problem naming many keys is cut, with "…"). */
export const summaryProblemLength = 500;

export interface CloseCertificateSummary {
  from: string;
  to: string;
  asOf: string;
  timeZone: string;
  passes: boolean;
  counts: CloseCertificate['counts'];
  /** The first `summaryProblemLimit` problems (the whole list is in the stored certificate). */
  problems: string[];
  problemCount: number;
  /**
   * The first `summaryProblemLimit` findings (named, not failing: a check still to bank, a negative clearing
   * balance), as the Temporal UI shows the workflow's result; absent in summaries made before they were listed.
   */
  findings?: string[];
  findingCount?: number;
  /** The stored certificate's id in the ledger's reports. */
  reportId: string;
  /** The stored certificate's size (UTF-8 bytes of its JSON). */
  bytes: number;
}

const cut = (line: string) =>
  line.length > summaryProblemLength ? `${line.slice(0, summaryProblemLength - 1)}…` : line;

export function certificateSummary(
  certificate: CloseCertificate,
  stored: StoredReportRef,
): CloseCertificateSummary {
  return {
    from: certificate.from,
    to: certificate.to,
    asOf: certificate.asOf,
    timeZone: certificate.timeZone,
    passes: certificate.passes,
    counts: certificate.counts,
    problems: certificate.problems.slice(0, summaryProblemLimit).map(cut),
    problemCount: certificate.problems.length,
    findings: (certificate.findings ?? []).slice(0, summaryProblemLimit).map(cut),
    findingCount: certificate.findings?.length ?? 0,
    reportId: stored.id,
    bytes: stored.bytes,
  };
}

/** A periodClose result: a summary, or a whole certificate (the runs of releases before the summaries). */
export type PeriodCloseResult = CloseCertificateSummary | CloseCertificate;

export function isCertificateSummary(result: PeriodCloseResult): result is CloseCertificateSummary {
  return typeof (result as Partial<CloseCertificateSummary>).reportId === 'string';
}

/** The whole certificate of a periodClose result: read back from the reports by its id, or the result itself. */
export async function fullCertificate(
  result: PeriodCloseResult,
  reports: ReportReader,
): Promise<CloseCertificate> {
  if (!isCertificateSummary(result)) return result;
  return readReport<CloseCertificate>(reports, result.reportId, 'close-certificate');
}
