import { describe, expect, it } from 'vitest';
import { type AccountName, Accounts } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import type { LedgerEntryInput } from '../../src/ledger/entry.js';
import { UnmappableStateError } from '../../src/ledger/errors.js';
import {
  type PaymentForBooks,
  paymentEntries,
  paymentEntryKinds,
  paymentReceivedEntries,
  surchargeCents,
} from '../../src/ledger/mapping/payment.js';
import { syncEntries } from '../../src/ledger/sync.js';

// Card fees as the processor reports them (decision “Fees”): the payer is charged amount + P (P the part of
// the card fee F passed on), the business absorbs F - P. Gross received is what the payer was charged, the
// fees are F, and what stays in clearing for the payout is unchanged.

/** A 100.00 invoice paid by card, 103.20 charged: the whole fee of 3.20 passed to the payer. */
const passthrough: PaymentForBooks = {
  id: 'pay_s',
  status: 'SUCCEEDED',
  amountInCents: 100_00,
  chargedAmountInCents: 103_20,
  platformFeeInCents: 0,
  fees: [{ type: 'CREDIT_CARD_FEE', amountInCents: 3_20 }],
  paymentMethod: { type: 'Card' },
  paymentLinkId: 'pl_s',
  createdAt: Date.UTC(2026, 2, 10, 15),
  refunds: [],
};

/** The invoice the payment pays, as the link's own entries book it. */
const invoice: LedgerEntryInput = {
  key: 'invoice:pl_s',
  date: '2026-03-01',
  description: 'Invoice of payment link pl_s',
  lines: [
    { account: Accounts.AccountsReceivable, amountCents: 100_00 },
    { account: Accounts.Revenue, amountCents: -100_00 },
  ],
  links: { paymentLinkId: 'pl_s' },
};

const scope = { paymentId: 'pay_s' };
const options = { kinds: paymentEntryKinds, date: '2026-03-20' };

async function books(...steps: readonly (readonly LedgerEntryInput[])[]) {
  const ledger = EmbeddedLedger.open();
  await ledger.post(invoice);
  const results = [];
  for (const desired of steps) results.push(await syncEntries(ledger, desired, scope, options));
  const balances = Object.fromEntries(
    (await ledger.balances()).map((b) => [b.account, b.balanceCents]),
  ) as Record<AccountName, number>;
  ledger.close();
  return { results, balances };
}

const drCr = (e: LedgerEntryInput) => {
  const dr = e.lines.find((l) => l.amountCents > 0);
  const cr = e.lines.find((l) => l.amountCents < 0);
  return [e.key, e.date, `Dr ${dr?.account} / Cr ${cr?.account} ${dr?.amountCents}`];
};

describe('card fee passed to the payer (surcharge)', () => {
  it('books the surcharge as income and the processor keeping it as a fee, dated as the payment', () => {
    expect(paymentEntries(passthrough, 'UTC', 'invoice').map(drCr)).toEqual([
      [
        'payment:pay_s',
        '2026-03-10',
        `Dr ${Accounts.ProcessorClearing} / Cr ${Accounts.AccountsReceivable} 10000`,
      ],
      [
        'payment-surcharge:pay_s',
        '2026-03-10',
        `Dr ${Accounts.ProcessorClearing} / Cr ${Accounts.SurchargeIncome} 320`,
      ],
      [
        'surcharge-fee:pay_s',
        '2026-03-10',
        `Dr ${Accounts.ProcessingFees} / Cr ${Accounts.ProcessorClearing} 320`,
      ],
    ]);
  });

  it('revenue and receivable 100.00, surcharge income 3.20, fees 3.20, clearing net 100.00', async () => {
    const { balances } = await books(paymentEntries(passthrough, 'UTC', 'invoice'));
    expect(balances[Accounts.Revenue]).toBe(-100_00);
    expect(balances[Accounts.AccountsReceivable]).toBe(0);
    expect(balances[Accounts.SurchargeIncome]).toBe(-3_20);
    expect(balances[Accounts.ProcessingFees]).toBe(3_20);
    expect(balances[Accounts.ProcessorClearing]).toBe(100_00);
  });

  it('a fee partly passed on: fees are the whole card fee, clearing holds charged less the fee', async () => {
    // F = 3.20, P = 1.60 passed on, 1.60 absorbed: 101.60 charged.
    const half = { ...passthrough, chargedAmountInCents: 101_60, platformFeeInCents: 1_60 };
    const keys = paymentEntries(half, 'UTC', 'invoice').map((e) => e.key);
    expect(keys).toEqual([
      'payment:pay_s',
      'payment-fee:pay_s',
      'payment-surcharge:pay_s',
      'surcharge-fee:pay_s',
    ]);
    const { balances } = await books(paymentEntries(half, 'UTC', 'invoice'));
    expect(balances[Accounts.ProcessingFees]).toBe(3_20);
    expect(balances[Accounts.SurchargeIncome]).toBe(-1_60);
    expect(balances[Accounts.ProcessorClearing]).toBe(101_60 - 3_20);
  });

  it('a payment whose fee is all absorbed books what it booked before, and a payment already booked gets only the new entries', async () => {
    const absorbed = { ...passthrough, chargedAmountInCents: 100_00, platformFeeInCents: 3_20 };
    expect(paymentEntries(absorbed, 'UTC', 'invoice').map((e) => e.key)).toEqual([
      'payment:pay_s',
      'payment-fee:pay_s',
    ]);
    // A record without chargedAmountInCents (an earlier release's caller) passes nothing on.
    const { chargedAmountInCents: _, ...untold } = passthrough;
    expect(surchargeCents(untold)).toBe(0);
    // Booked before the surcharge was booked: the receipt stays as it is, the surcharge is added beside it.
    const before = paymentEntries(untold, 'UTC', 'invoice');
    const { results } = await books(before, paymentEntries(passthrough, 'UTC', 'invoice'));
    expect(results[1]).toMatchObject({
      reversed: [],
      unchanged: ['payment:pay_s'],
      posted: ['payment-surcharge:pay_s', 'surcharge-fee:pay_s'],
    });
  });

  it('a sale of its own (no invoice) has its surcharge too', () => {
    const sale = { ...passthrough, paymentLinkId: null };
    expect(paymentEntries(sale, 'UTC', 'sale').map((e) => e.key)).toEqual([
      'sale:pay_s',
      'payment-surcharge:pay_s',
      'surcharge-fee:pay_s',
    ]);
  });
});

