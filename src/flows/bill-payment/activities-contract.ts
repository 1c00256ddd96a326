// The contract between the bill payment workflow and its activities (implementation: src/flows/bill-payment/activities.ts).

export interface SyncBillPaymentInput {
  billPaymentId: string;
  /** Event ids that triggered this sync, for the logs. */
  eventIds: string[];
}

export interface CheckProgress {
  checkNumber: string | null;
  /** PENDING, SENT, DELIVERED, DEPOSITED, RETURNED, FAILED, or a value unknown to booksync. */
  status: string;
  sentAt: string | null;
  deliveredAt: string | null;
  depositedAt: string | null;
  returnedAt: string | null;
  failedAt: string | null;
}

export interface BillPaymentSyncResult {
  billPaymentId: string;
  billId: string;
  vendorId: string;
  /** PENDING, SUCCEEDED, FAILED (returned, failed or cancelled), or a value unknown to booksync. */
  status: string;
  /** CANCELLED, CHECK_RETURNED, CHECK_FAILED, ACH_FAILED... when FAILED. */
  failureReason: string | null;
  deliveryMethodType: string;
  amountCents: number;
  sentAt: string | null;
  completedAt: string | null;
  /** Present for checks only. */
  check: CheckProgress | null;
  /** The bill's status after this payment's change (OPEN again after a failure: owed again). */
  billStatus: string | null;
  /** The deployment's check windows (settings), when configured; the workflow falls back to its defaults. */
  windows: { deliveryDays: number; cashingDays: number } | null;
  /** Ledger keys this sync posted and reversed (empty when the books already matched). */
  posted: string[];
  reversed: string[];
}

export type OverdueCheckKind = 'NOT_DELIVERED' | 'NOT_CASHED';

export interface ReportOverdueCheckInput {
  billPaymentId: string;
  kind: OverdueCheckKind;
  checkNumber: string | null;
  /** When the window started (sentAt or deliveredAt) and ended, ISO 8601. */
  since: string;
  deadline: string;
  windowDays: number;
  amountCents: number;
  vendorId: string;
}

export interface BillPaymentActivities {
  syncBillPayment(input: SyncBillPaymentInput): Promise<BillPaymentSyncResult>;
  reportOverdueCheck(input: ReportOverdueCheckInput): Promise<void>;
}
