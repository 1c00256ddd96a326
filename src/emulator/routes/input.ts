import type { z } from 'zod';
import { badRequest } from '../errors.js';

/** D2: validation failures answer 400 {error} naming the field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where = 'body'): z.infer<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.join('.') : where;
  throw badRequest(`invalid ${field}: ${issue?.message ?? 'invalid input'}`);
}
