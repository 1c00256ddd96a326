import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { syncPaymentLinkRecords } from '../../../src/flows/in-activity/link-and-payout-books.js';
import { Accounts } from '../../../src/ledger/chart-of-accounts.js';
import { documentFor, type ReferenceData } from '../../../src/targets/documents.js';
import { type ActivityWorld, activityWorld, entryShape, linkRecord } from '../fakes.js';

// A reusable link is a standing price, not an invoice: money received on it outside the service is a sale
// (Cr Revenue), never a payment of a receivable no one owes, and a memo on it books nothing of its own (the
// payment that pays it carries it). Figures by hand.

const { AccountsReceivable, ChecksToDeposit, Revenue, FeeIncome } = Accounts;

let world: ActivityWorld;
beforeEach(() => {
  world = activityWorld();
});
afterEach(() => world.close());

const shop = (over: Partial<Parameters<typeof linkRecord>[0]> = {}) =>
  linkRecord({
    id: 'pl_shop',
    reusable: true,
    requestedAmountCents: 2_500,
    externalPayments: [
      {
        id: 'ep_1',
        amountCents: 25_000,
        paidAt: '2026-03-05',
        voided: false,
        externalReferenceId: 'check 1042',
        serviceBankingTransferId: null,
      },
    ],
    debitMemos: [
      {
        id: 'dm_1',
        amountCents: 2_500,
        description: 'Late fee',
        voided: false,
        createdAt: '2026-03-06T10:00:00.000Z',
        externalReferenceId: null,
      },
    ],
    debitMemoAmountCents: 2_500,
    ...over,
  });

describe('money on a reusable link', () => {
  it('an external payment is a sale into Checks To Deposit; a memo books nothing; A/R stays 0', async () => {
    const result = await syncPaymentLinkRecords(world.deps, shop(), 'test');
    expect(result.posted).toEqual(['external-sale:ep_1']);
    expect((await world.ledger.entriesFor({ paymentLinkId: 'pl_shop' })).map(entryShape)).toEqual([
      {
        key: 'external-sale:ep_1',
        date: '2026-03-05',
        lines: [
          [ChecksToDeposit, 25_000],
          [Revenue, -25_000],
        ],
        reverses: null,
      },
    ]);
    expect(await world.balances(AccountsReceivable, Revenue, FeeIncome, ChecksToDeposit)).toEqual({
      [AccountsReceivable]: 0,
      [Revenue]: -25_000,
      [FeeIncome]: 0,
      [ChecksToDeposit]: 25_000,
    });
  });

  it('one booked by an earlier release against the receivable is reversed and booked as the sale', async () => {
    // As an earlier release booked it: Dr Checks To Deposit / Cr A/R under external-payment:.
    await world.ledger.post({
      key: 'external-payment:ep_1',
      date: '2026-03-05',
      description: 'External payment ep_1 on payment link pl_shop',
      lines: [
        { account: ChecksToDeposit, amountCents: 25_000 },
        { account: AccountsReceivable, amountCents: -25_000 },
      ],
      links: { paymentLinkId: 'pl_shop', customerId: 'cus_1', externalPaymentId: 'ep_1' },
    });
    const result = await syncPaymentLinkRecords(world.deps, shop({ debitMemos: [] }), 'test');
    expect(result.reversed).toEqual(['external-payment:ep_1']);
    expect(result.posted).toEqual(['external-sale:ep_1']);
    expect(await world.balances(AccountsReceivable, Revenue)).toEqual({
      [AccountsReceivable]: 0,
      [Revenue]: -25_000,
    });
  });

  it("reaches the accounting software as a sale (the target's sale document), not a customer payment", async () => {
    await syncPaymentLinkRecords(world.deps, shop(), 'test');
    const entry = await world.ledger.get('external-sale:ep_1');
    if (!entry) throw new Error('not booked');
    const references = {
      paymentLink: async () => ({ name: 'Shop', customerId: 'cus_1', dueDate: null }),
      customer: async () => ({ name: 'A customer' }),
      externalPayment: async () => ({ externalReferenceId: 'check 1042', serviceBankingTransferId: null }),
    } as unknown as ReferenceData;
    const doc = await documentFor(entry, references, { get: async () => null, entriesFor: async () => [] });
    expect(doc).toMatchObject({
      kind: 'sale',
      lines: [
        { role: 'ChecksToDeposit', amountCents: 25_000 },
        { role: 'Revenue', amountCents: -25_000 },
      ],
    });
  });
});
