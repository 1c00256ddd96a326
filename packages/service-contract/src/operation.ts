import type { z } from 'zod';

// One operation of the service as the client, the OpenAPI document and the spec checklist see it (operations.ts
// lists them all), and the small builders the operation tables are written with.

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * When the client may resend after a transient failure: `safe` (reads), `withReference` (a write the service
 * deduplicates by externalReferenceId, only when the caller gave one: 4.1 rule 5, decisions “Reference rule”, “Debit memos”), `never`.
 */
export type RetryRule = 'safe' | 'withReference' | 'never';

export interface Operation<R extends z.ZodType = z.ZodType> {
  /** operationId in OpenAPI, and the client method's name. */
  id: string;
  method: HttpMethod;
  /** Path template with {param} segments. */
  path: string;
  /** Spec section or decision that defines it. */
  section: string;
  summary: string;
  body?: { schema: z.ZodType; contentType: 'application/json' | 'multipart/form-data' };
  query?: z.ZodObject;
  response: R;
  successStatus: 200 | 201;
  /** A create that answers 200 with the existing record when its externalReferenceId repeats (decisions “Reference rule”, “Debit memos”). */
  repeatStatus?: 200;
  /** Error statuses this operation documents; every one answers the part 7 error body. */
  errorStatuses: readonly number[];
  retry: RetryRule;
  /** Under /serviceBanking: may answer 403 SERVICE_BANKING_NOT_ACTIVE (part 5 rule 4). */
  banking?: boolean;
}

export function op<R extends z.ZodType>(operation: Operation<R>): Operation<R> {
  return operation;
}

export const json = (schema: z.ZodType) => ({ schema, contentType: 'application/json' as const });
export const multipart = (schema: z.ZodType) => ({ schema, contentType: 'multipart/form-data' as const });

// Part 7 shows statuses only for 4.1; for the rest, decision “Statuses of the other endpoints”: 400 invalid, 401/403 auth, 404 missing, 500.
export const read = [401, 403, 404, 500] as const;
export const write = [400, 401, 403, 404, 500] as const;
export const create = [400, 401, 403, 500] as const;
export const withConflict = [400, 401, 403, 404, 409, 500] as const;
