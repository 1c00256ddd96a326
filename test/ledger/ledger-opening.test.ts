import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { BooksAlreadyOpenError, LedgerValidationError } from '../../src/ledger/errors.js';
import { syncEntries } from '../../src/ledger/sync.js';
import { twoLine } from './fixtures.js';
import { ledgerStores, type TestLedger } from './ledger-stores.js';

// The books' opening (backfill) on both stores: set once, the same day again a no-op, another day refused;
// the opening balances recorded once; and the sync rule it switches on, for objects never imported.

describe.each(ledgerStores())('$name ledger: the books opening', (store) => {
  let ledger: TestLedger;
  beforeEach(async () => {
    ledger = await store.open();
  });
  afterEach(() => ledger.close());

  it('opens once: the same day again is a no-op, another day is refused, the first stands', async () => {
    expect(await ledger.booksOpenOn()).toBeNull();
    expect(await ledger.booksOpening()).toBeNull();
    expect(await ledger.openBooks('2026-03-01')).toEqual({ opensOn: '2026-03-01', created: true });
    expect(await ledger.openBooks('2026-03-01')).toEqual({ opensOn: '2026-03-01', created: false });
    await expect(ledger.openBooks('2026-02-01')).rejects.toBeInstanceOf(BooksAlreadyOpenError);
    expect(await ledger.booksOpenOn()).toBe('2026-03-01');
    expect(await ledger.booksOpening()).toEqual({ opensOn: '2026-03-01', balancesBooked: false });
  });

  it('records the opening balances booked once, only for the day the books open', async () => {
    await expect(ledger.markOpeningBalancesBooked('2026-03-01')).rejects.toBeInstanceOf(
      BooksAlreadyOpenError,
    );
    await ledger.openBooks('2026-03-01');
    await expect(ledger.markOpeningBalancesBooked('2026-03-02')).rejects.toBeInstanceOf(
      BooksAlreadyOpenError,
    );
    await ledger.markOpeningBalancesBooked('2026-03-01');
    await ledger.markOpeningBalancesBooked('2026-03-01');
    expect(await ledger.booksOpening()).toEqual({ opensOn: '2026-03-01', balancesBooked: true });
  });

  it('refuses a day that is not one', async () => {
    await expect(ledger.openBooks('2026-02-30')).rejects.toBeInstanceOf(LedgerValidationError);
    await expect(ledger.openBooks('March 1st')).rejects.toBeInstanceOf(LedgerValidationError);
    expect(await ledger.booksOpenOn()).toBeNull();
  });

  it('once open, a sync books only the entries dated from the opening of an object never imported', async () => {
    await ledger.openBooks('2026-03-01');
    const old = twoLine('payment:p1', 10_000, { date: '2026-02-10', links: { paymentId: 'p1' } });
    const refund = twoLine('refund:r1', 2_500, {
      date: '2026-03-05',
      debit: Accounts.Refunds,
      credit: Accounts.ProcessorClearing,
      links: { paymentId: 'p1', refundId: 'r1' },
    });
    const options = { kinds: ['payment', 'refund'], date: '2026-03-05' };
    const first = await syncEntries(ledger, [old, refund], { paymentId: 'p1' }, options);
    expect(first.posted).toEqual(['refund:r1']);
    expect(await ledger.get('payment:p1')).toBeNull();
    // Again: nothing changes (the old entry stays in Opening Balances, the refund is booked once).
    const again = await syncEntries(ledger, [old, refund], { paymentId: 'p1' }, options);
    expect(again).toEqual({ posted: [], reversed: [], unchanged: ['refund:r1'] });
    expect(await ledger.balanceOf(Accounts.ProcessorClearing)).toBe(-2_500);
  });

  it('an object imported with an entry from before the opening keeps syncing whole (its return reverses it)', async () => {
    const old = twoLine('payment:p2', 7_000, { date: '2026-02-20', links: { paymentId: 'p2' } });
    await ledger.post(old);
    await ledger.openBooks('2026-03-01');
    const options = { kinds: ['payment'], date: '2026-03-04' };
    expect((await syncEntries(ledger, [old], { paymentId: 'p2' }, options)).unchanged).toEqual([
      'payment:p2',
    ]);
    // The ACH return: the payment maps to nothing any more, and its old entry is reversed on the day.
    const returned = await syncEntries(ledger, [], { paymentId: 'p2' }, options);
    expect(returned.reversed).toEqual(['payment:p2']);
    expect(await ledger.balanceOf(Accounts.ProcessorClearing)).toBe(0);
  });
});
