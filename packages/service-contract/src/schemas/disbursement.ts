import { z } from 'zod';
import { cents, id, isoDate, openEnum } from './primitives.js';

// Spec 2.5, decision “Disbursement statuses”.
export const DISBURSEMENT_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;
export const DisbursementStatus = openEnum(DISBURSEMENT_STATUSES);
export type DisbursementStatus = z.infer<typeof DisbursementStatus>;

export const Disbursement = z.object({
  id,
  status: DisbursementStatus,
  amountInCents: cents,
  bankName: z.string(),
  accountNumberLastFour: z.string(),
  /** [] when nested in a Payment, to keep the nesting bounded (decision “Disbursement statuses”). */
  paymentIds: z.array(id),
  createdAt: isoDate.nullable(),
  paidAt: isoDate.nullable(),
});
export type Disbursement = z.infer<typeof Disbursement>;
