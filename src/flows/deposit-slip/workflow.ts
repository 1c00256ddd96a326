import { log, proxyActivities } from '@temporalio/workflow';
import { serviceCallRetry } from '../../workflow-safe/retry-policy.js';
import type { DepositSlip, DepositSlipActivities, DepositSlipOutcome } from './activities-contract.js';

/**
 * A bookkeeper's deposit slip: the checks received outside the service that one slip took to the bank. One
 * activity books it in the ledger (or answers why it cannot); the outcome is the workflow's result. Nothing
 * at the service changes: the slip is the business's own record.
 */
export async function depositSlip(slip: DepositSlip): Promise<DepositSlipOutcome> {
  const { bookDepositSlip } = proxyActivities<DepositSlipActivities>({
    startToCloseTimeout: '2m',
    retry: { ...serviceCallRetry, maximumAttempts: 5 },
  });
  const outcome = await bookDepositSlip(slip);
  log.info('deposit slip', { reference: slip.reference, status: outcome.status });
  return outcome;
}
