import { bookDepositSlip, DepositSlipRefusedError } from '../../ledger/deposit-slips.js';
import { type ActivityDependencies, activityLogger } from '../in-activity/context.js';
import { translatingFailures } from '../in-activity/failures.js';
import type { DepositSlipActivities } from './activities-contract.js';

export function createDepositSlipActivities(deps: ActivityDependencies): DepositSlipActivities {
  return {
    bookDepositSlip: (slip) =>
      translatingFailures(async () => {
        const log = activityLogger(deps, { depositSlip: slip.reference });
        try {
          const booked = await bookDepositSlip(deps.ledger, slip);
          log.info(
            { key: booked.key, totalCents: booked.totalCents, created: booked.created },
            booked.created ? 'deposit slip booked' : 'deposit slip booked already',
          );
          return { status: 'BOOKED', slip: booked };
        } catch (error) {
          if (!(error instanceof DepositSlipRefusedError)) throw error;
          log.warn({ reasons: error.reasons }, 'deposit slip refused');
          return { status: 'REFUSED', reasons: [...error.reasons] };
        }
      }),
  };
}
