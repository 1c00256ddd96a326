/**
 * The key a vendor's idempotency token is derived from, for a document the target refused `refusals` times
 * before (PushContext.refusals). Xero and QuickBooks replay the first answer to a repeated token, a refusal
 * included, so a retry after a refusal must send a token of its own; a first push (0) keeps the plain key,
 * so tokens of documents pushed before this existed are unchanged.
 */
export function afterRefusals(key: string, refusals: number): string {
  return refusals > 0 ? `${key}\nafter refusal ${refusals}` : key;
}
