import type {
  AccountingTarget,
  PushContext,
  RemoteRecord,
  TargetDocument,
} from '../../src/targets/target-port.js';

/**
 * The ledger's index of pushed documents as a push sees it: the test records in `pushed` what each push
 * returned, and the next push finds it there. `mayExist`: whether any key may be at the target already without
 * the index knowing (a worker that may have crashed mid-push), so the adapter looks before it creates; false
 * for a target the test just made. No refusals, no closed books.
 */
export function pushIndex(options: { mayExist?: boolean } = {}): {
  pushed: Map<string, RemoteRecord>;
  context: PushContext;
} {
  const pushed = new Map<string, RemoteRecord>();
  const mayExist = options.mayExist ?? false;
  return {
    pushed,
    context: {
      mayExist: () => mayExist,
      refusals: () => 0,
      pushed: (key) => pushed.get(key) ?? null,
      closedThrough: null,
    },
  };
}

/** Pushes the documents in order through one new index, each push seeing what the earlier ones became. */
export async function pushInOrder(
  target: Pick<AccountingTarget, 'push'>,
  documents: readonly TargetDocument[],
  options: { mayExist?: boolean } = {},
): Promise<Map<string, RemoteRecord>> {
  const { pushed, context } = pushIndex(options);
  for (const doc of documents) pushed.set(doc.key, await target.push(doc, context));
  return pushed;
}
