import type { TargetDocument } from '../../src/targets/target-port.js';

// The documents of the closed-period scenario, for every target's test: a January invoice and a
// January payment of it; the target's books then closed through January 31; a February reversal of that
// payment (a bounced check), a February payment voided the same month, and a payment dated January 20 that
// reaches the target only after the close.

export const lockedThrough = '2026-01-31';

/** The reversal of a document, dated `date`, for `reason`: its lines negated, its own content hash. */
export const reversalDocument = (
  of: TargetDocument,
  date: string,
  reason: string,
  contentHash: string,
): TargetDocument => ({
  ...of,
  key: `reversal:${of.key}`,
  kind: 'reversal',
  date,
  description: `Reversal of ${of.key}: ${reason}`,
  lines: of.lines.map((l) => ({ ...l, amountCents: -l.amountCents })),
  contentHash,
  reverses: of.key,
  reason,
  originalDate: of.date,
  settles: undefined,
  payout: undefined,
});

export function closedPeriodDocuments() {
  const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const customer = { serviceId: `cus_${run}`, name: `Closed Period ${run}`, email: `${run}@closed.test` };
  const invoice = { paymentLinkId: `pl_${run}`, number: `CP-${run}` };
  const hash = (c: string) => c.repeat(64);
  const payment = (id: string, date: string, cents: number, h: string): TargetDocument => ({
    key: `payment:${id}_${run}`,
    kind: 'payment',
    date,
    description: `Payment ${id}_${run} received`,
    amountCents: cents,
    lines: [
      { role: 'ProcessorClearing', amountCents: cents },
      { role: 'AccountsReceivable', amountCents: -cents },
    ],
    contentHash: hash(h),
    invoice,
    customer,
    reference: `${id}_${run}`,
  });
  const reversal = (of: TargetDocument, date: string, h: string) =>
    reversalDocument(of, date, 'check returned', hash(h));
  const invoiceDoc: TargetDocument = {
    key: `invoice:pl_${run}`,
    kind: 'invoice',
    date: '2026-01-10',
    description: `Invoice for payment link pl_${run}`,
    amountCents: 120_00,
    lines: [
      { role: 'AccountsReceivable', amountCents: 120_00 },
      { role: 'Revenue', amountCents: -120_00 },
    ],
    contentHash: hash('a'),
    invoice,
    customer,
    reference: `pl_${run}`,
  };
  const january = payment('jan', '2026-01-15', 50_00, 'b');
  const february = payment('feb', '2026-02-05', 20_00, 'c');
  const late = payment('late', '2026-01-20', 10_00, 'd');
  return {
    run,
    invoice: invoiceDoc,
    /** Paid in January, reversed in February after the close: a reversing document, January untouched. */
    january,
    januaryReversed: reversal(january, '2026-02-03', 'e'),
    /** Paid and reversed in February, the open month: voided in place. */
    february,
    februaryReversed: reversal(february, '2026-02-10', 'f'),
    /** Dated January 20, pushed after the close: dated February 1. */
    late,
  };
}
