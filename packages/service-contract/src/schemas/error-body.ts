import { z } from 'zod';
import { openEnum } from './primitives.js';

// Spec part 7. code appears only on errors a client can act on; unknown codes are kept as is.
export const ERROR_CODES = [
  'REFERENCE_CONFLICT',
  'SHARED_ACCOUNT',
  'SERVICE_BANKING_NOT_ACTIVE',
  'MISSING_PERMISSION',
] as const;
export const ErrorCode = openEnum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const ErrorBody = z.object({
  error: z.string(),
  code: ErrorCode.optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** Decision “Team members and permissions” permission names, named in MISSING_PERMISSION messages. */
export const PERMISSIONS = ['BANKING_VIEW', 'BANKING_MANAGE', 'PAYMENTS_REFUND', 'WEBHOOKS_MANAGE'] as const;
export type Permission = (typeof PERMISSIONS)[number];
