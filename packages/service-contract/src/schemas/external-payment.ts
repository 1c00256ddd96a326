import { z } from 'zod';
import { cents, externalReferenceId, id, isoDate, positiveCents } from './primitives.js';

// Spec 2.7, 4.2, decisions “Void an external payment” to “Reference rule”.
export const ExternalPayment = z.object({
  id,
  amountCents: cents,
  /** The date the money moved, as stated by the caller. */
  paidAt: isoDate,
  voided: z.boolean(),
  externalReferenceId: z.string().nullable(),
  /** The deposit's transferId when this record applies a check deposit (4.1), else null. */
  serviceBankingTransferId: z.string().nullable(),
});
export type ExternalPayment = z.infer<typeof ExternalPayment>;

/** 4.2 body (decision “Record an external payment”). */
export const RecordExternalPaymentRequest = z.object({
  amountCents: positiveCents,
  paidAt: isoDate,
  externalReferenceId: externalReferenceId.optional(),
});
export type RecordExternalPaymentRequest = z.infer<typeof RecordExternalPaymentRequest>;
