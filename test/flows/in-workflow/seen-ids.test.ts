import { describe, expect, it } from 'vitest';
import { SeenIds } from '../../../src/flows/in-workflow/seen-ids.js';

// The one bounded id set of the workflows: service events, commands and reconcile requests.

describe('SeenIds', () => {
  it('drops a repeat and keeps the last `limit` ids, oldest first', () => {
    const seen = new SeenIds([], 3);
    expect(['a', 'b', 'a', 'c', 'd'].map((id) => seen.add(id))).toEqual([true, true, false, true, true]);
    expect(seen.toArray()).toEqual(['b', 'c', 'd']);
    // 'a' fell out of the window: it counts as new again.
    expect(seen.add('a')).toBe(true);
    expect(seen.add('d')).toBe(false);
  });

  it('starts from what a run carried through continue-as-new, cut to the limit', () => {
    const seen = new SeenIds(['x', 'y', 'z'], 2);
    expect(seen.toArray()).toEqual(['y', 'z']);
    expect(seen.add('z')).toBe(false);
    expect(seen.add('x')).toBe(true);
  });
});
