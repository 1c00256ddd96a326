import { createHash } from 'node:crypto';
import { canonicalContents, type EntryContents } from './entry.js';

/**
 * SHA-256 of an entry's canonical contents: the identity both ledger stores compare when a key is posted
 * again. Apart from entry.ts, which workflow code imports and so must stay free of Node modules.
 */
export function contentHash(entry: EntryContents): string {
  return createHash('sha256').update(canonicalContents(entry)).digest('hex');
}
