// The contract between the deposit-slip workflow and its activity (implementation: src/flows/deposit-slip/activities.ts).
// Types only: the workflow imports nothing that does I/O.

import type { DepositSlipBooked } from '../../ledger/deposit-slips.js';
import type { DepositSlip } from '../../ledger/mapping/deposit-slip.js';

export type { DepositSlipBooked } from '../../ledger/deposit-slips.js';
export type { DepositSlip, DepositSlipPayment, HeldPayment } from '../../ledger/mapping/deposit-slip.js';

/** What became of a slip: booked (or found booked already, `created: false`), or refused with its reasons. */
export type DepositSlipOutcome =
  | { status: 'BOOKED'; slip: DepositSlipBooked }
  | { status: 'REFUSED'; reasons: string[] };

export interface DepositSlipActivities {
  /**
   * Books the slip in the ledger (src/ledger/deposit-slips.ts): one entry taking the named external payments
   * from Checks To Deposit to Operating Bank on the bank date. A slip the books cannot take is answered
   * REFUSED, never retried; nothing is written then.
   */
  bookDepositSlip(slip: DepositSlip): Promise<DepositSlipOutcome>;
}
