import { createHash } from 'node:crypto';
import { keyTag } from '../request-keys.js';

// What ties a Xero record to a ledger entry key, deterministically:
// - Idempotency-Key (Xero replays the first answer to a repeated key for 6 minutes): `bs-` + base64url SHA-256
//   of the organisation (tenant), the key, the operation and the body sent, 46 characters (Xero allows 128).
//   Xero keeps keys per app, not per organisation: without the tenant, the same contacts created in two
//   organisations within 6 minutes would get the first one's answer. The same document retried after a lost
//   answer sends the same body (same key: replayed); a document refused and retried after a fix (an account
//   added, a mapping corrected) sends another body, hence another key. push() looks the key up first, so a
//   changed body, or a retry after Xero forgot the key, never duplicates a record Xero already has.
// - number tag: `bs-` + 16 base32 characters of the key's digest, the InvoiceNumber of the invoices booksync
//   numbers itself (a debit memo's charge invoice, a bill without the vendor's number).
// - the marker (../markers.ts): `booksync key=... hash=...`, in Reference (invoices, payments, bank
//   transactions, transfers, credit notes; after the business's own reference of the money when it has one,
//   references.ts), at the start of Narration (manual journals) or at the end of a bill's first line (Xero
//   keeps Reference for sales invoices only).

const digest = (text: string) => createHash('sha256').update(text).digest();

export function idempotencyKey(tenantId: string, key: string, operation: string, body: unknown): string {
  return `bs-${digest(`${tenantId}\n${operation}\n${key}\n${JSON.stringify(body)}`).toString('base64url')}`;
}

export const numberTag = (key: string): string => keyTag(key, 'bs-', 19);

/** A string literal of Xero's `where` filter language (C#-like: double quotes, backslash escapes). */
export function literal(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
