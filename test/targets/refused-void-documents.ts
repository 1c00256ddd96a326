import type { AccountRole } from '../../src/targets/account-mapping.js';
import type { TargetDocument } from '../../src/targets/target-port.js';
import { reversalDocument } from './closed-period-documents.js';
import { documentsForContract } from './target-contract.js';
import { twoLineDocuments } from './two-line-documents.js';

// The documents of reversals a target refuses in place, for every target's test: each original and its
// reversal fall in the same open month (November 2026), but money moved on the original in between, so the
// vendor will not void or delete it.
// - A sale (no invoice) of 25.00 paid out by a payout, then returned (an ACH return).
// - A debit memo of 15.00 on the link, paid by a payment applied to it, then voided.
// - A payment of 50.00 on the link's 120.00 invoice, paid out by a payout, then reversed (an ACH return).

export function refusedVoidDocuments() {
  const docs = documentsForContract();
  const { run } = docs;
  const hashes = new Map<string, string>();
  const hashOf = (key: string) => {
    const hash = hashes.get(key) ?? (hashes.size + 1).toString(16).padStart(64, 'c');
    hashes.set(key, hash);
    return hash;
  };
  const two = twoLineDocuments(docs.payment, hashOf);
  const reversalOf = (of: TargetDocument, date: string, reason: string) =>
    reversalDocument(of, date, reason, hashOf(`reversal:${of.key}`));
  const payoutOf = (id: string, receipt: TargetDocument, date: string): TargetDocument => ({
    ...two(
      `disbursement-pending:${id}_${run}`,
      'disbursement-pending',
      'PayoutsInTransit',
      'ProcessorClearing',
      receipt.amountCents,
    ),
    date,
    invoice: undefined,
    customer: undefined,
    reference: `${id}_${run}`,
    payout: { receipts: [{ key: receipt.key, date: receipt.date, amountCents: receipt.amountCents }] },
  });

  const sale: TargetDocument = {
    ...two(`sale:sale_${run}`, 'sale', 'ProcessorClearing', 'Revenue', 25_00),
    date: '2026-11-04',
    invoice: undefined,
    reference: `sale_${run}`,
  };
  const debitMemo: TargetDocument = {
    ...two(`debit-memo:dm_${run}`, 'debit-memo', 'AccountsReceivable', 'FeeIncome', 15_00),
    date: '2026-11-04',
    reference: `dm_${run}`,
  };
  const memoPaid: TargetDocument = {
    ...two(`payment:paydm_${run}`, 'payment', 'ProcessorClearing', 'AccountsReceivable', 15_00),
    date: '2026-11-05',
    reference: `paydm_${run}`,
    settles: { applied: [{ key: debitMemo.key, amountCents: 15_00 }], unappliedCents: 0 },
  };
  const payment: TargetDocument = {
    ...docs.payment,
    settles: { applied: [{ key: docs.invoice.key, amountCents: 50_00 }], unappliedCents: 0 },
  };
  return {
    run,
    invoice: docs.invoice,
    /** Sold, paid out, returned: the sale's document is deposited. */
    sale,
    salePayout: payoutOf('dissale', sale, '2026-11-06'),
    saleReturned: reversalOf(sale, '2026-11-12', 'payment.failed'),
    /** A debit memo paid, then voided: the memo's document has a payment applied. */
    debitMemo,
    memoPaid,
    memoVoided: reversalOf(debitMemo, '2026-11-10', 'debit memo voided'),
    /** A payment applied to the invoice, paid out, then reversed: the payment is deposited (reconciled). */
    payment,
    paymentPayout: payoutOf('dispay', payment, '2026-11-06'),
    paymentReversed: reversalOf(payment, '2026-11-12', 'payment.failed'),
  };
}

/** What the ledger holds on `role` after `docs` (debit positive, in cents). */
export function ledgerBalance(docs: readonly TargetDocument[], role: AccountRole): number {
  return docs
    .flatMap((d) => d.lines)
    .filter((l) => l.role === role)
    .reduce((sum, l) => sum + l.amountCents, 0);
}
