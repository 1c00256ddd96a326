import { z } from 'zod';
import { id, percent } from './primitives.js';

// Spec 2.9, 4.7, decisions “Precedence”, “Customer endpoints beyond part 4”.
export const Customer = z.object({
  id,
  name: z.string(),
  emails: z.array(z.string()),
  /** Per-customer override; null inherits the organization default. */
  achEnabled: z.boolean().nullable(),
  /** Effective value: the override if set, else the organization default (decision “Precedence”). */
  feePassthroughPercent: percent,
});
export type Customer = z.infer<typeof Customer>;

export const CreateCustomerRequest = z.object({
  name: z.string().min(1),
  emails: z.array(z.email()).optional(),
  achEnabled: z.boolean().nullable().optional(),
  feePassthroughPercent: percent.nullable().optional(),
});
export type CreateCustomerRequest = z.infer<typeof CreateCustomerRequest>;

/** 4.7: every field optional; omitted is unchanged, null clears the override. */
export const UpdateCustomerRequest = z.object({
  name: z.string().min(1).optional(),
  emails: z.array(z.email()).optional(),
  achEnabled: z.boolean().nullable().optional(),
  feePassthroughPercent: percent.nullable().optional(),
});
export type UpdateCustomerRequest = z.infer<typeof UpdateCustomerRequest>;
