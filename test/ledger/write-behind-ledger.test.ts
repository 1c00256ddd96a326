import { describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { LedgerConflictError } from '../../src/ledger/errors.js';
import { writeBehind } from '../../src/ledger/write-behind-ledger.js';
import { twoLine } from '../ledger/fixtures.js';

// The write-behind view a backfill page imports through: its new entries wait, are read as booked, and are
// written together by flush(); the ledger's own rules (same key, other contents) still hold.

describe('write-behind ledger view', () => {
  it('reads waiting entries as booked and writes them all at flush', async () => {
    const ledger = EmbeddedLedger.open();
    const view = writeBehind(ledger);
    const entry = twoLine('payment:p1', 1_000, { links: { paymentId: 'p1', paymentLinkId: 'pl1' } });
    expect((await view.post(entry)).created).toBe(true);
    expect((await view.post(entry)).created).toBe(false);
    expect(view.waiting).toBe(1);
    expect((await view.entriesFor({ paymentLinkId: 'pl1' })).map((e) => e.key)).toEqual(['payment:p1']);
    expect(await ledger.get('payment:p1')).toBeNull();
    await view.flush();
    expect(view.waiting).toBe(0);
    expect(await ledger.balanceOf(Accounts.ProcessorClearing)).toBe(1_000);
    ledger.close();
  });

  it('reads many keys as booked: the waiting ones from the view, the rest from the ledger in one read', async () => {
    const ledger = EmbeddedLedger.open();
    await ledger.post(twoLine('payment:p1', 1_000));
    const view = writeBehind(ledger);
    await view.post(twoLine('payment:p2', 2_000));
    const found = await view.getMany(['payment:p1', 'payment:p2', 'payment:p3']);
    expect([...found.keys()].sort()).toEqual(['payment:p1', 'payment:p2']);
    expect(found.get('payment:p2')?.lines[0]?.amountCents).toBe(2_000);
    expect(await ledger.get('payment:p2')).toBeNull();
    ledger.close();
  });

  it('sends a key the ledger holds to the ledger: other contents are a conflict, nothing waits', async () => {
    const ledger = EmbeddedLedger.open();
    await ledger.post(twoLine('payment:p2', 1_000));
    const view = writeBehind(ledger);
    await expect(view.post(twoLine('payment:p2', 2_000))).rejects.toBeInstanceOf(LedgerConflictError);
    expect((await view.post(twoLine('payment:p2', 1_000))).created).toBe(false);
    expect(view.waiting).toBe(0);
    ledger.close();
  });

  it('writes the waiting entries before anything else reaches the ledger (a reversal, balances)', async () => {
    const ledger = EmbeddedLedger.open();
    const view = writeBehind(ledger);
    await view.post(twoLine('payment:p3', 700));
    await view.reverse('payment:p3', { reason: 'ACH return', date: '2026-02-01' });
    expect(view.waiting).toBe(0);
    expect(await ledger.isReversed('payment:p3')).toBe(true);
    await view.post(twoLine('payment:p4', 300));
    expect(await view.balanceOf(Accounts.ProcessorClearing)).toBe(300);
    ledger.close();
  });

  it('writes nothing when one waiting entry cannot be written (all or nothing)', async () => {
    const ledger = EmbeddedLedger.open();
    const view = writeBehind(ledger);
    await view.post(twoLine('payment:p5', 500));
    await view.post(twoLine('payment:p6', 600));
    // Meanwhile a webhook books p6 with other contents.
    await ledger.post(twoLine('payment:p6', 650));
    await expect(view.flush()).rejects.toBeInstanceOf(LedgerConflictError);
    expect(await ledger.get('payment:p5')).toBeNull();
    ledger.close();
  });

  it("lets a record's entries wait together (postMany), or none of them when one is refused", async () => {
    const ledger = EmbeddedLedger.open();
    await ledger.post(twoLine('payment:p8', 800));
    const view = writeBehind(ledger);
    const fee = twoLine('payment-fee:p7', 30, {
      debit: Accounts.ProcessingFees,
      credit: Accounts.ProcessorClearing,
    });
    const results = await view.postMany([twoLine('payment:p7', 700), fee, twoLine('payment:p8', 800)]);
    expect(results.map((r) => r.created)).toEqual([true, true, false]);
    expect(view.waiting).toBe(2);
    expect(await ledger.get('payment:p7')).toBeNull();
    await expect(
      view.postMany([twoLine('payment:p9', 900), twoLine('payment:p8', 850)]),
    ).rejects.toBeInstanceOf(LedgerConflictError);
    expect(await view.get('payment:p9')).toBeNull();
    await view.flush();
    expect(await ledger.balanceOf(Accounts.ProcessingFees)).toBe(30);
    expect(await ledger.get('payment:p9')).toBeNull();
    ledger.close();
  });
});
