import { describe, expect, it } from 'vitest';
import { type AccountName, Accounts } from '../../src/ledger/chart-of-accounts.js';
import type { BookedEntry, EntryLine } from '../../src/ledger/entry.js';
import { documentFor, type EntryLookup, type ReferenceData } from '../../src/targets/documents.js';

// A payout's document names what else it nets of the payments it carries (their surcharges, fees and refunds
// booked on Processor Clearing, signed as they move it) beside its receipts, so a target that keeps received
// money apart until deposited (QuickBooks' Undeposited Funds) deposits those too; a refund after the payout, or
// a reversed fee, is not in it. Each of those entries names the payout that nets it (`nettedBy`), booked before
// or after the payout's entry, so a target can link one pushed after the payout's document.

let id = 0;
function booked(
  key: string,
  date: string,
  lines: EntryLine[],
  extra: Partial<BookedEntry> = {},
): BookedEntry {
  return {
    id: ++id,
    key,
    date,
    description: key,
    lines,
    links: { paymentId: 'pay_1' },
    reverses: null,
    reversedBy: null,
    contentHash: 'a'.repeat(64),
    createdAt: '2026-11-27T00:00:00.000Z',
    ...extra,
  } as BookedEntry;
}

const clearing = (debit: AccountName, cents: number): EntryLine[] => [
  { account: debit, amountCents: cents },
  { account: Accounts.ProcessorClearing, amountCents: -cents },
];

const payment = booked('payment:pay_1', '2026-11-02', [
  { account: Accounts.ProcessorClearing, amountCents: 50_00 },
  { account: Accounts.AccountsReceivable, amountCents: -50_00 },
]);
const surcharge = booked('payment-surcharge:pay_1', '2026-11-02', [
  { account: Accounts.ProcessorClearing, amountCents: 1_00 },
  { account: Accounts.SurchargeIncome, amountCents: -1_00 },
]);
const fee = booked('payment-fee:pay_1', '2026-11-02', clearing(Accounts.ProcessingFees, 1_75));
const otherFee = booked('payment-other-fee:pay_1', '2026-11-02', clearing(Accounts.ProcessingFees, 50), {
  reversedBy: 'reversal:payment-other-fee:pay_1',
});
const refund = booked('refund:re_1', '2026-11-03', clearing(Accounts.Refunds, 5_00));
const lateRefund = booked('refund:re_2', '2026-11-06', clearing(Accounts.Refunds, 2_00));
const reopen = booked('refund-reopen:re_1', '2026-11-03', [
  { account: Accounts.AccountsReceivable, amountCents: 5_00 },
  { account: Accounts.Refunds, amountCents: -5_00 },
]);

const entries: EntryLookup = {
  get: async () => null,
  entriesFor: async (filter) =>
    filter.paymentId === 'pay_1' ? [payment, surcharge, fee, otherFee, refund, lateRefund, reopen] : [],
};
const references = {
  payout: async () => ({ paymentIds: ['pay_1'] }),
} as unknown as ReferenceData;

describe('a payout’s document', () => {
  it('names its receipts and what it nets of them: live surcharges, fees and refunds dated by the payout, signed', async () => {
    const doc = await documentFor(
      booked(
        'disbursement-pending:dis_1',
        '2026-11-04',
        [
          { account: Accounts.PayoutsInTransit, amountCents: 44_25 },
          { account: Accounts.ProcessorClearing, amountCents: -44_25 },
        ],
        { links: { disbursementId: 'dis_1' } },
      ),
      references,
      entries,
    );
    expect(doc.payout).toEqual({
      receipts: [{ key: 'payment:pay_1', date: '2026-11-02', amountCents: 50_00 }],
      netted: [
        { key: 'payment-surcharge:pay_1', date: '2026-11-02', amountCents: 1_00 },
        { key: 'payment-fee:pay_1', date: '2026-11-02', amountCents: -1_75 },
        { key: 'refund:re_1', date: '2026-11-03', amountCents: -5_00 },
      ],
    });
  });

  it('names the payout that nets a surcharge, fee or refund, booked before or after the payout’s entry; none dated after it, reversed, or in no payout', async () => {
    const payout = booked(
      'disbursement-pending:dis_1',
      '2026-11-04',
      [
        { account: Accounts.PayoutsInTransit, amountCents: 44_25 },
        { account: Accounts.ProcessorClearing, amountCents: -44_25 },
      ],
      { links: { disbursementId: 'dis_1' } },
    );
    // Booked after the payout's entry (a refund racing it), dated by it.
    const racing = booked('refund:re_3', '2026-11-04', clearing(Accounts.Refunds, 3_00));
    const withPayout: EntryLookup = {
      get: async () => null,
      entriesFor: async (filter) => (filter.disbursementId === 'dis_1' ? [payout] : []),
    };
    const inPayout = (id: string | null) =>
      ({ ...references, paymentPayout: async () => id }) as unknown as ReferenceData;
    const nettedBy = { key: payout.key, date: '2026-11-04' };
    for (const entry of [surcharge, fee, refund, racing])
      expect((await documentFor(entry, inPayout('dis_1'), withPayout)).nettedBy, entry.key).toEqual(nettedBy);
    for (const entry of [lateRefund, otherFee, reopen, payment])
      expect((await documentFor(entry, inPayout('dis_1'), withPayout)).nettedBy, entry.key).toBeUndefined();
    expect((await documentFor(refund, inPayout(null), withPayout)).nettedBy).toBeUndefined();
    // A target that does not use it (Tryton, the ledger mirror) never has the service asked.
    let asked = 0;
    const counting = {
      ...references,
      paymentPayout: async () => {
        asked += 1;
        return 'dis_1';
      },
    } as unknown as ReferenceData;
    expect((await documentFor(refund, counting, withPayout, [])).nettedBy).toBeUndefined();
    expect(asked).toBe(0);
    expect((await documentFor(refund, counting, withPayout, ['nettedBy'])).nettedBy).toEqual(nettedBy);
    expect(asked).toBe(1);
    expect((await documentFor(refund, references, withPayout)).nettedBy).toBeUndefined();
    const failed = { ...payout, reversedBy: `reversal:${payout.key}` };
    const none: EntryLookup = { ...withPayout, entriesFor: async () => [failed] };
    expect((await documentFor(refund, inPayout('dis_1'), none)).nettedBy).toBeUndefined();
  });
});
