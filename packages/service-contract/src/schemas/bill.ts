import { z } from 'zod';
import { cents, id, isoDate, isoDateTime, openEnum, positiveCents } from './primitives.js';
import { DeliveryMethodType } from './vendor.js';

// Spec 2.14, part 3, decisions “Bills”, “Bill payments”.
export const BILL_STATUSES = ['OPEN', 'SCHEDULED', 'PAID'] as const;
export const BillStatus = openEnum(BILL_STATUSES);
export type BillStatus = z.infer<typeof BillStatus>;

export const Bill = z.object({
  id,
  vendorId: id,
  amountCents: cents,
  dueDate: isoDate.nullable(),
  invoiceNumber: z.string().nullable(),
  status: BillStatus,
  createdAt: isoDateTime,
});
export type Bill = z.infer<typeof Bill>;

export const CreateBillRequest = z.object({
  vendorId: id,
  amountCents: positiveCents,
  dueDate: isoDate.optional(),
  invoiceNumber: z.string().min(1).max(255).optional(),
});
export type CreateBillRequest = z.infer<typeof CreateBillRequest>;

/** FAILED is also what a cancelled bill payment reports (part 3); failureReason then says CANCELLED. */
export const BILL_PAYMENT_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;
export const BillPaymentStatus = openEnum(BILL_PAYMENT_STATUSES);
export type BillPaymentStatus = z.infer<typeof BillPaymentStatus>;

export const CHECK_STATUSES = ['PENDING', 'SENT', 'DELIVERED', 'DEPOSITED', 'RETURNED', 'FAILED'] as const;
export const CheckStatus = openEnum(CHECK_STATUSES);
export type CheckStatus = z.infer<typeof CheckStatus>;

export const BILL_PAYMENT_FAILURE_CANCELLED = 'CANCELLED';

/** How a bill payment reports its check's progress (decision “Bill payments”). */
export const BillPaymentCheck = z.object({
  checkNumber: z.string().nullable(),
  status: CheckStatus,
  sentAt: isoDateTime.nullable(),
  deliveredAt: isoDateTime.nullable(),
  depositedAt: isoDateTime.nullable(),
  returnedAt: isoDateTime.nullable(),
  failedAt: isoDateTime.nullable(),
});
export type BillPaymentCheck = z.infer<typeof BillPaymentCheck>;

export const BillPayment = z.object({
  id,
  billId: id,
  vendorId: id,
  amountCents: cents,
  status: BillPaymentStatus,
  deliveryMethodId: id,
  deliveryMethodType: DeliveryMethodType,
  sentAt: isoDateTime.nullable(),
  completedAt: isoDateTime.nullable(),
  failureReason: z.string().nullable(),
  /** Present only when the delivery method is CHECK. */
  check: BillPaymentCheck.optional(),
  createdAt: isoDateTime,
});
export type BillPayment = z.infer<typeof BillPayment>;

export const CreateBillPaymentRequest = z.object({ deliveryMethodId: id });
export type CreateBillPaymentRequest = z.infer<typeof CreateBillPaymentRequest>;
