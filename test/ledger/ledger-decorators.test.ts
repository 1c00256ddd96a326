import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notifyingLedger } from '../../src/flows/push/wake-up.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import type { LedgerEntryInput } from '../../src/ledger/entry.js';
import { type LedgerPort, ledgerPortMethods } from '../../src/ledger/ledger-port.js';
import { tracedLedger } from '../../src/ledger/traced-ledger.js';
import { writeBehind } from '../../src/ledger/write-behind-ledger.js';
import { ledgerStores, type TestLedger } from './ledger-stores.js';

// The ledger port promises what callers use (bulk posting, the whole ledger read a page at a time), and each
// decorator of it (the notifying ledger production's activities write through when targets are configured;
// the backfill's write-behind view; the traced ledger, with tracing on) forwards all of it: no caller probes
// for a method or downcasts. Once, the notifying ledger dropped allEntries and postMany, and the period close
// failed whenever a target was set.

const sale = (n: number, day = '2026-11-02'): LedgerEntryInput => ({
  key: `payment:p${n}`,
  date: day,
  description: `payment ${n}`,
  lines: [
    { account: Accounts.ProcessorClearing, amountCents: 1_000 + n },
    { account: Accounts.AccountsReceivable, amountCents: -(1_000 + n) },
  ],
  links: { paymentId: `p${n}` },
});

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

describe.each(ledgerStores())('the ledger port and its decorators on the $name store', (store) => {
  let ledger: TestLedger;
  beforeAll(async () => {
    ledger = await store.open();
  }, 120_000);
  afterAll(async () => {
    await ledger?.close();
  });

  const decorators: [string, (l: LedgerPort) => LedgerPort][] = [
    ['notifying', (l) => notifyingLedger(l, () => {})],
    ['write-behind', (l) => writeBehind(l)],
    ['traced', (l) => tracedLedger(l)],
  ];

  it.each(decorators)('the %s ledger has every method of the port', (_name, decorate) => {
    const decorated = decorate(ledger) as unknown as Record<string, unknown>;
    for (const method of ledgerPortMethods) expect(typeof decorated[method], method).toBe('function');
    expect(ledgerPortMethods.length).toBeGreaterThanOrEqual(16);
  });

  it('postMany through the notifying ledger books all at once and wakes the push once', async () => {
    let wakes = 0;
    const notifying = notifyingLedger(ledger, () => wakes++);
    const results = await notifying.postMany([sale(1), sale(2), sale(3)]);
    expect(results.map((r) => [r.entry.key, r.created])).toEqual([
      ['payment:p1', true],
      ['payment:p2', true],
      ['payment:p3', true],
    ]);
    expect(wakes).toBe(1);
    // The same entries again: nothing new, no wake-up.
    expect((await notifying.postMany([sale(1), sale(2)])).map((r) => r.created)).toEqual([false, false]);
    expect(wakes).toBe(1);
  });

  it('postMany is all or nothing: one conflicting entry writes none of them', async () => {
    const conflicting = { ...sale(1), description: 'other contents' };
    await expect(notifyingLedger(ledger, () => {}).postMany([sale(4), conflicting])).rejects.toThrow(
      /different contents/,
    );
    expect(await ledger.get('payment:p4')).toBeNull();
  });

  it('entries() reads every entry oldest first, a page at a time, through either decorator', async () => {
    await ledger.postMany([5, 6, 7, 8, 9].map((n) => sale(n)));
    const keys = (await ledger.allEntries()).map((e) => e.key);
    expect(keys).toEqual([
      'payment:p1',
      'payment:p2',
      'payment:p3',
      ...[5, 6, 7, 8, 9].map((n) => `payment:p${n}`),
    ]);
    for (const [, decorate] of decorators) {
      const paged = await collect(decorate(ledger).entries({ pageSize: 3 }));
      expect(paged.map((e) => e.key)).toEqual(keys);
      expect(paged.every((e) => e.lines.length === 2)).toBe(true);
      expect((await decorate(ledger).allEntries()).map((e) => e.key)).toEqual(keys);
    }
  });

  it('a reader that stops early leaves the store usable (the snapshot is ended)', async () => {
    for await (const entry of ledger.entries({ pageSize: 2 })) {
      expect(entry.key).toBe('payment:p1');
      break;
    }
    const again = await ledger.post(sale(10));
    expect(again.created).toBe(true);
    expect((await collect(ledger.entries({ pageSize: 4 }))).length).toBe(9);
  });

  it('the write-behind view flushes its waiting entries before the whole ledger is read', async () => {
    const view = writeBehind(ledger);
    await view.post(sale(11));
    expect(view.waiting).toBe(1);
    const keys = (await collect(view.entries())).map((e) => e.key);
    expect(view.waiting).toBe(0);
    expect(keys.at(-1)).toBe('payment:p11');
    expect(await ledger.get('payment:p11')).not.toBeNull();
  });

  it('refuses a page size that is not a whole number from 1 to 100,000', async () => {
    await expect(collect(ledger.entries({ pageSize: 0 }))).rejects.toThrow(/pageSize/);
    await expect(collect(ledger.entries({ pageSize: 2.5 }))).rejects.toThrow(/pageSize/);
  });
});
