import type { TargetDocument } from '../../src/targets/target-port.js';
import { documentsForContract } from './target-contract.js';
import { twoLineDocuments } from './two-line-documents.js';

/**
 * A business day for the payout tests of every target: a 120.00 invoice, two payments on
 * it (50.00 and 30.00) into Processor Clearing, the first payment's 1.75 card fee, and a payout carrying the
 * first payment only, net of its fee (48.25), as documents.ts builds it (`payout.receipts`).
 */
export function payoutDay() {
  const docs = documentsForContract();
  // Each kind its own content hash, so no two of the day's documents share one.
  const hashChar: Record<string, string> = { payment: '5', 'payment-fee': '6', 'disbursement-pending': '7' };
  const two = twoLineDocuments(docs.payment, (key) => (hashChar[key.split(':')[0] ?? ''] ?? '0').repeat(64));
  const p1 = docs.payment;
  const p2: TargetDocument = {
    ...two(`payment:pay2_${docs.run}`, 'payment', 'ProcessorClearing', 'AccountsReceivable', 30_00),
    date: '2026-11-04',
    reference: `pay2_${docs.run}`,
  };
  const fee: TargetDocument = {
    ...two(`payment-fee:pay_${docs.run}`, 'payment-fee', 'ProcessingFees', 'ProcessorClearing', 1_75),
    invoice: undefined,
    customer: undefined,
  };
  const payout: TargetDocument = {
    ...two(
      `disbursement-pending:dis_${docs.run}`,
      'disbursement-pending',
      'PayoutsInTransit',
      'ProcessorClearing',
      48_25,
    ),
    date: '2026-11-06',
    invoice: undefined,
    customer: undefined,
    reference: `dis_${docs.run}`,
    payout: { receipts: [{ key: p1.key, date: p1.date, amountCents: 50_00 }] },
  };
  return { invoice: docs.invoice, p1, p2, fee, payout, run: docs.run };
}
