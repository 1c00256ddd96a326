// The contract of the payout reports (src/flows/payout-report/workflow.ts): `booksync payout` starts them by these names,
// importing no workflow code.

export const payoutReportWorkflowType = 'payoutReport';
export const payoutPeriodReportWorkflowType = 'payoutPeriodReport';
