// The contract between the check-deposit workflow and its activities (implementation:
// src/flows/check-deposit/activities.ts).

export interface ApplyCheckDepositToLinkInput {
  checkDepositId: string;
  paymentLinkId: string;
  /** Omitted: the service's default (the smaller of the deposit's and the link's remainder). */
  amountCents?: number;
  /** Deterministic per command, so a retry gets the existing application back (4.1 rule 5). */
  externalReferenceId: string;
  commandId: string;
}

export interface CheckApplicationResult {
  externalPaymentId: string;
  amountCents: number;
  /** The link's status right after the application. */
  linkStatus: string;
  /** What the link still asks for right after it (requested - completed); absent in older histories. */
  linkRemainderCents?: number;
}

export interface SyncCheckDepositInput {
  checkDepositId: string;
  /** The link of every application this workflow made (externalPaymentId → paymentLinkId). */
  paymentLinkOf: Record<string, string>;
  reason: string;
}

export interface CheckDepositSyncResult {
  checkDepositId: string;
  /** PROCESSING, CLEARED, RETURNED, REJECTED, or a value unknown to booksync. */
  status: string;
  amountCents: number;
  unappliedAmountCents: number;
  clearedAt: string | null;
  returnedAt: string | null;
  /** Live applications as the service lists them. */
  liveApplicationIds: string[];
  /** Live applications this workflow did not make: their link is unknown, so they are not booked (flagged). */
  unknownApplicationIds: string[];
  posted: string[];
  reversed: string[];
}

export interface VoidCheckApplicationInput {
  checkDepositId: string;
  paymentLinkId: string;
  externalPaymentId: string;
  commandId: string;
}

export interface ConfirmApplicationsVoidedInput {
  checkDepositId: string;
  applications: { externalPaymentId: string; paymentLinkId: string }[];
}

export interface LinkAfterReturn {
  paymentLinkId: string;
  status: string;
  completedAmountCents: number;
  /** Applications the service still listed on the link; booksync voided them itself (decision “Void an external payment”). */
  voidedByBooksync: string[];
}

export interface RecordReturnedCheckFeeInput {
  checkDepositId: string;
  paymentLinkId: string;
  amountCents: number;
  externalReferenceId: string;
}

export interface CheckDepositActivities {
  applyCheckDepositToLink(input: ApplyCheckDepositToLinkInput): Promise<CheckApplicationResult>;
  syncCheckDeposit(input: SyncCheckDepositInput): Promise<CheckDepositSyncResult>;
  voidCheckApplication(input: VoidCheckApplicationInput): Promise<CheckApplicationResult>;
  confirmApplicationsVoided(input: ConfirmApplicationsVoidedInput): Promise<LinkAfterReturn[]>;
  recordReturnedCheckFee(input: RecordReturnedCheckFeeInput): Promise<{ debitMemoId: string }>;
}
