// The contract between the payment-link workflow and its activities (implementation:
// src/flows/payment-link/activities.ts). Every write carries a deterministic externalReferenceId chosen by the
// workflow, so an activity retry gets the existing record back (4.2 / decisions “Reference rule”, “Debit memos”) instead of a second one.

export interface LinkCommandContext {
  paymentLinkId: string;
  /** The command that asked for the write, for the logs. */
  commandId: string;
}

export interface RecordLinkExternalPaymentInput extends LinkCommandContext {
  amountCents: number;
  /** YYYY-MM-DD */
  paidAt: string;
  externalReferenceId: string;
}

export interface RecordLinkDebitMemoInput extends LinkCommandContext {
  amountCents: number;
  description: string;
  externalReferenceId: string;
}

export interface VoidLinkExternalPaymentInput extends LinkCommandContext {
  externalPaymentId: string;
}

export interface VoidLinkDebitMemoInput extends LinkCommandContext {
  debitMemoId: string;
}

export interface LinkWriteResult {
  /** The service id of the record written or voided. */
  recordId: string;
  amountCents: number;
  /** The link's status right after the write, as the service answered it. */
  linkStatus: string;
}

export interface SyncPaymentLinkInput {
  paymentLinkId: string;
  /** Why (a command kind, `returned check fee`, `reconciliation`...), for the logs. */
  reason: string;
  commandIds: string[];
}

export interface LinkRecordView {
  id: string;
  amountCents: number;
  /** external payments: paidAt; debit memos: createdAt. */
  date: string;
  externalReferenceId: string | null;
  /** An external payment applying a check deposit (booked by the check-deposit flow, not this one). */
  appliesCheckDeposit?: boolean;
  description?: string;
}

export interface BookedLinkEntry {
  key: string;
  status: 'live' | 'reversed' | 'reversal';
  amountCents: number;
}

export interface PaymentLinkSyncResult {
  paymentLinkId: string;
  status: string;
  requestedAmountCents: number;
  completedAmountCents: number;
  debitMemoAmountCents: number;
  customerId: string | null;
  externalPayments: LinkRecordView[];
  debitMemos: LinkRecordView[];
  /** What the books hold for this link among the payment-link flow's kinds, after the sync. */
  booked: BookedLinkEntry[];
  posted: string[];
  reversed: string[];
}

export interface PaymentLinkActivities {
  recordLinkExternalPayment(input: RecordLinkExternalPaymentInput): Promise<LinkWriteResult>;
  recordLinkDebitMemo(input: RecordLinkDebitMemoInput): Promise<LinkWriteResult>;
  voidLinkExternalPayment(input: VoidLinkExternalPaymentInput): Promise<LinkWriteResult>;
  voidLinkDebitMemo(input: VoidLinkDebitMemoInput): Promise<LinkWriteResult>;
  syncPaymentLink(input: SyncPaymentLinkInput): Promise<PaymentLinkSyncResult>;
}
