import { z } from 'zod';
import { cents, id, isoDateTime } from './primitives.js';

// Spec 2.6. voided is true when the refund cancelled an unsettled charge (part 3, decision “Settlement and voids”).
export const Refund = z.object({
  id,
  amountCents: cents,
  refundDate: isoDateTime,
  voided: z.boolean(),
});
export type Refund = z.infer<typeof Refund>;
