import { describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import type { BookedEntry } from '../../src/ledger/entry.js';
import { documentFor, type EntryLookup, type ReferenceData } from '../../src/targets/documents.js';

// A reversal of a receipt names the payout that carried it (TargetDocument.carriedBy): the live payout entry
// booked before it, of the disbursement the service lists the payment in; so a target listing a payout's
// receipts can say the payment was reversed since.

function booked(key: string, id: number, extra: Partial<BookedEntry> = {}): BookedEntry {
  return {
    id,
    key,
    date: '2026-11-03',
    description: key,
    lines: [
      { account: Accounts.ProcessorClearing, amountCents: 50_00 },
      { account: Accounts.AccountsReceivable, amountCents: -50_00 },
    ],
    links: { paymentId: 'pay_1' },
    reverses: null,
    reversedBy: null,
    contentHash: 'a'.repeat(64),
    createdAt: '2026-11-27T00:00:00.000Z',
    ...extra,
  } as BookedEntry;
}

const payment = booked('payment:pay_1', 1, { reversedBy: 'reversal:payment:pay_1' });
const payout = booked('disbursement-pending:dis_1', 2, { links: { disbursementId: 'dis_1' } });
const returned = (id: number, reverses = payment.key) =>
  booked(`reversal:${reverses}`, id, {
    date: '2026-11-20',
    description: `Reversal of ${reverses}: payment pay_1 is FAILED`,
    reverses,
  });

function lookup(payoutEntries: BookedEntry[]): EntryLookup {
  return {
    get: async (key) => (key === payment.key ? payment : null),
    entriesFor: async (filter) => (filter.disbursementId === 'dis_1' ? payoutEntries : []),
  };
}

const references = (disbursementId: string | null) =>
  ({ paymentPayout: async () => disbursementId }) as unknown as ReferenceData;

describe('a receipt’s reversal', () => {
  it('names the payout that carried the payment', async () => {
    const doc = await documentFor(returned(3), references('dis_1'), lookup([payout]));
    expect(doc).toMatchObject({ kind: 'reversal', reverses: payment.key, carriedBy: payout.key });
  });

  it('names none when the payment is in no payout, the payout was booked after it or reversed, or the source cannot tell', async () => {
    expect((await documentFor(returned(3), references(null), lookup([payout]))).carriedBy).toBeUndefined();
    const later = { ...payout, id: 4 };
    expect((await documentFor(returned(3), references('dis_1'), lookup([later]))).carriedBy).toBeUndefined();
    const failed = { ...payout, reversedBy: 'reversal:disbursement-pending:dis_1' };
    expect((await documentFor(returned(3), references('dis_1'), lookup([failed]))).carriedBy).toBeUndefined();
    const silent = {} as unknown as ReferenceData;
    expect((await documentFor(returned(3), silent, lookup([payout]))).carriedBy).toBeUndefined();
  });

  it('names none for a reversal of anything but a receipt', async () => {
    const fee = returned(3, 'payment-fee:pay_1');
    expect((await documentFor(fee, references('dis_1'), lookup([payout]))).carriedBy).toBeUndefined();
  });
});