describe('a card payment disputed (FAILED: a chargeback)', () => {
  const chargeback = { ...passthrough, status: 'FAILED' };

  it('desires the fee entries only: the processor keeps its fee', () => {
    expect(paymentEntries(chargeback, 'UTC', 'invoice').map((e) => e.key)).toEqual(['surcharge-fee:pay_s']);
    const absorbed = { ...chargeback, chargedAmountInCents: 100_00, platformFeeInCents: 3_20 };
    expect(paymentEntries(absorbed, 'UTC', 'invoice').map((e) => e.key)).toEqual(['payment-fee:pay_s']);
  });

  it('reverses the payment and the surcharge, keeps 3.20 of fees; the invoice is owed again', async () => {
    const { results, balances } = await books(
      paymentReceivedEntries(chargeback, 'UTC', 'invoice'),
      paymentEntries(chargeback, 'UTC', 'invoice'),
    );
    expect(results[1]?.reversed).toEqual(['payment:pay_s', 'payment-surcharge:pay_s']);
    expect(results[1]?.unchanged).toEqual(['surcharge-fee:pay_s']);
    expect(balances[Accounts.ProcessingFees]).toBe(3_20);
    expect(balances[Accounts.SurchargeIncome]).toBe(0);
    expect(balances[Accounts.AccountsReceivable]).toBe(100_00);
    expect(balances[Accounts.ProcessorClearing]).toBe(-3_20);
  });

  it('an ACH return and a voided charge book nothing, as before', () => {
    const ach = { ...passthrough, paymentMethod: { type: 'ACH' as const }, status: 'FAILED' };
    expect(paymentEntries(ach, 'UTC', 'invoice')).toEqual([]);
    expect(paymentEntries({ ...ach, paymentMethod: null }, 'UTC', 'invoice')).toEqual([]);
    const voided: PaymentForBooks = {
      ...passthrough,
      status: 'REFUNDED',
      refunds: [{ id: 're_v', amountCents: 100_00, refundDate: '2026-03-11T00:00:00.000Z', voided: true }],
    };
    expect(paymentEntries(voided, 'UTC', 'invoice')).toEqual([]);
  });
});

describe('a fee of another type than the card fee', () => {
  it('is booked to Processing Fees, its type in the description, one entry per type', () => {
    const disputed: PaymentForBooks = {
      ...passthrough,
      fees: [
        { type: 'CREDIT_CARD_FEE', amountInCents: 3_20 },
        { type: 'DISPUTE_FEE', amountInCents: 10_00 },
        { type: 'DISPUTE_FEE', amountInCents: 5_00 },
        { type: 'OTHER FEE', amountInCents: 0 },
      ],
    };
    const other = paymentEntries(disputed, 'UTC', 'invoice').filter((e) =>
      e.key.startsWith('payment-other-fee:'),
    );
    expect(other.map(drCr)).toEqual([
      [
        'payment-other-fee:pay_s:dispute_fee',
        '2026-03-10',
        `Dr ${Accounts.ProcessingFees} / Cr ${Accounts.ProcessorClearing} 1500`,
      ],
    ]);
    expect(other[0]?.description).toContain('DISPUTE_FEE');
    // Kept by the processor on a chargeback, as the card fee is.
    expect(paymentEntries({ ...disputed, status: 'FAILED' }, 'UTC', 'invoice').map((e) => e.key)).toEqual([
      'surcharge-fee:pay_s',
      'payment-other-fee:pay_s:dispute_fee',
    ]);
  });

  it('a negative fee is an UnmappableStateError', () => {
    const odd = { ...passthrough, fees: [{ type: 'RETURN_FEE', amountInCents: -1 }] };
    expect(() => paymentEntries(odd, 'UTC', 'invoice')).toThrow(UnmappableStateError);
  });
});
