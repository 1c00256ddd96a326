import type { BalanceAsOf } from './balances-as-of.js';

// What a period's certificate proves and what it cannot, as a fixed list its every form states (JSON, text,
// HTML), and the findings it names without failing: what an accountant signing it needs to read beside the
// verdict.

export const certificateProves: readonly string[] = [
  'Every service object dated in the period (payments, refunds, external payments, check deposits and their applications, debit memos, disbursements, bills and bill payments the books name) is booked exactly once at its amount, or skipped for a stated reason; every live entry of the period belongs to an object the service still lists.',
  "Processor Clearing and Payouts In Transit at the period's end equal the service's money not yet disbursed and disbursed not yet paid, worked out from the service's own records and dates.",
  "Each invoice's receivable and each bill's payable at the period's end equal what the service's records say was still owed then (requested amount, memos, payments, refunds, external payments, bill payments, each by its own date), and again as of the run.",
  "The Operating Bank's payouts received and bill payments paid in the period equal the service's disbursements paid and bill payments debited in it; with PAYOUT_BANK_ACCOUNTS, the Payout Bank's payouts received equal the service's disbursements paid to those accounts, and the Operating Bank's the others.",
  "Revenue (net of discounts and write-offs) and processing fees of the period equal what the service's links, sales and payments' fee fields amount to, a change of a link's amount explained from the books.",
  "With accounting targets: every entry of the period is pushed (or skipped) in each, and each target's own clearing balances and open documents at the period's end equal the ledger's.",
];

export const certificateCannotProve: readonly string[] = [
  "That the service's records are complete or right: it compares the books with what the service lists today; an object the service never lists, and every bill or bill payment the books never heard of (no list endpoint), cannot be found.",
  "When a payment link was created or what it asked for at the period's end: the service gives a link no creation date and no history of its amount, so a link is placed by its first money or the books' invoice date, and a link changed after the period shows its new amount.",
  'When a payment, disbursement or bill payment failed, or an external payment, applied check or memo was voided or returned: the spec gives a failure no time and lists live records only, so each counts until the day the books reversed it; a returned ACH refund credit leaves no trace in the service.',
  "The Operating Bank's balance: deposit slips, cleared check deposits, payments recorded straight to the bank and the business's own transactions have no service record; only the bank statement proves the balance (a bank reconciliation outside booksync).",
  "Income and expenses the service does not see (other sales, vendor bills booksync was never told of), and the accounts of a target that also hold the business's own entries.",
  'That amounts are classified right (revenue recognition, cut-off of goods delivered, collectability): it proves the books mirror the service, not that the service mirrors the business.',
];

/**
 * A Processor Clearing below zero at the period's end (a refund, return or chargeback after the payout took
 * the money): not a failure when the books and the service agree on it (the balance check fails otherwise),
 * since the books are right, but a finding, since an asset account below zero is money the business owes the
 * processor: shown as a liability at the period's end, recovered from the next payout or the bank.
 */
export function negativeClearingFindings(balances: readonly BalanceAsOf[]): string[] {
  const clearing = balances.find((b) => b.check === 'ProcessorClearing');
  if (!clearing) return [];
  const lowest = Math.min(clearing.booksCents, clearing.serviceCents);
  if (lowest >= 0) return [];
  return [
    `Processor Clearing is below zero as of the end of ${clearing.asOf} (books ${clearing.booksCents} cents, service ${clearing.serviceCents} cents): the business owes the processor ${-lowest} cents (a refund, ACH return or chargeback after the payout took the money). A warning, not a failure: the books record what happened; present it as a liability (due to the processor) at the period's end, and expect the next payout to be short by it or the bank debited.`,
  ];
}
