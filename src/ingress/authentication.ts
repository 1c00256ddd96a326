import { verify } from '@booksync/service-contract/webhook-signature';
import { IngressError } from './errors.js';

// Spec 6.4 and 6.1 rule 3. A present signature is always checked, even when unsigned deliveries are allowed:
// a bad one means a wrong or stale secret, which should be loud rather than waved through.

export interface AuthenticationPolicy {
  /** Every secret currently valid (several during rotation). */
  secrets: readonly string[];
  /** Accept deliveries without a Service-Signature header (legacy subscription with secret null). */
  allowUnsigned: boolean;
  toleranceSeconds: number;
}

export type DeliveryMode = 'signed' | 'unsigned';

/** Resolves how the delivery was authenticated, or throws a 401 whose code is the verification reason. */
export function authenticateDelivery(
  rawBody: Buffer,
  header: string | string[] | undefined,
  policy: AuthenticationPolicy,
): DeliveryMode {
  if (header === undefined && policy.allowUnsigned) return 'unsigned';
  const result = verify(rawBody, header, policy.secrets, { toleranceSeconds: policy.toleranceSeconds });
  if (result.ok) return 'signed';
  throw new IngressError(401, result.reason, `signature rejected: ${result.reason.replaceAll('_', ' ')}`);
}
