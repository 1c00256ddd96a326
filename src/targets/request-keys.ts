import { createHash } from 'node:crypto';

/**
 * The key a vendor's idempotency token is derived from, for a document the target refused `refusals` times
 * before (PushContext.refusals). Xero and QuickBooks replay the first answer to a repeated token, a refusal
 * included, so a retry after a refusal must send a token of its own; a first push (0) keeps the plain key,
 * so tokens of documents pushed before this existed are unchanged.
 */
export function afterRefusals(key: string, refusals: number): string {
  return refusals > 0 ? `${key}\nafter refusal ${refusals}` : key;
}

const base32 = 'abcdefghijklmnopqrstuvwxyz234567';

/**
 * The number booksync gives a document it numbers itself: `prefix` then base32 characters of the SHA-256 of
 * the entry key, `length` characters in all (the target's limit on a document number).
 */
export function keyTag(key: string, prefix: string, length: number): string {
  const bytes = createHash('sha256').update(key).digest();
  let out = prefix;
  for (let i = 0; out.length < length; i++) out += base32[(bytes[i] ?? 0) % 32];
  return out;
}
