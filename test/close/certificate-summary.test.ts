import { describe, expect, it } from 'vitest';
import type { CloseCertificate } from '../../src/close/certificate.js';
import {
  certificateSummary,
  summaryProblemLength,
  summaryProblemLimit,
} from '../../src/close/certificate-summary.js';

// The periodClose workflow's result is the certificate's summary, what the Temporal UI shows of a close: its
// verdict and first problems, and its findings (named, not failing) beside them, bounded like the problems.

const certificate = (findings: string[] | undefined): CloseCertificate =>
  ({
    from: '2026-01-01',
    to: '2026-01-31',
    asOf: '2026-02-01T10:00:00.000Z',
    timeZone: 'America/New_York',
    passes: true,
    counts: { booked: 3, skipped: 0, missing: 0, mismatched: 0 },
    problems: [],
    ...(findings ? { findings } : {}),
  }) as unknown as CloseCertificate;

describe('the certificate summary', () => {
  it('lists the first findings, cut as problems are, and counts them all', () => {
    const findings = Array.from({ length: summaryProblemLimit + 5 }, (_, i) => `check ${i} still to bank`);
    findings[0] = `Processor Clearing is negative: ${'x'.repeat(summaryProblemLength * 2)}`;
    const summary = certificateSummary(certificate(findings), {
      id: 'rep_1',
      createdAt: '2026-02-01T10:00:00.000Z',
      bytes: 1234,
    });
    expect(summary.findingCount).toBe(summaryProblemLimit + 5);
    expect(summary.findings).toHaveLength(summaryProblemLimit);
    expect(summary.findings?.[0]).toHaveLength(summaryProblemLength);
    expect(summary.findings?.[0]?.endsWith('…')).toBe(true);
    expect(summary.findings?.[1]).toBe('check 1 still to bank');
    expect(summary.passes).toBe(true);
  });

  it('says none for a certificate without findings', () => {
    const summary = certificateSummary(certificate(undefined), {
      id: 'rep_2',
      createdAt: '2026-02-01T10:00:00.000Z',
      bytes: 10,
    });
    expect([summary.findings, summary.findingCount]).toEqual([[], 0]);
  });
});
