// The contract between the disbursement workflow and its activity (implementation: src/flows/disbursement/activities.ts).

export interface SyncDisbursementInput {
  disbursementId: string;
  eventIds: string[];
  /**
   * When the payout was batched, to the millisecond: the createdAt of its disbursement.pending event, when the
   * workflow saw one. Disbursement.createdAt is only a date, so without it a refund made the same day cannot
   * be placed before or after the batch.
   */
  batchedAt?: string;
}

export interface DisbursementSyncResult {
  disbursementId: string;
  /** PENDING, SUCCEEDED, FAILED, or a value unknown to booksync. */
  status: string;
  amountInCents: number;
  paymentIds: string[];
  /** Whether amountInCents equals what its payments left in Processor Clearing (decision “Disbursement statuses”); false is flagged. */
  amountMatchesPayments: boolean;
  posted: string[];
  reversed: string[];
}

export interface DisbursementActivities {
  syncDisbursement(input: SyncDisbursementInput): Promise<DisbursementSyncResult>;
}
