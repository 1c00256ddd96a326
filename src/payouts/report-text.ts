import { formatUsd } from '../ledger/money.js';
import type { PayoutPeriodReport, PayoutReport } from './report-schema.js';

// The payout reports as a person reads them in a terminal: small aligned tables, amounts in dollars.

/** Columns padded to their widest cell; the columns flagged right-aligned are the amounts. */
export function table(rows: readonly (readonly string[])[], rightAligned: readonly boolean[]): string[] {
  const widths = rightAligned.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows.map((row) =>
    row
      .map((cell, column) =>
        rightAligned[column] ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!),
      )
      .join('  ')
      .trimEnd(),
  );
}

const usd = formatUsd;
const orNone = (cents: number | null) => (cents === null ? 'in transit' : usd(cents));

export function payoutReportLines(report: PayoutReport): string[] {
  const header = ['payment', 'method', 'status', 'gross', 'fee', 'refunds', 'returns', 'net'];
  const right = [false, false, false, true, true, true, true, true];
  const rows = report.payments.map((p) => [
    p.paymentId,
    p.method ?? '-',
    p.status,
    usd(p.grossCents),
    usd(p.absorbedFeeCents),
    usd(p.refundedBeforeBatchCents + p.refundedAfterBatchCents),
    usd(p.returnedCents),
    usd(p.netCents),
  ]);
  const t = report.totals;
  const total = [
    `total (${t.payments} payments)`,
    '',
    '',
    usd(t.grossCents),
    usd(t.absorbedFeeCents),
    usd(t.refundedBeforeBatchCents + t.refundedAfterBatchCents),
    usd(t.returnedCents),
    usd(t.netCents),
  ];
  return [
    `payout ${report.disbursementId}: ${report.status}, batched ${report.createdAt ?? '-'}, paid ${report.paidAt ?? '-'}, to ${report.bankAccount}`,
    ...table([header, ...rows, total], right),
    `amount ${usd(report.amountCents)}; net of its payments ${usd(t.netCents)}; difference ${usd(report.differenceCents)}; reached the bank ${orNone(report.reachedBankCents)}`,
    `books: bank ${usd(report.books.bankCents)}, in transit ${usd(report.books.inTransitCents)}`,
    ...report.mismatches.map((m) => `mismatch ${m.reason} ${usd(m.amountCents)}: ${m.detail}`),
    report.reconciles ? 'reconciles: yes' : `reconciles: no (${report.mismatches.length} mismatches)`,
  ];
}

export function periodReportLines(report: PayoutPeriodReport): string[] {
  const header = ['payout', 'batched', 'status', 'payments', 'amount', 'net', 'reached bank', 'check'];
  const right = [false, false, false, true, true, true, true, false];
  const rows = report.payouts.map((p) => [
    p.disbursementId,
    p.createdAt ?? '-',
    p.status,
    String(p.totals.payments),
    usd(p.amountCents),
    usd(p.totals.netCents),
    orNone(p.reachedBankCents),
    p.reconciles ? 'ok' : [...new Set(p.mismatches.map((m) => m.reason))].join(', '),
  ]);
  const t = report.totals;
  const total = [
    `total (${t.payouts} payouts)`,
    '',
    '',
    '',
    usd(t.amountCents),
    usd(t.netCents),
    usd(t.reachedBankCents),
    t.mismatched === 0 ? 'ok' : `${t.mismatched} mismatched`,
  ];
  return [`payouts batched ${report.from} to ${report.to}`, ...table([header, ...rows, total], right)];
}
