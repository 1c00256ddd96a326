import { describe, expect, it } from 'vitest';
import { spreadInOrder } from '../../src/targets/spread-in-order.js';

const owed: Record<string, number> = { invoice: 12_000, memo: 3_000, second: 500 };

describe('spreadInOrder: money over documents owed together', () => {
  it('each takes what it owes in order, the last the rest', async () => {
    expect(await spreadInOrder(['invoice', 'memo'], 15_000, (d) => owed[d] ?? 0)).toEqual([
      { item: 'invoice', cents: 12_000 },
      { item: 'memo', cents: 3_000 },
    ]);
    // Beyond what is owed, the last one takes it (a target keeps it as the customer's credit there).
    expect(await spreadInOrder(['invoice', 'memo'], 16_000, (d) => owed[d] ?? 0)).toEqual([
      { item: 'invoice', cents: 12_000 },
      { item: 'memo', cents: 4_000 },
    ]);
  });

  it('less than the first owes goes all to the first; documents the money does not reach are left out', async () => {
    expect(await spreadInOrder(['invoice', 'memo', 'second'], 6_000, (d) => owed[d] ?? 0)).toEqual([
      { item: 'invoice', cents: 6_000 },
    ]);
  });

  it('a document owing nothing (or less than nothing) is passed over', async () => {
    const asked: string[] = [];
    const shares = await spreadInOrder(['paid', 'memo', 'second'], 3_200, async (d) => {
      asked.push(d);
      return d === 'paid' ? -100 : (owed[d] ?? 0);
    });
    expect(shares).toEqual([
      { item: 'memo', cents: 3_000 },
      { item: 'second', cents: 200 },
    ]);
    // What the last one owes is never asked: it takes the rest whatever it owes.
    expect(asked).toEqual(['paid', 'memo']);
  });

  it('nothing to spread, or nothing to spread over, gives no share', async () => {
    expect(await spreadInOrder(['invoice', 'memo'], 0, () => 1)).toEqual([]);
    expect(await spreadInOrder([], 500, () => 1)).toEqual([]);
  });
});
