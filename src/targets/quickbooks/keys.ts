import { createHash } from 'node:crypto';
import { afterRefusals, keyTag } from '../request-keys.js';

export { marker, markersIn } from '../markers.js';

// What ties a QBO record to a ledger entry key, deterministically, so a retried or replayed push after a
// crash lands on the same record:
// - requestid: QBO answers a repeated requestid with the first result (for a while Intuit does not say, and
//   not always: the adapter never relies on it alone, push() looks its marker up first whenever an earlier
//   attempt may have written). A UUID-shaped digest of the key and the operation (create, void, ...) so one
//   key's operations never share an id, and of the company (realmRequestId, for every request the client
//   sends) so no two companies share one.
// - DocNumber tag: `bs` + 19 base32 characters of the key's digest (QBO's 21-character limit), written on
//   every document booksync numbers itself and looked up with `select * from X where DocNumber = '...'`.
// - marker: `booksync key=... hash=...` in PrivateNote, the key and content hash read back by find().

const digest = (text: string) => createHash('sha256').update(text).digest();

export function requestIdFor(key: string, operation: string): string {
  const hex = digest(`${operation}\n${key}`).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** The requestid QBO is sent: the caller's, of this company only (two companies never share a requestid). */
export function realmRequestId(realmId: string, requestid: string): string {
  return requestIdFor(`${realmId}\n${requestid}`, 'realm');
}

/**
 * A create's requestid: the key and the body sent. The same document retried after a lost answer sends the
 * same body (same id, QBO replays the record); a document refused and retried after a fix (an account added,
 * a mapping corrected) sends another body, so a QBO that also replays refusals cannot answer it with the
 * old refusal; nor can a retry after the company was fixed with the same body, since the id counts the
 * document's earlier refusals (afterRefusals). push() looks the key up first, so a changed body never duplicates a record QBO already has.
 */
export function createRequestId(key: string, body: unknown, refusals: number): string {
  return requestIdFor(`${afterRefusals(key, refusals)}\n${JSON.stringify(body)}`, 'create');
}

export const docNumberTag = (key: string): string => keyTag(key, 'bs', 21);

/** QBO's query language quotes with single quotes and escapes them with a backslash. */
export function quoted(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
