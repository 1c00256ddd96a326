import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerValidationError } from '../../src/ledger/errors.js';
import { validateWriteOff, WriteOffConflictError, writtenOffCents } from '../../src/ledger/write-offs.js';
import { ledgerStores, type TestLedger } from './ledger-stores.js';

// The business's write-offs (booksync link write-off) kept in the ledger's store, on both stores: recorded
// once by their id, withdrawn once when the link was never lowered, read per link oldest first; the database
// keeps them as recorded.

describe('a write-off asked', () => {
  const asked = { id: 'wo-1', paymentLinkId: 'pl_1', amountCents: 4_000, reason: 'customer insolvent' };
  it('is taken as asked, a blank reason none', () => {
    expect(validateWriteOff(asked)).toEqual(asked);
    expect(validateWriteOff({ ...asked, reason: '' }).reason).toBeNull();
  });
  it('is refused with what is wrong: no id, no link, cents not whole or not above 0, a reason too long', () => {
    const refused = (input: typeof asked | Record<string, unknown>) => {
      try {
        validateWriteOff(input as typeof asked);
      } catch (error) {
        expect(error).toBeInstanceOf(LedgerValidationError);
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(refused({ ...asked, id: '' })).toBe('a write-off needs an id of 1 to 200 characters');
    expect(refused({ ...asked, paymentLinkId: '' })).toBe(
      'write-off wo-1: a write-off needs its payment link',
    );
    expect(refused({ ...asked, amountCents: 12.5 })).toBe(
      'write-off wo-1: amountCents must be whole cents above 0',
    );
    expect(refused({ ...asked, amountCents: 0 })).toBe(
      'write-off wo-1: amountCents must be whole cents above 0',
    );
    expect(refused({ ...asked, reason: 'x'.repeat(501) })).toBe(
      'write-off wo-1: the reason is at most 500 characters',
    );
  });
});

describe.each(ledgerStores())('write-offs on the $name store', (store) => {
  let ledger: TestLedger;
  let clock = Date.parse('2026-03-02T10:00:00Z');
  beforeAll(async () => {
    const now = () => {
      clock += 1_000;
      return new Date(clock);
    };
    ledger = await store.open({ now });
  }, 120_000);
  afterAll(async () => {
    await ledger?.close();
  });

  it('records a write-off once: the same again is a no-op, other contents under the same id a conflict', async () => {
    const input = { id: 'wo-1', paymentLinkId: 'pl_1', amountCents: 4_000, reason: 'customer insolvent' };
    const first = await ledger.recordWriteOff(input);
    expect(first).toMatchObject({ created: true, writeOff: { ...input, withdrawnAt: null } });
    expect(first.writeOff.recordedAt).toMatch(/^2026-03-02T10:00:\d\d/);
    const again = await ledger.recordWriteOff(input);
    expect(again).toEqual({ created: false, writeOff: first.writeOff });
    await expect(ledger.recordWriteOff({ ...input, amountCents: 3_000 })).rejects.toBeInstanceOf(
      WriteOffConflictError,
    );
    await expect(
      ledger.recordWriteOff({ id: 'wo-x', paymentLinkId: 'pl_1', amountCents: 0, reason: null }),
    ).rejects.toBeInstanceOf(LedgerValidationError);
  });

  it("lists a link's write-offs oldest first, withdrawn ones too; a withdrawn one counts for nothing", async () => {
    await ledger.recordWriteOff({ id: 'wo-2', paymentLinkId: 'pl_2', amountCents: 1_500, reason: null });
    await ledger.recordWriteOff({ id: 'wo-3', paymentLinkId: 'pl_2', amountCents: 700, reason: null });
    await ledger.recordWriteOff({ id: 'wo-4', paymentLinkId: 'pl_other', amountCents: 99, reason: null });
    expect((await ledger.writeOffsFor('pl_2')).map((w) => w.id)).toEqual(['wo-2', 'wo-3']);
    expect(writtenOffCents(await ledger.writeOffsFor('pl_2'))).toBe(2_200);

    const withdrawn = await ledger.withdrawWriteOff('wo-2');
    expect(withdrawn?.withdrawnAt).toMatch(/^2026-03-02T/);
    // Once: withdrawing again returns it as it is.
    expect(await ledger.withdrawWriteOff('wo-2')).toEqual(withdrawn);
    expect(await ledger.withdrawWriteOff('wo-unknown')).toBeNull();
    const listed = await ledger.writeOffsFor('pl_2');
    expect(listed.map((w) => [w.id, w.withdrawnAt !== null])).toEqual([
      ['wo-2', true],
      ['wo-3', false],
    ]);
    expect(writtenOffCents(listed)).toBe(700);
    expect(await ledger.writeOffsFor('pl_none')).toEqual([]);
  });
});
