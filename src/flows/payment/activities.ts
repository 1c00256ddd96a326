import type { Payment, PaymentLink } from '@booksync/service-contract/schemas/index';
import { baseKey } from '../../ledger/entry-key.js';
import { LedgerConflictError } from '../../ledger/errors.js';
import type { SyncResult } from '../../ledger/index.js';
import {
  dayInZone,
  type PaymentSettles,
  paymentEntries,
  paymentEntryKinds,
  paymentReceivedEntries,
  paymentSettles,
  paymentUndone,
} from '../../ledger/mapping/index.js';
import { bookableEntries } from '../../ledger/opening-balances.js';
import { syncEntries } from '../../ledger/sync.js';
import { writeBehind } from '../../ledger/write-behind-ledger.js';
import {
  type ActivityDependencies,
  accountingDate,
  activityLogger,
  logBooked,
} from '../in-activity/context.js';
import { translatingFailures } from '../in-activity/failures.js';
import { syncInvoiceBooks } from '../in-activity/invoice-books.js';
import type {
  PaymentActivities,
  PaymentEventTime,
  PaymentSyncResult,
  SyncPaymentInput,
} from './activities-contract.js';

/** The events that date a payment's reversal: the return (or returned refund credit) and the cancellation. */
const reversingEvents = new Set(['payment.failed', 'payment.voided']);

/**
 * The day a payment's reversals are dated, in the books' time zone: when the service says the money came
 * back, the created_at of the payment.failed or payment.voided event that reported it (the latest, when a
 * sync handles several); else the latest event's. The payment record itself carries no time of a return or
 * a cancellation (spec 2.2), so a payment synced without its event (reconciliation, backfill, the return
 * window's last look) is dated the day booksync saw it.
 */
export function reversalDay(deps: ActivityDependencies, events: readonly PaymentEventTime[] = []): string {
  const times = (list: readonly PaymentEventTime[]) =>
    list.map((e) => Date.parse(e.createdAt)).filter((t) => Number.isFinite(t));
  const reversing = times(events.filter((e) => reversingEvents.has(e.category)));
  const any = reversing.length > 0 ? reversing : times(events);
  return any.length > 0 ? dayInZone(Math.max(...any), deps.timeZone) : accountingDate(deps);
}

/**
 * Makes the books hold exactly what a fetched payment's current state says (payment received, or a sale of
 * its own when it settles no invoice; absorbed fee, live refunds; reversals of what no longer holds). Shared
 * by the payment workflow's activity, reconciliation and backfill, so all write the same idempotent entries.
 * `settles`: whether its link books an invoice (paymentSettles of the fetched link). `reversedOn`: the day
 * its reversals are dated (reversalDay).
 *
 * A payment returned or cancelled (paymentUndone) books what it held while it stood before its reversal,
 * also when booksync sees it first in its final state: the same entries, keys and dates as when followed
 * step by step, whatever the timing of deliveries.
 */
export async function syncPaymentBooks(
  deps: ActivityDependencies,
  payment: Payment,
  settles: PaymentSettles,
  reversedOn: string = accountingDate(deps),
): Promise<SyncResult> {
  const scope = { paymentId: payment.id };
  const received: string[] = [];
  if (paymentUndone(payment)) {
    const booked = await deps.ledger.entriesFor(scope);
    const slots = new Set(booked.map((e) => baseKey(e.key)));
    const never = paymentReceivedEntries(payment, deps.timeZone, settles).filter((e) => !slots.has(e.key));
    const bookable = bookableEntries(never, booked, await deps.ledger.booksOpenOn());
    if (bookable.length > 0) {
      const results = await deps.ledger.postMany(bookable);
      results.forEach(({ created }, i) => {
        if (created) received.push((bookable[i] as (typeof bookable)[number]).key);
      });
    }
  }
  const result = await syncEntries(deps.ledger, paymentEntries(payment, deps.timeZone, settles), scope, {
    kinds: paymentEntryKinds,
    date: reversedOn,
    reason: `payment ${payment.id} is ${payment.status}`,
  });
  return { ...result, posted: [...received, ...result.posted] };
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
  reversedOn: string,
): Promise<{ invoice: SyncResult | null; result: SyncResult }> {
  const book = async (on: ActivityDependencies) => ({
    invoice: link ? await syncInvoiceBooks(on, link) : null,
    result: await syncPaymentBooks(on, payment, paymentSettles(link), reversedOn),
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
    async syncPayment({ paymentId, eventIds, events }: SyncPaymentInput): Promise<PaymentSyncResult> {
      return translatingFailures(async () => {
        const log = activityLogger(deps, { paymentId, eventIds });
        const payment = await deps.service.getPayment(paymentId);
        const link = payment.paymentLinkId ? await deps.service.getPaymentLink(payment.paymentLinkId) : null;
        const { invoice, result } = await bookPayment(deps, payment, link, reversalDay(deps, events));
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
