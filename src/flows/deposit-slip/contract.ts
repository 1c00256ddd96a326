// The contract of a deposit slip (src/flows/deposit-slip/workflow.ts): the command API and the console start it by
// this name, importing no workflow code.

export type { DepositSlip, DepositSlipOutcome } from './activities-contract.js';

export const depositSlipWorkflowType = 'depositSlip';

/**
 * One workflow id a slip number: two requests for the same slip meet in one run (the second waits for the
 * first's outcome), and a slip asked for again later is a new run that finds it booked.
 */
export const depositSlipWorkflowId = (reference: string) => `deposit-slip-${reference}`;
