import type { BillPayment } from '@booksync/service-contract/schemas/index';
import { baseKey } from '../../ledger/entry-key.js';
import { billPaymentEntries, billPaymentEntryKinds, businessDay } from '../../ledger/mapping/index.js';
import { bookableEntries } from '../../ledger/opening-balances.js';
import { syncEntries } from '../../ledger/sync.js';
import {
  type ActivityDependencies,
  accountingDate,
  activityLogger,
  logBooked,
} from '../in-activity/context.js';
import { translatingFailures } from '../in-activity/failures.js';
import { syncBillBooks } from '../in-activity/invoice-books.js';
import type {
  BillPaymentActivities,
  BillPaymentSyncResult,
  ReportOverdueCheckInput,
  SyncBillPaymentInput,
} from './activities-contract.js';

/**
 * A FAILED bill payment that had been sent (returned check, failed check, returned ACH debit) still carries
 * sentAt: it books what it held while PENDING (sent, and for ACH or wire the money out) before the sync
 * reverses it, also when booksync first sees it in its final state, so the books hold the same history as
 * when it was followed step by step. Answers the keys it posted.
 */
async function bookWhatAFailedPaymentHeld(
  deps: ActivityDependencies,
  billPayment: BillPayment,
): Promise<string[]> {
  if (billPayment.status !== 'FAILED' || !billPayment.sentAt) return [];
  const booked = await deps.ledger.entriesFor({ billPaymentId: billPayment.id });
  const slots = new Set(booked.map((e) => baseKey(e.key)));
  const before = billPaymentEntries({ ...billPayment, status: 'PENDING' }, deps.timeZone).filter(
    (e) => !slots.has(e.key),
  );
  const bookable = bookableEntries(before, booked, await deps.ledger.booksOpenOn());
  if (bookable.length === 0) return [];
  const posted = await deps.ledger.postMany(bookable);
  return bookable.filter((_, i) => posted[i]?.created).map((e) => e.key);
}

/** The day a failed payment failed at the service (its check's returnedAt or failedAt), else today. */
function failedOn(billPayment: BillPayment, deps: ActivityDependencies): string {
  const at =
    billPayment.status === 'FAILED' ? (billPayment.check?.returnedAt ?? billPayment.check?.failedAt) : null;
  return at
    ? businessDay(at, deps.timeZone, `bill payment ${billPayment.id} check returned/failed`)
    : accountingDate(deps);
}

export function createBillPaymentActivities(deps: ActivityDependencies): BillPaymentActivities {
  return {
    /**
     * Fetches the bill payment (check events carry its id too) and makes the books hold what its state
     * says: sent (AP to Outgoing Payments Clearing), paid (clearing to bank), nothing once FAILED (returned,
     * failed or cancelled: what was booked is reversed, the bill is owed again).
     */
    async syncBillPayment({ billPaymentId, eventIds }: SyncBillPaymentInput): Promise<BillPaymentSyncResult> {
      return translatingFailures(async () => {
        const log = activityLogger(deps, { billPaymentId, eventIds });
        const billPayment = await deps.service.getBillPayment(billPaymentId);
        // The bill first, so the payable the payment settles is owed in the books before it is paid.
        const bill = await deps.service.getBill(billPayment.billId);
        const billBooked = await syncBillBooks(deps, bill, billPayment);
        const held = await bookWhatAFailedPaymentHeld(deps, billPayment);
        const synced = await syncEntries(
          deps.ledger,
          billPaymentEntries(billPayment, deps.timeZone),
          { billPaymentId },
          {
            kinds: billPaymentEntryKinds,
            // A returned or failed payment is undone on the day the service says, not the day booksync noticed.
            date: failedOn(billPayment, deps),
            reason: `bill payment ${billPaymentId} is ${billPayment.status}${
              billPayment.failureReason ? ` (${billPayment.failureReason})` : ''
            }`,
          },
        );
        const result = { ...synced, posted: [...held, ...synced.posted] };
        const check = billPayment.check ?? null;
        logBooked(log, 'bill payment', result, {
          status: billPayment.status,
          checkStatus: check?.status ?? null,
          failureReason: billPayment.failureReason,
          billStatus: bill.status,
          ...(billBooked.posted.length ? { billPosted: billBooked.posted } : {}),
        });
        return {
          billPaymentId,
          billId: billPayment.billId,
          vendorId: billPayment.vendorId,
          status: billPayment.status,
          failureReason: billPayment.failureReason,
          deliveryMethodType: billPayment.deliveryMethodType,
          amountCents: billPayment.amountCents,
          sentAt: billPayment.sentAt,
          completedAt: billPayment.completedAt,
          check: check && {
            checkNumber: check.checkNumber,
            status: check.status,
            sentAt: check.sentAt,
            deliveredAt: check.deliveredAt,
            depositedAt: check.depositedAt,
            returnedAt: check.returnedAt,
            failedAt: check.failedAt,
          },
          billStatus: bill.status,
          windows: deps.checkWindows ?? null,
          posted: result.posted,
          reversed: result.reversed,
        };
      });
    },

    /** A check not delivered, or not cashed, within its window: a warning a person acts on (call the vendor). */
    async reportOverdueCheck(input: ReportOverdueCheckInput): Promise<void> {
      const log = activityLogger(deps, { billPaymentId: input.billPaymentId, vendorId: input.vendorId });
      log.warn(
        {
          overdue: input.kind,
          checkNumber: input.checkNumber,
          since: input.since,
          deadline: input.deadline,
          windowDays: input.windowDays,
          amountCents: input.amountCents,
        },
        input.kind === 'NOT_DELIVERED'
          ? `check not delivered within ${input.windowDays} days of being sent`
          : `check not cashed within ${input.windowDays} days of delivery`,
      );
    },
  };
}
