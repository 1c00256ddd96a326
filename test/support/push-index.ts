import type { PushContext, RemoteRecord } from '../../src/accounting/targets/target-port.js';

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
