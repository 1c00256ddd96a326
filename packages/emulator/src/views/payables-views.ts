import type {
  Bill,
  BillPayment,
  ChargeAuthorization,
  ChargeAuthorizationPaymentMethod,
  File,
  Vendor,
  VendorDeliveryMethod,
} from '@booksync/service-contract/schemas/index';
import { billStatus } from '../domain/bills.js';
import type {
  BillPaymentRow,
  BillRow,
  ChargeAuthorizationRow,
  FileRow,
  VendorDeliveryMethodRow,
  VendorRow,
} from '../domain/rows.js';
import { currentDeliveryMethods, type DeliveryMethodDetails } from '../domain/vendors.js';
import type { Reader } from '../store/store.js';

export function deliveryMethodView(row: VendorDeliveryMethodRow): VendorDeliveryMethod {
  const details = JSON.parse(row.details) as DeliveryMethodDetails;
  return {
    id: row.id,
    type: row.type,
    achDetails: details.type === 'ACH' ? details.achDetails : null,
    checkAddress: details.type === 'CHECK' ? details.checkAddress : null,
    wireDetails: details.type === 'INTERNATIONAL_WIRE' ? details.wireDetails : null,
    createdAt: row.created_at,
  };
}

export function vendorView(reader: Reader, row: VendorRow): Vendor {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    vendorDeliveryMethods: currentDeliveryMethods(reader, row.id).map(deliveryMethodView),
    createdAt: row.created_at,
  };
}

export function billView(reader: Reader, row: BillRow): Bill {
  return {
    id: row.id,
    vendorId: row.vendor_id,
    amountCents: row.amount_cents,
    dueDate: row.due_date,
    invoiceNumber: row.invoice_number,
    status: billStatus(reader, row.id),
    createdAt: row.created_at,
  };
}

export function billPaymentView(row: BillPaymentRow): BillPayment {
  const view: BillPayment = {
    id: row.id,
    billId: row.bill_id,
    vendorId: row.vendor_id,
    amountCents: row.amount_cents,
    status: row.status,
    deliveryMethodId: row.delivery_method_id,
    deliveryMethodType: row.delivery_method_type,
    sentAt: row.sent_at,
    completedAt: row.completed_at,
    failureReason: row.failure_reason,
    createdAt: row.created_at,
  };
  if (row.delivery_method_type === 'CHECK') {
    view.check = {
      checkNumber: row.check_number,
      status: row.check_status ?? 'PENDING',
      sentAt: row.check_sent_at,
      deliveredAt: row.check_delivered_at,
      depositedAt: row.check_deposited_at,
      returnedAt: row.check_returned_at,
      failedAt: row.check_failed_at,
    };
  }
  return view;
}

export function chargeAuthorizationView(row: ChargeAuthorizationRow): ChargeAuthorization {
  return {
    id: row.id,
    customerId: row.customer_id,
    paymentMethod:
      row.payment_method === null
        ? null
        : (JSON.parse(row.payment_method) as ChargeAuthorizationPaymentMethod),
    transactionLimitCents: row.transaction_limit_cents,
    expirationDate: row.expiration_date,
    active: row.active === 1,
  };
}

export function fileView(row: FileRow): File {
  return { id: row.id, key: row.key, type: row.type, createdAt: row.created_at };
}
