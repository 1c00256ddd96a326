import { disbursementEntries, disbursementEntryKinds } from '../../ledger/mapping/index.js';
import { syncEntries } from '../../ledger/sync.js';
import {
  type ActivityDependencies,
  accountingDate,
  activityLogger,
  payoutBookingOptions,
} from '../in-activity/context.js';
import { translatingFailures } from '../in-activity/failures.js';
import type {
  DisbursementActivities,
  DisbursementSyncResult,
  SyncDisbursementInput,
} from './activities-contract.js';

export function createDisbursementActivities(deps: ActivityDependencies): DisbursementActivities {
  return {
    async syncDisbursement({
      disbursementId,
      eventIds,
      batchedAt,
    }: SyncDisbursementInput): Promise<DisbursementSyncResult> {
      return translatingFailures(async () => {
        const log = activityLogger(deps, { disbursementId, eventIds });
        const disbursement = await deps.service.getDisbursement(disbursementId);
        const result = await syncEntries(
          deps.ledger,
          disbursementEntries(disbursement, payoutBookingOptions(deps)),
          { disbursementId },
          {
            kinds: disbursementEntryKinds,
            date: accountingDate(deps),
            reason: `disbursement ${disbursementId} is ${disbursement.status}`,
          },
        );

        // The payout is what its payments left at the service when it was batched: gross, less the absorbed
        // fee and the refunds made before the batch (decision “Disbursement statuses”). Refunds made after it lower a later payout.
        const batchedOn = disbursement.createdAt ?? '9999-12-31';
        const batchedAtMs = batchedAt ? Date.parse(batchedAt) : Number.NaN;
        let expected = 0;
        let sameDayUnplaced = 0;
        for (const paymentId of disbursement.paymentIds) {
          const payment = await deps.service.getPayment(paymentId);
          let refunded = 0;
          for (const refund of payment.refunds) {
            if (refund.voided) continue;
            const day = refund.refundDate.slice(0, 10);
            if (day < batchedOn) refunded += refund.amountCents;
            else if (day === batchedOn) {
              if (Number.isNaN(batchedAtMs)) sameDayUnplaced += refund.amountCents;
              else if (Date.parse(refund.refundDate) <= batchedAtMs) refunded += refund.amountCents;
            }
          }
          expected += payment.amountInCents - payment.platformFeeInCents - refunded;
        }
        // Without the batch time, a refund of the batch day may fall on either side of it: both readings count.
        const amountMatchesPayments =
          expected === disbursement.amountInCents ||
          (sameDayUnplaced > 0 && expected - sameDayUnplaced === disbursement.amountInCents);
        if (!amountMatchesPayments) {
          log.warn(
            { amountInCents: disbursement.amountInCents, expectedCents: expected },
            'disbursement amount differs from its payments',
          );
        }
        log.info(
          { status: disbursement.status, posted: result.posted, reversed: result.reversed },
          'disbursement synced',
        );
        return {
          disbursementId,
          status: disbursement.status,
          amountInCents: disbursement.amountInCents,
          paymentIds: disbursement.paymentIds,
          amountMatchesPayments,
          posted: result.posted,
          reversed: result.reversed,
        };
      });
    },
  };
}
