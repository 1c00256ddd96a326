import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import type { LedgerEntryInput } from '../../src/ledger/entry.js';
import { LedgerConflictError, LedgerValidationError } from '../../src/ledger/errors.js';
import { twoLine } from './fixtures.js';
import { ledgerStores, type TestLedger } from './ledger-stores.js';

describe.each(ledgerStores())('$name ledger', (store) => {
  let ledger: TestLedger;
  beforeEach(async () => {
    ledger = await store.open({ now: () => new Date('2026-01-02T12:00:00.000Z') });
  });
  afterEach(() => ledger.close());
  describe('post: idempotency by key', () => {
    it('books a new entry once and returns it', async () => {
      const { entry, created } = await ledger.post(
        twoLine('payment:p1', 1000, { links: { paymentId: 'p1' } }),
      );
      expect(created).toBe(true);
      expect(entry).toMatchObject({
        key: 'payment:p1',
        date: '2026-01-02',
        reverses: null,
        reversedBy: null,
        links: { paymentId: 'p1' },
        createdAt: '2026-01-02T12:00:00.000Z',
      });
      expect(await ledger.get('payment:p1')).toEqual(entry);
    });

    it('same key and same contents is a no-op returning the existing entry', async () => {
      const first = await ledger.post(twoLine('payment:p1', 1000));
      const again = await ledger.post(twoLine('payment:p1', 1000));
      expect(again.created).toBe(false);
      expect(again.entry).toEqual(first.entry);
      expect((await ledger.allEntries()).length).toBe(1);
      expect(await ledger.balanceOf(Accounts.ProcessorClearing)).toBe(1000);
    });

    it('line order and undefined link fields do not change the contents', async () => {
      const entry = twoLine('payment:p1', 1000, { links: { paymentId: 'p1' } });
      await ledger.post(entry);
      const reordered: LedgerEntryInput = {
        ...entry,
        lines: [...entry.lines].reverse(),
        links: { paymentId: 'p1', refundId: undefined },
      };
      expect((await ledger.post(reordered)).created).toBe(false);
    });

    it.each([
      ['amount', twoLine('payment:p1', 1001)],
      ['date', twoLine('payment:p1', 1000, { date: '2026-01-03' })],
      ['description', twoLine('payment:p1', 1000, { description: 'other' })],
      ['account', twoLine('payment:p1', 1000, { debit: Accounts.OperatingBank })],
      ['links', twoLine('payment:p1', 1000, { links: { paymentId: 'p2' } })],
      [
        'memo',
        {
          ...twoLine('payment:p1', 1000),
          lines: twoLine('payment:p1', 1000).lines.map((l) => ({ ...l, memo: 'x' })),
        },
      ],
    ])('same key with a different %s is a LedgerConflictError', async (_what, changed) => {
      await ledger.post(twoLine('payment:p1', 1000));
      const error = await ledger.post(changed).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LedgerConflictError);
      expect((error as Error).name).toBe('LedgerConflictError');
      expect((error as LedgerConflictError).key).toBe('payment:p1');
      expect(await ledger.balanceOf(Accounts.ProcessorClearing)).toBe(1000);
    });
  });

  describe('post: validation in code', () => {
    const base = twoLine('payment:p1', 1000);
    it.each<[string, LedgerEntryInput]>([
      [
        'unbalanced lines',
        {
          ...base,
          lines: [
            { account: Accounts.ProcessorClearing, amountCents: 1000 },
            { account: Accounts.AccountsReceivable, amountCents: -999 },
          ],
        },
      ],
      ['a single line', { ...base, lines: [{ account: Accounts.ProcessorClearing, amountCents: 0 }] }],
      ['no lines', { ...base, lines: [] }],
      [
        'a zero line',
        {
          ...base,
          lines: [...base.lines, { account: Accounts.BankCharges, amountCents: 0 }],
        },
      ],
      [
        'a fractional amount',
        {
          ...base,
          lines: [
            { account: Accounts.ProcessorClearing, amountCents: 10.5 },
            { account: Accounts.AccountsReceivable, amountCents: -10.5 },
          ],
        },
      ],
      [
        'an unsafe integer',
        {
          ...base,
          lines: [
            { account: Accounts.ProcessorClearing, amountCents: 2 ** 53 },
            { account: Accounts.AccountsReceivable, amountCents: -(2 ** 53) },
          ],
        },
      ],
      [
        'a running total beyond the safe range',
        {
          ...base,
          lines: [
            { account: Accounts.ProcessorClearing, amountCents: Number.MAX_SAFE_INTEGER },
            { account: Accounts.OperatingBank, amountCents: Number.MAX_SAFE_INTEGER },
            { account: Accounts.AccountsReceivable, amountCents: -Number.MAX_SAFE_INTEGER },
            { account: Accounts.AccountsReceivable, amountCents: -Number.MAX_SAFE_INTEGER },
          ],
        },
      ],
      [
        'an unknown account',
        {
          ...base,
          lines: [
            { account: 'assets:petty-cash' as never, amountCents: 1000 },
            { account: Accounts.AccountsReceivable, amountCents: -1000 },
          ],
        },
      ],
      ['an impossible date', { ...base, date: '2026-02-30' }],
      ['a date-time', { ...base, date: '2026-01-02T00:00:00Z' }],
      ['an empty description', { ...base, description: ' ' }],
      ['a multi-line description', { ...base, description: 'a\nb' }],
      ['a key with a space', { ...base, key: 'payment:p 1' }],
      ['a key without a kind', { ...base, key: 'p1' }],
      ['a reserved reversal key', { ...base, key: 'reversal:payment:p1' }],
      ['version #1 spelled out', { ...base, key: 'payment:p1#1' }],
      ['an unknown link field', { ...base, links: { invoiceId: 'x' } as never }],
      ['a link with a comma', { ...base, links: { paymentId: 'a,b' } }],
    ])('rejects %s with LedgerValidationError and writes nothing', async (_what, bad) => {
      const error = await ledger.post(bad).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LedgerValidationError);
      expect((error as Error).name).toBe('LedgerValidationError');
      expect(await ledger.allEntries()).toEqual([]);
    });

    it('accepts versioned keys and multi-line entries', async () => {
      const { created } = await ledger.post({
        key: 'payment:p1#2',
        date: '2026-01-02',
        description: 'split',
        lines: [
          { account: Accounts.ProcessorClearing, amountCents: 970 },
          { account: Accounts.ProcessingFees, amountCents: 30, memo: 'card fee' },
          { account: Accounts.AccountsReceivable, amountCents: -1000 },
        ],
      });
      expect(created).toBe(true);
      expect((await ledger.get('payment:p1#2'))?.lines[1]).toEqual({
        account: Accounts.ProcessingFees,
        amountCents: 30,
        memo: 'card fee',
      });
    });
  });

  describe('getMany', () => {
    it('reads the entries of many keys in one query, each as get() reads it, unknown keys absent', async () => {
      await ledger.post(twoLine('payment:p1', 1000, { links: { paymentId: 'p1', paymentLinkId: 'pl_1' } }));
      await ledger.post(
        twoLine('payment-fee:p1', 35, {
          debit: Accounts.ProcessingFees,
          credit: Accounts.ProcessorClearing,
          links: { paymentId: 'p1' },
        }),
      );
      await ledger.post(twoLine('payment:p2', 200));
      await ledger.reverse('payment:p2', { reason: 'payment.failed', date: '2026-01-03' });
      const keys = ['reversal:payment:p2', 'payment:p1', 'payment:nope', 'payment-fee:p1', 'payment:p2'];
      const found = await ledger.getMany([...keys, 'payment:p1']);
      expect([...found.keys()].sort()).toEqual(
        ['payment-fee:p1', 'payment:p1', 'payment:p2', 'reversal:payment:p2'].sort(),
      );
      for (const key of keys) expect(found.get(key) ?? null).toEqual(await ledger.get(key));
      expect(found.get('payment:p2')?.reversedBy).toBe('reversal:payment:p2');
      expect(await ledger.getMany([])).toEqual(new Map());
    });

    it('reads a slice of a hundred keys', async () => {
      const keys = Array.from({ length: 100 }, (_, i) => `payment:p${i}`);
      await ledger.postMany(keys.map((k, i) => twoLine(k, 100 + i)));
      const found = await ledger.getMany(keys);
      expect(keys.map((k) => found.get(k)?.lines[0]?.amountCents)).toEqual(keys.map((_, i) => 100 + i));
    });
  });

  describe('postMany', () => {
    it('posts a batch in one transaction, with post() rules per entry', async () => {
      await ledger.post(twoLine('payment:p1', 1000));
      const results = await ledger.postMany([twoLine('payment:p1', 1000), twoLine('payment:p2', 200)]);
      expect(results.map((r) => r.created)).toEqual([false, true]);
    });

    it('writes nothing when one entry conflicts', async () => {
      await ledger.post(twoLine('payment:p1', 1000));
      await expect(
        ledger.postMany([twoLine('payment:p2', 200), twoLine('payment:p1', 999)]),
      ).rejects.toBeInstanceOf(LedgerConflictError);
      expect(await ledger.get('payment:p2')).toBeNull();
    });

    it('writes nothing when one entry is invalid', async () => {
      await expect(
        ledger.postMany([twoLine('payment:p2', 200), { ...twoLine('payment:p3', 1), date: 'soon' }]),
      ).rejects.toBeInstanceOf(LedgerValidationError);
      expect(await ledger.get('payment:p2')).toBeNull();
    });
  });
});
