import { baseKey, isReversalKey, keyPrefix } from '../../ledger/entry-key.js';
import type { RemoteRecord } from '../target-port.js';
import {
  type FoundRecord,
  hashIn,
  heldAsInvoice,
  type InvoiceRow,
  type MoveRow,
  markerLike,
} from './helpers.js';
import type { TrytonSession } from './session.js';

// Look-ups by entry key: booksync's marker (`booksync:{key} {hash}`) in an invoice's or a move's description.

/** The record holding the key as the port reports it (RemoteRecord), whether or not its posting is done. */
export async function findByKey(s: TrytonSession, key: string): Promise<RemoteRecord | null> {
  const found = await findRecord(s, key);
  if (!found) return null;
  const { remoteIds, contentHash } = found;
  return { key, remoteIds, contentHash };
}

/** The invoice or move holding the key, and whether its posting is still to do. */
export async function findRecord(s: TrytonSession, key: string): Promise<FoundRecord | null> {
  // A key's kind says where Tryton keeps it: one search instead of two on the hot path.
  if (!heldAsInvoice(key)) return moveRecord(s, key);
  // One invoice a key, or a lowering's credit notes in parts (lowerings.ts): all of them, in creation order.
  const invoices = await s.rpc.searchRead<InvoiceRow>(
    'account.invoice',
    [['description', 'like', markerLike(key)]],
    ['move', 'description', 'state'],
    keyPrefix(key) === 'invoice-adjustment' ? null : 1,
  );
  invoices.sort((a, b) => a.id - b.id);
  const invoice = invoices[0];
  if (invoice) {
    const draft = invoices.find((i) => i.state === 'draft');
    return {
      key,
      remoteIds: invoices.flatMap((i) => [
        `account.invoice,${i.id}`,
        ...(i.move ? [`account.move,${i.move}`] : []),
      ]),
      contentHash: hashIn(invoice.description, key) ?? '',
      draft: draft ? { model: 'account.invoice', id: draft.id } : null,
    };
  }
  // A link's invoice still owed when the books opened is the receivable brought forward, a move
  // (opening-receivables.ts).
  if (keyPrefix(baseKey(key)) === 'invoice') return moveRecord(s, key);
  // A lowering written off as bad debt is a move, and so is its reversal (writesOffInvoice).
  const own = isReversalKey(key) ? key.slice('reversal:'.length) : key;
  if (keyPrefix(baseKey(own)) === 'invoice-adjustment') return moveRecord(s, key);
  // A bill still owed when the books opened is the payable brought forward, a move (opening-payables.ts).
  if (keyPrefix(baseKey(key)) === 'bill') return moveRecord(s, key);
  return null;
}

export async function moveRecord(s: TrytonSession, key: string): Promise<FoundRecord | null> {
  // One move a key, or a reversal in parts (reversal-parts.ts): all its moves, in the order they were made.
  const moves = await s.rpc.searchRead<MoveRow & { state: string }>(
    'account.move',
    [['description', 'like', markerLike(key)]],
    ['description', 'state'],
    isReversalKey(key) ? null : 1,
  );
  moves.sort((a, b) => a.id - b.id);
  const move = moves[0];
  if (!move) return null;
  return {
    key,
    remoteIds: moves.map((m) => `account.move,${m.id}`),
    contentHash: hashIn(move.description, key) ?? '',
    draft: move.state === 'draft' ? { model: 'account.move', id: move.id } : null,
  };
}
