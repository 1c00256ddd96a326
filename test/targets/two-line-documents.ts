import type { AccountRole } from '../../src/targets/account-mapping.js';
import type { TargetDocument } from '../../src/targets/target-port.js';

/**
 * Makes documents of two lines on `base`'s day, customer and invoice: `cents` debited to one role and credited
 * to another, described by kind and key, each hashed by `hashOf` (a test keeps its documents' hashes apart);
 * `extra` sets what else the document says (its reference, date, payout…).
 */
export function twoLineDocuments(base: TargetDocument, hashOf: (key: string) => string) {
  return (
    key: string,
    kind: TargetDocument['kind'],
    debit: AccountRole,
    credit: AccountRole,
    cents: number,
    extra: Partial<TargetDocument> = {},
  ): TargetDocument => ({
    ...base,
    key,
    kind,
    amountCents: cents,
    description: `${kind} ${key}`,
    lines: [
      { role: debit, amountCents: cents },
      { role: credit, amountCents: -cents },
    ],
    contentHash: hashOf(key),
    ...extra,
  });
}
