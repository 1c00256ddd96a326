// The contract between the payment workflow and its activity. The implementation (fetch the payment from
// the service, book the difference into the ledger) lives in src/flows/payment/activities.ts.

export interface SyncPaymentInput {
  paymentId: string;
  /** Event ids that triggered this sync, for the logs. */
  eventIds: string[];
  /**
   * The triggering events' categories and created_at: the service's time of a return or a cancellation,
   * which dates its reversal. Absent from runs recorded before it was sent (then dated the day synced).
   */
  events?: PaymentEventTime[];
  workflowId: string;
}

/** A service event as far as it dates what it reports: its category and created_at (ISO 8601). */
export interface PaymentEventTime {
  category: string;
  createdAt: string;
}

export interface PaymentSyncResult {
  paymentId: string;
  /** Service status as fetched: PENDING, SUCCEEDED, REFUNDED, FAILED, or a value unknown to booksync. */
  status: string;
  methodType: string | null;
  paymentLinkId: string | null;
  customerId: string | null;
  amountInCents: number;
  /** When payment.made fired (the payment's createdAt), ISO 8601: the ACH return window starts here. */
  madeAt: string;
  /** Ledger keys this sync posted and reversed (empty when the books already matched). */
  posted: string[];
  reversed: string[];
}

export interface PaymentActivities {
  syncPayment(input: SyncPaymentInput): Promise<PaymentSyncResult>;
}
