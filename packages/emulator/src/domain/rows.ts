// The emulator's stored rows, one interface per table, exactly as SQLite returns them (0/1 for booleans).
// API shapes are not here: they come from src/service/schemas (views/).

export interface CustomerRow {
  id: string;
  org_id: string;
  name: string;
  emails: string;
  ach_enabled: number | null;
  fee_passthrough_percent: number | null;
  created_at: string;
  seq: number;
}

export interface PaymentLinkRow {
  id: string;
  org_id: string;
  name: string;
  own_amount_cents: number;
  due_date: string | null;
  customer_id: string | null;
  reusable: number;
  archived: number;
  fee_passthrough_percent: number | null;
  credit_card_enabled: number | null;
  ach_enabled: number | null;
  amount_editable: number;
  status: string;
  completed_amount_cents: number;
  created_at: string;
  seq: number;
}

export interface ExternalPaymentRow {
  id: string;
  org_id: string;
  payment_link_id: string;
  amount_cents: number;
  paid_at: string;
  voided: number;
  external_reference_id: string | null;
  check_deposit_id: string | null;
  service_banking_transfer_id: string | null;
  created_at: string;
  seq: number;
}

export interface DebitMemoRow {
  id: string;
  org_id: string;
  payment_link_id: string;
  amount_cents: number;
  description: string;
  voided: number;
  external_reference_id: string | null;
  created_at: string;
  seq: number;
}

export interface CheckDepositRow {
  id: string;
  org_id: string;
  transfer_id: string;
  amount_cents: number;
  status: 'PROCESSING' | 'CLEARED' | 'RETURNED' | 'REJECTED';
  memo: string | null;
  created_at: string;
  cleared_at: string | null;
  returned_at: string | null;
  seq: number;
}

export interface PaymentRow {
  id: string;
  org_id: string;
  payment_link_id: string | null;
  method_type: 'ACH' | 'Card' | 'ServiceBalance';
  payment_method: string;
  amount_cents: number;
  charged_amount_cents: number;
  fee_cents: number;
  platform_fee_cents: number;
  settled: number;
  sent_to_network: number;
  cancelled: number;
  returned: number;
  disbursement_id: string | null;
  created_at_ms: number;
  settled_at: string | null;
  seq: number;
}

export interface RefundRow {
  id: string;
  payment_id: string;
  amount_cents: number;
  reason: string | null;
  refund_date: string;
  voided: number;
  returned: number;
  returned_at: string | null;
  seq: number;
}

export interface DisbursementRow {
  id: string;
  org_id: string;
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED';
  amount_cents: number;
  bank_name: string;
  account_number_last_four: string;
  created_at: string;
  paid_at: string | null;
  seq: number;
}

export interface ChargeAuthorizationRow {
  id: string;
  org_id: string;
  customer_id: string;
  payment_method: string | null;
  transaction_limit_cents: number;
  expiration_date: string;
  active: number;
  emails: string;
  memo: string | null;
  send_email: number;
  created_at: string;
}

export interface FileRow {
  id: string;
  org_id: string;
  key: string;
  type: 'ACH_DEBIT_AUTHORIZATION_PDF' | 'CREDIT_CARD_AUTHORIZATION_PDF' | 'INVOICE_PDF';
  size_bytes: number;
  customer_id: string | null;
  bank_account_fingerprint: string | null;
  created_at: string;
}

export interface VendorRow {
  id: string;
  org_id: string;
  name: string;
  email: string | null;
  deleted: number;
  created_at: string;
}

export interface VendorDeliveryMethodRow {
  id: string;
  vendor_id: string;
  type: 'ACH' | 'CHECK' | 'INTERNATIONAL_WIRE';
  details: string;
  replaced: number;
  created_at: string;
  seq: number;
}

export interface BillRow {
  id: string;
  org_id: string;
  vendor_id: string;
  amount_cents: number;
  due_date: string | null;
  invoice_number: string | null;
  created_at: string;
}

export interface BillPaymentRow {
  id: string;
  org_id: string;
  bill_id: string;
  vendor_id: string;
  amount_cents: number;
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED';
  delivery_method_id: string;
  delivery_method_type: 'ACH' | 'CHECK';
  sent_at: string | null;
  completed_at: string | null;
  failure_reason: string | null;
  check_number: string | null;
  check_status: 'PENDING' | 'SENT' | 'DELIVERED' | 'DEPOSITED' | 'RETURNED' | 'FAILED' | null;
  check_sent_at: string | null;
  check_delivered_at: string | null;
  check_deposited_at: string | null;
  check_returned_at: string | null;
  check_failed_at: string | null;
  created_at: string;
}

export interface WebhookSubscriptionRow {
  id: string;
  org_id: string;
  kind: 'API' | 'LEGACY';
  url: string;
  secret: string | null;
  created_at: string;
  replaced_at: string | null;
}

export const bool = (value: number | null): boolean | null => (value === null ? null : value === 1);
export const bit = (value: boolean | null | undefined): number | null =>
  value === null || value === undefined ? null : value ? 1 : 0;
