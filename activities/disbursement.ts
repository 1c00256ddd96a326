import { disbursementEntries, disbursementEntryKinds } from '../src/accounting/mapping/index.js';
import { syncEntries } from '../src/accounting/sync.js';
import { type ActivityDependencies, accountingDate, activityLogger } from './context.js';
import type {
  DisbursementActivities,
  DisbursementSyncResult,
  SyncDisbursementInput,
} from './disbursement-sync.js';
import { translatingFailures } from './failures.js';

export function createDisbursementActivities(deps: ActivityDependencies): DisbursementActivities {
  return {
    async syncDisbursement({
      disbursementId,
      eventIds,
    }: SyncDisbursementInput): Promise<DisbursementSyncResult> {
      return translatingFailures(async () => {
        const log = activityLogger(deps, { disbursementId, eventIds });
        const disbursement = await deps.service.getDisbursement(disbursementId);
        const result = await syncEntries(
          deps.ledger,
          disbursementEntries(disbursement),
          { disbursementId },
          {
            kinds: disbursementEntryKinds,
            date: accountingDate(deps),
            reason: `disbursement ${disbursementId} is ${disbursement.status}`,
          },
        );

        // The payout is what its payments left at the service: gross, less the absorbed fee and live refunds.
        let expected = 0;
        for (const paymentId of disbursement.paymentIds) {
          const payment = await deps.service.getPayment(paymentId);
          // Refunds made after the batch lower the clearing balance later, not this payout.
          const batchedOn = disbursement.createdAt ?? '9999-12-31';
          const refunded = payment.refunds
            .filter((r) => !r.voided && r.refundDate.slice(0, 10) <= batchedOn)
            .reduce((sum, r) => sum + r.amountCents, 0);
          expected += payment.amountInCents - payment.platformFeeInCents - refunded;
        }
        const amountMatchesPayments = expected === disbursement.amountInCents;
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
