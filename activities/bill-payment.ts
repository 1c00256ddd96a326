import { billPaymentEntries, billPaymentEntryKinds } from '../src/ledger/mapping/index.js';
import { syncEntries } from '../src/ledger/sync.js';
import type {
  BillPaymentActivities,
  BillPaymentSyncResult,
  ReportOverdueCheckInput,
  SyncBillPaymentInput,
} from './bill-payment-contract.js';
import { type ActivityDependencies, accountingDate, activityLogger, logBooked } from './context.js';
import { translatingFailures } from './failures.js';
import { syncBillBooks } from './invoice-books.js';

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
        const billBooked = await syncBillBooks(deps, bill);
        const result = await syncEntries(
          deps.ledger,
          billPaymentEntries(billPayment, deps.timeZone),
          { billPaymentId },
          {
            kinds: billPaymentEntryKinds,
            date: accountingDate(deps),
            reason: `bill payment ${billPaymentId} is ${billPayment.status}${
              billPayment.failureReason ? ` (${billPayment.failureReason})` : ''
            }`,
          },
        );
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
