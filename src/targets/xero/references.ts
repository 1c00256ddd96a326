import type { TargetDocument } from '../target-port.js';

// Where the business's own reference of the money goes at Xero (README "References").
// Xero has one free text on a Payment, a bank transaction and a bank transfer: Reference, what Find & Match
// searches ("search by name, invoice number or amount, reference or cheque number",
// https://help.xero.com/int/BankAccounts-Reconciliation-Search) and what a bookkeeper reads on the bank
// reconciliation screen. booksync's marker must stay there too (the only field Xero's `where` filters of
// those records that booksync can write), so Reference is the business's reference first, the marker after:
// `CHK-1042 booksync key=... hash=...`. Money with no such reference keeps the marker alone, as before.

/** Xero's length of Reference booksync keeps to (xero_accounting.yaml gives 255 for a batch payment's). */
export const REFERENCE_LENGTH = 255;

/**
 * A record's Reference: the document's business reference, then `markerText` (the marker and what follows
 * it), within 255 characters. The marker is never cut: a long business reference is, to what is left.
 */
export function withBusinessReference(doc: TargetDocument, markerText: string): string {
  const room = REFERENCE_LENGTH - markerText.length - 1;
  const reference = doc.businessReference?.slice(0, Math.max(room, 0)).trim();
  return reference ? `${reference} ${markerText}` : markerText;
}
