import type { z } from 'zod';
import { EmulatorHttpError } from '../errors.js';

/** Decision “Error bodies”: validation failures answer 400 {error} naming the field; `code` when the route documents one. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where = 'body',
  code?: string,
): z.infer<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.join('.') : where;
  throw new EmulatorHttpError(400, `invalid ${field}: ${issue?.message ?? 'invalid input'}`, code);
}
