import type { SandboxClient } from '@booksync/emulator/sandbox-client';
import type { Payment } from '@booksync/service-contract/schemas/index';
import type { ServiceClient } from '../../src/service/client.js';
import { ExpectedBooks } from '../e2e/expected-books.js';
import type { BooksSnapshot } from '../support/books-snapshot.js';

// A business's day at volume: card and ACH payments, settled, every fifth one refunded (cards by half, ACH in
// full). Refunds only after settlement, so nothing is voided or reversed: the books a correct run produces
// do not depend on when the worker saw what, and the expected books are computed here from the amounts and
// the service's answers (mapping table, decision “Fees”), independently of the mapping code.

export interface ScenarioOptions {
  count: number;
  /** Called after each payment (index, expected so far); a test can crash things from here. */
  afterPayment?: (index: number) => Promise<void> | void;
  /** Label for link names. */
  label: string;
}

export interface ScenarioResult {
  expected: ExpectedBooks;
  payments: Payment[];
}

const lastRefundId = (payment: Payment): string => {
  const refund = payment.refunds.at(-1);
  if (!refund) throw new Error(`payment ${payment.id} has no refund`);
  return refund.id;
};

export async function runPaymentScenario(
  world: { service: ServiceClient; sandbox: SandboxClient },
  options: ScenarioOptions,
  expected = new ExpectedBooks(),
): Promise<ScenarioResult> {
  const payments: Payment[] = [];
  for (let i = 0; i < options.count; i++) {
    const amount = 10_00 + ((i * 7919) % 90_000);
    const method = i % 2 === 0 ? 'Card' : 'ACH';
    const link = await world.service.createPaymentLink({
      name: `${options.label} #${i} ${method}`,
      requestedAmountCents: amount,
    });
    const payment = await world.sandbox.payLink(link.id, method);
    expected.invoice(link.id, amount);
    expected.payment(
      payment.id,
      amount,
      payment.platformFeeInCents,
      payment.chargedAmountInCents - payment.amountInCents,
    );
    await world.sandbox.settlePayment(payment.id);
    if (i % 5 === 0) {
      const refundAmount = method === 'Card' ? Math.floor(amount / 2) : amount;
      const refunded = await world.service.refundPayment(payment.id, { amountCents: refundAmount });
      expected.refund(lastRefundId(refunded), refundAmount);
    }
    payments.push(payment);
    await options.afterPayment?.(i);
  }
  return { expected, payments };
}

/** Every key the expected books hold is in the books, with the same net lines. */
export function hasAll(expected: ExpectedBooks) {
  return (books: BooksSnapshot) => [...expected.entries.keys()].every((key) => key in books.entries);
}
