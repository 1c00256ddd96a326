import { formatUsd as usd } from '../ledger/money.js';
import type { BalanceCheck } from './certificate.js';
import type { CertifiedObject } from './certificate-checks.js';
import type { PeriodFigure } from './period-figures.js';

// The certificate's table rows as text, the same in its terminal form (certificate-text.ts) and its HTML page
// (certificate-html.ts); each form lays them out its own way.

export const objectColumns = ['kind', 'id', 'date', 'amount', 'status', 'entry or reason'];

/** One certified object: the entry it is booked as, why it is skipped, or what is wrong with it. */
export function objectRow(o: CertifiedObject): string[] {
  return [
    o.kind,
    o.id,
    o.date,
    usd(o.amountCents),
    o.status,
    o.status === 'SKIPPED'
      ? (o.skipReason ?? '')
      : o.status === 'BOOKED'
        ? (o.entryKey ?? '')
        : (o.detail ?? ''),
  ];
}

/** One balance checked: the books' and the service's amounts, and whether they agree. */
export function balanceRow(b: BalanceCheck): string[] {
  return [b.title, usd(b.booksCents), usd(b.serviceCents), b.ok ? 'ok' : 'DIFFERS'];
}

export const periodFigureColumns = ['figure', 'books', 'service', 'explained', 'difference', 'check'];

/** One figure of the period against the service: both sides, what explains the gap, what is left of it. */
export function periodFigureRow(f: PeriodFigure): string[] {
  return [
    f.title,
    usd(f.booksCents),
    usd(f.serviceCents),
    usd(f.explainedCents),
    usd(f.differenceCents),
    f.ok ? 'ok' : 'DIFFERS',
  ];
}
