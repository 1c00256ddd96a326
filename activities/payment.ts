import { LedgerConflictError } from '../src/ledger/errors.js';
import type { SyncResult } from '../src/ledger/index.js';
import {
  type PaymentSettles,
  paymentEntries,
  paymentEntryKinds,
  paymentSettles,
} from '../src/ledger/mapping/index.js';
import { syncEntries } from '../src/ledger/sync.js';
import { writeBehind } from '../src/ledger/write-behind-ledger.js';
import type { Payment, PaymentLink } from '../src/service/schemas/index.js';
import { type ActivityDependencies, accountingDate, activityLogger, logBooked } from './context.js';
import { translatingFailures } from './failures.js';
import { syncInvoiceBooks } from './invoice-books.js';
import type { PaymentActivities, PaymentSyncResult, SyncPaymentInput } from './payment-contract.js';

/**
 * Makes the books hold exactly what a fetched payment's current state says (payment received, or a sale of
 * its own when it settles no invoice; absorbed fee, live refunds; reversals of what no longer holds). Shared
 * by the payment workflow's activity, reconciliation and backfill, so all write the same idempotent entries.
 * `settles`: whether its link books an invoice (paymentSettles of the fetched link).
 */
export async function syncPaymentBooks(
  deps: ActivityDependencies,
  payment: Payment,
  settles: PaymentSettles,
): Promise<SyncResult> {
  return syncEntries(
    deps.ledger,
    paymentEntries(payment, deps.timeZone, settles),
    { paymentId: payment.id },
    {
      kinds: paymentEntryKinds,
      date: accountingDate(deps),
      reason: `payment ${payment.id} is ${payment.status}`,
    },
  );
}

/**
 * The link's invoice first, so the receivable the payment settles is owed in the books before it is paid;
 * then the payment and its fee. All of them in one ledger transaction (all or none; one commit, one fsync
 * on SQLite). When another flow booked the link's invoice with other contents meanwhile (two payments on a
 * changed link at once), the whole write is refused as a conflict: booked again then entry by entry, where
 * the invoice's second look sees what the other flow wrote (invoice-books.ts).
 */
async function bookPayment(
  deps: ActivityDependencies,
  payment: Payment,
  link: PaymentLink | null,
): Promise<{ invoice: SyncResult | null; result: SyncResult }> {
  const book = async (on: ActivityDependencies) => ({
    invoice: link ? await syncInvoiceBooks(on, link) : null,
    result: await syncPaymentBooks(on, payment, paymentSettles(link)),
  });
  const books = writeBehind(deps.ledger);
  try {
    const booked = await book({ ...deps, ledger: books });
    await books.flush();
    return booked;
  } catch (error) {
    if (!(error instanceof LedgerConflictError)) throw error;
    return book(deps);
  }
}

export function createPaymentActivities(deps: ActivityDependencies): PaymentActivities {
  return {
    /** Fetches the payment and makes the books hold exactly what its current state says (design: state is fetched). */
    async syncPayment({ paymentId, eventIds }: SyncPaymentInput): Promise<PaymentSyncResult> {
      return translatingFailures(async () => {
        const log = activityLogger(deps, { paymentId, eventIds });
        const payment = await deps.service.getPayment(paymentId);
        const link = payment.paymentLinkId ? await deps.service.getPaymentLink(payment.paymentLinkId) : null;
        const { invoice, result } = await bookPayment(deps, payment, link);
        logBooked(log, 'payment', result, {
          paymentLinkId: link?.id,
          status: payment.status,
          ...(invoice?.posted.length ? { invoicePosted: invoice.posted } : {}),
        });
        return {
          paymentId,
          status: payment.status,
          methodType: payment.paymentMethod?.type ?? null,
          paymentLinkId: payment.paymentLinkId ?? null,
          customerId: link?.customerId ?? null,
          amountInCents: payment.amountInCents,
          madeAt: new Date(payment.createdAt).toISOString(),
          posted: result.posted,
          reversed: result.reversed,
        };
      });
    },
  };
}
