import { z } from 'zod';
import { cents, externalReferenceId, id, isoDateTime, positiveCents } from './primitives.js';

// Spec 2.8, decision “Debit memos”.
export const DebitMemo = z.object({
  id,
  amountCents: cents,
  description: z.string(),
  voided: z.boolean(),
  createdAt: isoDateTime,
  externalReferenceId: z.string().nullable(),
});
export type DebitMemo = z.infer<typeof DebitMemo>;

export const RecordDebitMemoRequest = z.object({
  amountCents: positiveCents,
  description: z.string().min(1).max(500),
  externalReferenceId: externalReferenceId.optional(),
});
export type RecordDebitMemoRequest = z.infer<typeof RecordDebitMemoRequest>;
