import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { LedgerConflictError, LedgerValidationError } from '../../src/ledger/errors.js';
import { diffEntries } from '../../src/ledger/mapping/entry-diff.js';
import { applyEntryDiff, syncEntries } from '../../src/ledger/sync.js';
import { twoLine } from './fixtures.js';
import { ledgerStores, type TestLedger } from './ledger-stores.js';

describe.each(ledgerStores())('$name ledger', (store) => {
  let ledger: TestLedger;
  beforeEach(async () => {
    ledger = await store.open();
  });
  afterEach(() => ledger.close());

  const links = { paymentId: 'p1' };
  const payment = twoLine('payment:p1', 1000, { links });
  const refund = twoLine('refund:r1', 300, {
    debit: Accounts.Refunds,
    credit: Accounts.ProcessorClearing,
    links,
  });
  const booked = () => ledger.entriesFor(links);
  const sync = (desired: (typeof payment)[]) => syncEntries(ledger, desired, links, { date: '2026-02-01' });

  describe('diffEntries', () => {
    it('nothing booked: post everything under base keys', async () => {
      const plan = diffEntries([payment, refund], await booked());
      expect(plan.toPost.map((e) => e.key)).toEqual(['payment:p1', 'refund:r1']);
      expect(plan.toReverse).toEqual([]);
    });

    it('desired and booked with the same contents: no-op', async () => {
      await sync([payment, refund]);
      const plan = diffEntries([payment, refund], await booked());
      expect(plan).toEqual({
        toPost: [],
        toReverse: [],
        unchanged: ['payment:p1', 'refund:r1'],
        conflicts: [],
      });
    });

    it('booked and no longer desired: reverse, once', async () => {
      await sync([payment, refund]);
      expect(diffEntries([payment], await booked()).toReverse).toEqual([
        { key: 'refund:r1', reason: 'no longer in the service state' },
      ]);
      await sync([payment]);
      expect(diffEntries([payment], await booked())).toMatchObject({ toPost: [], toReverse: [] });
    });

    it('booked, reversed, desired again: posted under the next version, and so on', async () => {
      await sync([payment, refund]);
      await sync([payment]);
      expect(diffEntries([payment, refund], await booked()).toPost.map((e) => e.key)).toEqual([
        'refund:r1#2',
      ]);
      expect((await sync([payment, refund])).posted).toEqual(['refund:r1#2']);
      expect((await sync([payment])).reversed).toEqual(['refund:r1#2']);
      expect((await sync([payment, refund])).posted).toEqual(['refund:r1#3']);
      expect(await ledger.balanceOf(Accounts.Refunds)).toBe(300);
      expect((await sync([payment, refund])).posted).toEqual([]);
    });

    it('contents changed under a live key: a conflict, raised by apply after the rest was written', async () => {
      await sync([payment]);
      const changed = { ...payment, description: 'Payment p1 received (edited)' };
      const plan = diffEntries([changed, refund], await booked());
      expect(plan.conflicts.map((c) => c.booked.key)).toEqual(['payment:p1']);
      expect(plan.toPost.map((e) => e.key)).toEqual(['refund:r1']);
      await expect(applyEntryDiff(ledger, plan, { date: '2026-02-01' })).rejects.toBeInstanceOf(
        LedgerConflictError,
      );
      expect(await ledger.get('refund:r1')).not.toBeNull();
      expect((await ledger.get('payment:p1'))?.description).toBe(payment.description);
    });

    it("a record's new entries are written together: one refused, none of them is booked", async () => {
      const fee = twoLine('payment-fee:p1', 30, {
        debit: Accounts.ProcessingFees,
        credit: Accounts.ProcessorClearing,
        links,
      });
      const unbalanced = {
        ...refund,
        lines: [{ ...(refund.lines[0] as (typeof refund.lines)[number]) }],
      };
      const plan = diffEntries([payment, fee, unbalanced], await booked());
      expect(plan.toPost.map((e) => e.key)).toEqual(['payment:p1', 'payment-fee:p1', 'refund:r1']);
      await expect(applyEntryDiff(ledger, plan, { date: '2026-02-01' })).rejects.toBeInstanceOf(
        LedgerValidationError,
      );
      expect(await booked()).toEqual([]);
      const { posted } = await applyEntryDiff(ledger, diffEntries([payment, fee], await booked()), {
        date: '2026-02-01',
      });
      expect(posted).toEqual(['payment:p1', 'payment-fee:p1']);
      expect(await ledger.balanceOf(Accounts.ProcessingFees)).toBe(30);
    });

    it('a booked date never moves: the same entry on another day is unchanged, not a conflict', async () => {
      // Booked before BOOKS_TIME_ZONE was set (a UTC day), or re-dated into the open period after a close.
      await sync([payment]);
      const otherDay = { ...payment, date: '2026-01-01' };
      const plan = diffEntries([otherDay], await booked());
      expect(plan).toEqual({ toPost: [], toReverse: [], unchanged: ['payment:p1'], conflicts: [] });
      // Another amount on another day is still a conflict.
      const changed = twoLine('payment:p1', 123, { date: '2026-01-01', links });
      expect(diffEntries([changed], await booked()).conflicts.map((c) => c.booked.key)).toEqual([
        'payment:p1',
      ]);
    });

    it('kinds scope which booked entries the caller owns', async () => {
      const memo = twoLine('debit-memo:m1', 500, {
        debit: Accounts.AccountsReceivable,
        credit: Accounts.FeeIncome,
        links,
      });
      await sync([payment, memo]);
      const plan = diffEntries([], await booked(), { kinds: ['debit-memo'], reason: 'voided' });
      expect(plan.toReverse).toEqual([{ key: 'debit-memo:m1', reason: 'voided' }]);
      expect(() => diffEntries([payment], [], { kinds: ['debit-memo'] })).toThrow(LedgerValidationError);
    });

    it('rejects versioned or duplicated desired keys', () => {
      expect(() => diffEntries([{ ...payment, key: 'payment:p1#2' }], [])).toThrow(LedgerValidationError);
      expect(() => diffEntries([payment, payment], [])).toThrow(LedgerValidationError);
    });

    it('two live versions of one key (a race or a bug): keeps the matching one, reverses the other', async () => {
      await ledger.post(payment);
      await ledger.post({ ...payment, key: 'payment:p1#2' });
      const plan = diffEntries([payment], await booked());
      expect(plan.unchanged).toEqual(['payment:p1']);
      expect(plan.toReverse).toEqual([{ key: 'payment:p1#2', reason: 'duplicate version' }]);
    });

    it('the same sync applied twice writes nothing the second time', async () => {
      const first = await sync([payment, refund]);
      const second = await sync([payment, refund]);
      expect(first.posted).toHaveLength(2);
      expect(second).toEqual({ posted: [], reversed: [], unchanged: ['payment:p1', 'refund:r1'] });
    });
  });
});
