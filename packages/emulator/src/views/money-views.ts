import type {
  CheckDeposit,
  Customer,
  DebitMemo,
  Disbursement,
  ExternalPayment,
  Payment,
  PaymentLink,
  PaymentMethod,
} from '@booksync/service-contract/schemas/index';
import { getOrganization } from '../auth/organizations.js';
import { depositApplications, unappliedAmountCents } from '../domain/check-deposits.js';
import { liveDebitMemos } from '../domain/debit-memos.js';
import { disbursementPaymentIds } from '../domain/disbursements.js';
import { liveExternalPayments } from '../domain/external-payments.js';
import { debitMemoTotalCents } from '../domain/payment-links.js';
import { linkPayments, listedRefunds, paymentStatus } from '../domain/payments.js';
import {
  bool,
  type CheckDepositRow,
  type CustomerRow,
  type DebitMemoRow,
  type DisbursementRow,
  type ExternalPaymentRow,
  type PaymentLinkRow,
  type PaymentRow,
} from '../domain/rows.js';
import { addDays, isoDate } from '../store/clock.js';
import type { Reader } from '../store/store.js';

// Rows to the API shapes of src/service/schemas. Every endpoint that answers one of these uses these.

/** The payer-facing page of a link (2.1 url); the emulator serves none, the address only has to be stable. */
export const payPageBase = 'https://pay.emulator.invalid/l/';

export function externalPaymentView(row: ExternalPaymentRow): ExternalPayment {
  return {
    id: row.id,
    amountCents: row.amount_cents,
    paidAt: row.paid_at,
    voided: row.voided === 1,
    externalReferenceId: row.external_reference_id,
    serviceBankingTransferId: row.service_banking_transfer_id,
  };
}

export function debitMemoView(row: DebitMemoRow): DebitMemo {
  return {
    id: row.id,
    amountCents: row.amount_cents,
    description: row.description,
    voided: row.voided === 1,
    createdAt: row.created_at,
    externalReferenceId: row.external_reference_id,
  };
}

export function disbursementView(reader: Reader, row: DisbursementRow, nested = false): Disbursement {
  return {
    id: row.id,
    status: row.status,
    amountInCents: row.amount_cents,
    bankName: row.bank_name,
    accountNumberLastFour: row.account_number_last_four,
    paymentIds: nested ? [] : disbursementPaymentIds(reader, row.id),
    createdAt: row.created_at,
    paidAt: row.paid_at,
  };
}

export function paymentView(reader: Reader, row: PaymentRow): Payment {
  const status = paymentStatus(reader, row);
  const disbursement =
    row.disbursement_id === null
      ? null
      : (reader.db
          .prepare('SELECT * FROM disbursements WHERE id = ?')
          .get(row.disbursement_id) as DisbursementRow);
  const live = row.cancelled === 0 && row.returned === 0;
  const estimate = disbursement
    ? disbursement.created_at
    : live
      ? isoDate(addDays(new Date(row.created_at_ms), row.method_type === 'ACH' ? 4 : 2))
      : null;
  return {
    id: row.id,
    status,
    fees: row.fee_cents > 0 ? [{ type: 'CREDIT_CARD_FEE', amountInCents: row.fee_cents }] : [],
    amountInCents: row.amount_cents,
    chargedAmountInCents: row.charged_amount_cents,
    platformFeeInCents: row.platform_fee_cents,
    paymentLinkId: row.payment_link_id,
    paymentMethod: JSON.parse(row.payment_method) as PaymentMethod,
    disbursement: disbursement ? disbursementView(reader, disbursement, true) : null,
    refunds: listedRefunds(reader, row.id).map((refund) => ({
      id: refund.id,
      amountCents: refund.amount_cents,
      refundDate: refund.refund_date,
      voided: refund.voided === 1,
    })),
    createdAt: row.created_at_ms,
    estimatedDisbursementDate: estimate,
  };
}

/** Decision “Link endpoints beyond part 4”: every link answer carries debitMemos and debitMemoAmountCents. */
export function paymentLinkView(reader: Reader, row: PaymentLinkRow): PaymentLink {
  const memoTotal = debitMemoTotalCents(reader, row.id);
  const view: PaymentLink = {
    id: row.id,
    name: row.name,
    requestedAmountCents: row.own_amount_cents + memoTotal,
    dueDate: row.due_date,
    status: row.status,
    payments: linkPayments(reader, row.id).map((payment) => paymentView(reader, payment)),
    externalPayments: liveExternalPayments(reader, row.id).map(externalPaymentView),
    debitMemos: liveDebitMemos(reader, row.id).map(debitMemoView),
    debitMemoAmountCents: memoTotal,
    url: `${payPageBase}${row.id}`,
    completedAmountCents: row.completed_amount_cents,
    feePassthroughPercent: row.fee_passthrough_percent,
    creditCardEnabled: bool(row.credit_card_enabled),
    achEnabled: bool(row.ach_enabled),
    amountEditable: row.amount_editable === 1,
    reusable: row.reusable === 1,
  };
  if (row.customer_id !== null) view.customerId = row.customer_id;
  return view;
}

/** 2.9: feePassthroughPercent is the effective value (decision “Precedence”). */
export function customerView(reader: Reader, row: CustomerRow): Customer {
  const org = getOrganization(reader, row.org_id)!;
  return {
    id: row.id,
    name: row.name,
    emails: JSON.parse(row.emails) as string[],
    achEnabled: bool(row.ach_enabled),
    feePassthroughPercent: row.fee_passthrough_percent ?? org.fee_passthrough_percent,
  };
}

export function checkDepositView(reader: Reader, row: CheckDepositRow): CheckDeposit {
  return {
    id: row.id,
    transferId: row.transfer_id,
    amountCents: row.amount_cents,
    unappliedAmountCents: unappliedAmountCents(reader, row),
    status: row.status,
    applications: depositApplications(reader, row.id).map(externalPaymentView),
    memo: row.memo,
    createdAt: row.created_at,
    clearedAt: row.cleared_at,
    returnedAt: row.returned_at,
  };
}
