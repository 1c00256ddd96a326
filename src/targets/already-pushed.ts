import { TargetConflictError } from './errors.js';
import type { PushResult, RemoteRecord, TargetDocument } from './target-port.js';

// A document's key the target already holds (found in the push's index or at the target itself): the
// document was pushed before, and is not created again; unless the target holds other contents under the
// key, which is a conflict for an operator, never overwritten.

/** The record the target holds for the key (not created now), or the conflict when it holds other contents. */
export function foundOrConflict(
  target: string,
  existing: RemoteRecord,
  document: TargetDocument,
): PushResult | TargetConflictError {
  if (existing.contentHash !== document.contentHash)
    return new TargetConflictError(target, document.key, existing.contentHash, document.contentHash);
  return { ...existing, created: false };
}

/** As foundOrConflict, the conflict thrown (push() answers one document). */
export function alreadyPushed(target: string, existing: RemoteRecord, document: TargetDocument): PushResult {
  const found = foundOrConflict(target, existing, document);
  if (found instanceof TargetConflictError) throw found;
  return found;
}
