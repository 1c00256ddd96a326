import { z } from 'zod';
import { ExternalPayment } from './external-payment.js';
import { cents, externalReferenceId, id, isoDateTime, openEnum, positiveCents } from './primitives.js';

// Spec 2.14, 4.1, decision “Check deposits”.
export const CHECK_DEPOSIT_STATUSES = ['PROCESSING', 'CLEARED', 'RETURNED', 'REJECTED'] as const;
export const CheckDepositStatus = openEnum(CHECK_DEPOSIT_STATUSES);
export type CheckDepositStatus = z.infer<typeof CheckDepositStatus>;

export const CheckDeposit = z.object({
  id,
  transferId: z.string(),
  amountCents: cents,
  unappliedAmountCents: cents,
  status: CheckDepositStatus,
  /** The deposit's live applications. */
  applications: z.array(ExternalPayment),
  memo: z.string().nullable(),
  createdAt: isoDateTime,
  clearedAt: isoDateTime.nullable(),
  returnedAt: isoDateTime.nullable(),
});
export type CheckDeposit = z.infer<typeof CheckDeposit>;

/** 4.1 body. amountCents defaults to min(unapplied, link remaining). */
export const ApplyCheckDepositRequest = z.object({
  paymentLinkId: id,
  amountCents: positiveCents.optional(),
  externalReferenceId: externalReferenceId.optional(),
});
export type ApplyCheckDepositRequest = z.infer<typeof ApplyCheckDepositRequest>;

/** Text fields of the multipart deposit (decision “Check deposits”); frontImage and backImage are files of at most 10 MiB. */
export const DepositCheckFields = z.object({
  amountCents: z.coerce.number().pipe(positiveCents).meta({ type: 'integer', minimum: 1 }),
  memo: z.string().max(500).optional(),
});
export type DepositCheckFields = z.infer<typeof DepositCheckFields>;
