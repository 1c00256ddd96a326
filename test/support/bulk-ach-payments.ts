import { createPaymentLink } from '@booksync/emulator/domain/payment-links';
import { payPaymentLink, settlePayment } from '@booksync/emulator/domain/payments';
import type { Harness } from '@booksync/emulator/harness';

/**
 * TEST-ONLY SEEDING PATH. Thousands of paid invoices for scale tests, made in a few transactions of the
 * in-process emulator's store instead of three HTTP requests each (15,000 requests for 5,000 payments is
 * minutes on a loaded machine). It calls the very domain functions the routes call (POST /paymentLink,
 * POST /sandbox/paymentLinks/:id/pay, POST /sandbox/payments/:id/settle), so the rows, fees, statuses and
 * outbox events are the ones those requests would make; only the HTTP round trips are skipped. Not a route
 * of the emulator: the service's API has no bulk creation and the emulator does not pretend it has.
 *
 * Each payment is an ACH payment of `amountCents` on its own link, settled (SUCCEEDED), made at the
 * emulator's current time (one instant a batch). Returns the payment and link ids, oldest first.
 */
export function seedSettledAchPayments(
  harness: Harness,
  count: number,
  { amountCents = 25_00, batch = 500 }: { amountCents?: number; batch?: number } = {},
): { paymentId: string; paymentLinkId: string }[] {
  const { store } = harness.emulator;
  const made: { paymentId: string; paymentLinkId: string }[] = [];
  for (let start = 0; start < count; start += batch) {
    const size = Math.min(batch, count - start);
    made.push(
      ...store.write((tx) =>
        Array.from({ length: size }, (_, i) => {
          const link = createPaymentLink(tx, harness.orgId, {
            name: `Invoice ${start + i + 1}`,
            requestedAmountCents: amountCents,
          });
          const payment = payPaymentLink(tx, harness.orgId, link.id, { method: 'ACH' });
          settlePayment(tx, harness.orgId, payment.id);
          return { paymentId: payment.id, paymentLinkId: link.id };
        }),
      ),
    );
  }
  return made;
}
