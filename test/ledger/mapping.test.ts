import type {
  BillPayment,
  CheckDeposit,
  Disbursement,
  Payment,
  PaymentLink,
} from '@booksync/service-contract/schemas/index';
import { describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import type { EntryLinks, LedgerEntryInput } from '../../src/ledger/entry.js';
import { UnmappableStateError } from '../../src/ledger/errors.js';
import {
  type BillPaymentForBooks,
  billEntries,
  billPaymentEntries,
  billPaymentEntryKinds,
  type CheckDepositForBooks,
  checkDepositEntries,
  checkDepositEntryKinds,
  checkedTimeZone,
  type DisbursementForBooks,
  disbursementEntries,
  disbursementEntryKinds,
  invoiceEntryToPost,
  type PaymentForBooks,
  type PaymentLinkForBooks,
  paymentEntries,
  paymentEntryKinds,
  paymentLinkEntries,
  paymentLinkEntryKinds,
  paymentSettles,
} from '../../src/ledger/mapping/index.js';
import { syncEntries } from '../../src/ledger/sync.js';
import { sumOfLines } from './fixtures.js';

// Compile-time: the service's own fetched types satisfy what the mappings consume.
const _fits: [
  (p: Payment) => LedgerEntryInput[],
  (l: PaymentLink) => LedgerEntryInput[],
  (d: Disbursement) => LedgerEntryInput[],
  (b: BillPayment) => LedgerEntryInput[],
  (c: CheckDeposit, f: (id: string) => string) => LedgerEntryInput[],
] = [
  (p) => paymentEntries(p, 'UTC', 'invoice'),
  (l) => paymentLinkEntries(l, { timeZone: 'UTC' }),
  disbursementEntries,
  (b) => billPaymentEntries(b, 'UTC'),
  (c, f) => checkDepositEntries(c, f, 'UTC'),
];
void _fits;

/** "Dr X / Cr Y amount" of a two-line entry, the way the design's mapping table reads. */
function drCr(entry: LedgerEntryInput): string {
  expect(entry.lines).toHaveLength(2);
  expect(sumOfLines(entry)).toBe(0);
  const dr = entry.lines.find((l) => l.amountCents > 0);
  const cr = entry.lines.find((l) => l.amountCents < 0);
  return `Dr ${dr?.account} / Cr ${cr?.account} ${dr?.amountCents}`;
}

function table(entries: LedgerEntryInput[]): [string, string, string][] {
  return entries.map((e) => [e.key, e.date, drCr(e)]);
}

const card: PaymentForBooks = {
  id: 'pay_1',
  status: 'SUCCEEDED',
  amountInCents: 10_000,
  platformFeeInCents: 320,
  paymentLinkId: 'pl_1',
  createdAt: Date.UTC(2026, 0, 2, 23, 59),
  refunds: [],
};
const ach: PaymentForBooks = { ...card, id: 'pay_2', status: 'PENDING', platformFeeInCents: 0 };

/** Books `before`, then syncs `after`; returns the keys the sync reversed and posted. */
async function transition(
  before: LedgerEntryInput[],
  after: LedgerEntryInput[],
  scope: EntryLinks,
  kinds: readonly string[],
) {
  const ledger = EmbeddedLedger.open();
  await syncEntries(ledger, before, scope, { kinds, date: '2026-02-01' });
  const result = await syncEntries(ledger, after, scope, { kinds, date: '2026-02-01' });
  const trial = await ledger.trialBalance();
  ledger.close();
  return { ...result, trial };
}

describe('payments (mapping table rows 1-6)', () => {
  it('payment received, gross: Dr Processor Clearing / Cr Accounts Receivable; absorbed card fee', () => {
    expect(table(paymentEntries(card, 'UTC', 'invoice'))).toEqual([
      [
        'payment:pay_1',
        '2026-01-02',
        `Dr ${Accounts.ProcessorClearing} / Cr ${Accounts.AccountsReceivable} 10000`,
      ],
      [
        'payment-fee:pay_1',
        '2026-01-02',
        `Dr ${Accounts.ProcessingFees} / Cr ${Accounts.ProcessorClearing} 320`,
      ],
    ]);
    expect(paymentEntries(card, 'UTC', 'invoice')[0]?.links).toEqual({
      paymentId: 'pay_1',
      paymentLinkId: 'pl_1',
    });
  });

  it('an ACH payment is booked from PENDING on (decision “completedAmountCents”), with no fee; a link-less payment has no link', () => {
    expect(table(paymentEntries(ach, 'UTC', 'invoice'))).toEqual([
      [
        'payment:pay_2',
        '2026-01-02',
        `Dr ${Accounts.ProcessorClearing} / Cr ${Accounts.AccountsReceivable} 10000`,
      ],
    ]);
    expect(paymentEntries({ ...ach, paymentLinkId: null }, 'UTC', 'sale')[0]?.links).toEqual({
      paymentId: 'pay_2',
    });
  });

  it('each live refund: Dr Refunds / Cr Processor Clearing, and the invoice it reopens (Dr Receivable / Cr Refunds), on its refund date', () => {
    const refunded: PaymentForBooks = {
      ...card,
      status: 'REFUNDED',
      refunds: [
        { id: 're_1', amountCents: 4_000, refundDate: '2026-01-05T10:00:00.000Z', voided: false },
        { id: 're_2', amountCents: 6_000, refundDate: '2026-01-06T10:00:00.000Z', voided: false },
      ],
    };
    const entries = paymentEntries(refunded, 'UTC', 'invoice');
    expect(table(entries).slice(2)).toEqual([
      ['refund:re_1', '2026-01-05', `Dr ${Accounts.Refunds} / Cr ${Accounts.ProcessorClearing} 4000`],
      ['refund-reopen:re_1', '2026-01-05', `Dr ${Accounts.AccountsReceivable} / Cr ${Accounts.Refunds} 4000`],
      ['refund:re_2', '2026-01-06', `Dr ${Accounts.Refunds} / Cr ${Accounts.ProcessorClearing} 6000`],
      ['refund-reopen:re_2', '2026-01-06', `Dr ${Accounts.AccountsReceivable} / Cr ${Accounts.Refunds} 6000`],
    ]);
    expect(entries[2]?.links).toEqual({ paymentId: 'pay_1', paymentLinkId: 'pl_1', refundId: 're_1' });
    expect(entries[3]?.links).toEqual({ paymentId: 'pay_1', paymentLinkId: 'pl_1', refundId: 're_1' });
    // A payment without an invoice has nothing to reopen: a sale of its own, whatever the caller says.
    expect(paymentEntries({ ...refunded, paymentLinkId: null }, 'UTC', 'invoice').map((e) => e.key)).toEqual([
      'sale:pay_1',
      'payment-fee:pay_1',
      'refund:re_1',
      'refund:re_2',
    ]);
  });

  it('refund before settlement (void, decision “Settlement and voids”): nothing desired, so the payment entry is reversed', async () => {
    const voided: PaymentForBooks = {
      ...card,
      status: 'REFUNDED',
      platformFeeInCents: 0,
      refunds: [{ id: 're_v', amountCents: 10_000, refundDate: '2026-01-03T00:00:00.000Z', voided: true }],
    };
    expect(paymentEntries(voided, 'UTC', 'invoice')).toEqual([]);
    const r = await transition(
      paymentEntries(card, 'UTC', 'invoice'),
      paymentEntries(voided, 'UTC', 'invoice'),
      { paymentId: 'pay_1' },
      paymentEntryKinds,
    );
    expect(r.reversed).toEqual(['payment:pay_1', 'payment-fee:pay_1']);
    expect(r.trial.accounts.every((a) => a.balanceCents === 0)).toBe(true);
  });

  it('ACH return (payment.failed, FAILED): the payment entry is reversed, the invoice reopens', async () => {
    expect(paymentEntries({ ...ach, status: 'FAILED' }, 'UTC', 'invoice')).toEqual([]);
    const r = await transition(
      paymentEntries(ach, 'UTC', 'invoice'),
      paymentEntries({ ...ach, status: 'FAILED' }, 'UTC', 'invoice'),
      { paymentId: 'pay_2' },
      paymentEntryKinds,
    );
    expect(r.reversed).toEqual(['payment:pay_2']);
    expect(r.trial.accounts.find((a) => a.account === Accounts.AccountsReceivable)?.balanceCents).toBe(0);
  });

  it('ACH refund credit returned (decision “Returned ACH refund credit”): the refund leaves refunds[], its entry is reversed', async () => {
    const refund = { id: 're_1', amountCents: 10_000, refundDate: '2026-01-20T00:00:00.000Z', voided: false };
    const r = await transition(
      paymentEntries({ ...ach, status: 'REFUNDED', refunds: [refund] }, 'UTC', 'invoice'),
      paymentEntries({ ...ach, status: 'SUCCEEDED', refunds: [] }, 'UTC', 'invoice'),
      { paymentId: 'pay_2' },
      paymentEntryKinds,
    );
    expect(r.reversed).toEqual(['refund:re_1', 'refund-reopen:re_1']);
    expect(r.unchanged).toEqual(['payment:pay_2']);
  });

  it('an unknown status is an UnmappableStateError, never a silent reversal', () => {
    expect(() => paymentEntries({ ...card, status: 'DISPUTED' }, 'UTC', 'invoice')).toThrow(
      UnmappableStateError,
    );
  });
});

describe('sales with no invoice (every sale is revenue exactly once)', () => {
  const reusableLink = {
    id: 'pl_reusable',
    customerId: 'cus_1',
    requestedAmountCents: 2_500,
    debitMemoAmountCents: 0,
    payments: [],
    externalPayments: [],
    debitMemos: [],
    reusable: true,
  };
  const onReusable = (n: number, refunds: PaymentForBooks['refunds'] = []): PaymentForBooks => ({
    id: `pay_r${n}`,
    status: refunds.length > 0 ? 'REFUNDED' : 'SUCCEEDED',
    amountInCents: 2_500,
    platformFeeInCents: 0,
    paymentLinkId: reusableLink.id,
    createdAt: Date.UTC(2026, 0, 10 + n, 12),
    refunds,
  });
  const balanceOf = (trial: Awaited<ReturnType<EmbeddedLedger['trialBalance']>>, account: string) =>
    trial.accounts.find((a) => a.account === account)?.balanceCents ?? 0;

  /** Books each payment through the payment flow's sync, as it would for each payment's webhook. */
  async function bookAll(payments: PaymentForBooks[]) {
    const ledger = EmbeddedLedger.open();
    const settles = paymentSettles(reusableLink);
    for (const p of payments) {
      await syncEntries(
        ledger,
        paymentEntries(p, 'UTC', settles),
        { paymentId: p.id },
        {
          kinds: paymentEntryKinds,
          date: '2026-02-01',
        },
      );
    }
    const trial = await ledger.trialBalance();
    const keys = (await ledger.allEntries()).map((e) => e.key);
    ledger.close();
    return { trial, keys };
  }

  it('which payments settle an invoice: a link that books one; a reusable link or no link is a sale', () => {
    expect(paymentSettles({ reusable: false })).toBe('invoice');
    expect(paymentSettles({})).toBe('invoice');
    expect(paymentSettles({ reusable: true })).toBe('sale');
    expect(paymentSettles(null)).toBe('sale');
    expect(paymentSettles(undefined)).toBe('sale');
  });

  it('a payment on a reusable link: Dr Processor Clearing / Cr Revenue, gross, as sale:; its fee as before', () => {
    const p = { ...onReusable(1), platformFeeInCents: 100 };
    expect(table(paymentEntries(p, 'UTC', 'sale'))).toEqual([
      ['sale:pay_r1', '2026-01-11', `Dr ${Accounts.ProcessorClearing} / Cr ${Accounts.Revenue} 2500`],
      [
        'payment-fee:pay_r1',
        '2026-01-11',
        `Dr ${Accounts.ProcessingFees} / Cr ${Accounts.ProcessorClearing} 100`,
      ],
    ]);
    expect(paymentEntries(p, 'UTC', 'sale')[0]?.links).toEqual({
      paymentId: 'pay_r1',
      paymentLinkId: 'pl_reusable',
    });
    // The reusable link books no invoice: the sale is its only revenue.
    expect(invoiceEntryToPost(reusableLink, [], '2026-02-01', 'UTC')).toBeNull();
  });

  it('three payments of 2,500 on a reusable link: Accounts Receivable 0, Revenue 7,500', async () => {
    const { trial, keys } = await bookAll([onReusable(1), onReusable(2), onReusable(3)]);
    expect(keys.sort()).toEqual(['sale:pay_r1', 'sale:pay_r2', 'sale:pay_r3']);
    expect(balanceOf(trial, Accounts.AccountsReceivable)).toBe(0);
    expect(balanceOf(trial, Accounts.Revenue)).toBe(-7_500);
    expect(balanceOf(trial, Accounts.ProcessorClearing)).toBe(7_500);
  });

  it('a refund of one: Refunds 2,500 (contra revenue), nothing reopened, Accounts Receivable still 0', async () => {
    const refund = { id: 're_r2', amountCents: 2_500, refundDate: '2026-01-20T09:00:00.000Z', voided: false };
    const { trial, keys } = await bookAll([onReusable(1), onReusable(2, [refund]), onReusable(3)]);
    expect(keys.sort()).toEqual(['refund:re_r2', 'sale:pay_r1', 'sale:pay_r2', 'sale:pay_r3']);
    expect(balanceOf(trial, Accounts.Refunds)).toBe(2_500);
    expect(balanceOf(trial, Accounts.AccountsReceivable)).toBe(0);
    expect(balanceOf(trial, Accounts.Revenue)).toBe(-7_500);
    expect(balanceOf(trial, Accounts.ProcessorClearing)).toBe(5_000);
  });

  it('a payment on no link is a sale too, and its refund reopens nothing', () => {
    const refund = { id: 're_n', amountCents: 1_000, refundDate: '2026-01-06T10:00:00.000Z', voided: false };
    const p: PaymentForBooks = {
      ...card,
      id: 'pay_n',
      paymentLinkId: null,
      status: 'REFUNDED',
      refunds: [refund],
    };
    expect(table(paymentEntries(p, 'UTC', 'sale'))).toEqual([
      ['sale:pay_n', '2026-01-02', `Dr ${Accounts.ProcessorClearing} / Cr ${Accounts.Revenue} 10000`],
      [
        'payment-fee:pay_n',
        '2026-01-02',
        `Dr ${Accounts.ProcessingFees} / Cr ${Accounts.ProcessorClearing} 320`,
      ],
      ['refund:re_n', '2026-01-06', `Dr ${Accounts.Refunds} / Cr ${Accounts.ProcessorClearing} 1000`],
    ]);
  });

  it('a sale returned (ACH FAILED) or voided is reversed like a payment', async () => {
    const r = await transition(
      paymentEntries({ ...onReusable(1), status: 'PENDING' }, 'UTC', 'sale'),
      paymentEntries({ ...onReusable(1), status: 'FAILED' }, 'UTC', 'sale'),
      { paymentId: 'pay_r1' },
      paymentEntryKinds,
    );
    expect(r.reversed).toEqual(['sale:pay_r1']);
    expect(r.trial.accounts.every((a) => a.balanceCents === 0)).toBe(true);
  });

  it('booked by an earlier release as payment: (crediting A/R): reversed in the open period, sale: booked', async () => {
    const refund = { id: 're_old', amountCents: 500, refundDate: '2026-01-12T09:00:00.000Z', voided: false };
    const p = onReusable(1, [refund]);
    const r = await transition(
      paymentEntries(p, 'UTC', 'invoice'),
      paymentEntries(p, 'UTC', 'sale'),
      { paymentId: 'pay_r1' },
      paymentEntryKinds,
    );
    expect(r.reversed).toEqual(['payment:pay_r1', 'refund-reopen:re_old']);
    expect(r.posted).toEqual(['sale:pay_r1']);
    expect(r.unchanged).toEqual(['refund:re_old']);
    expect(balanceOf(r.trial, Accounts.AccountsReceivable)).toBe(0);
    expect(balanceOf(r.trial, Accounts.Revenue)).toBe(-2_500);
    expect(balanceOf(r.trial, Accounts.Refunds)).toBe(500);
  });
});

describe('payment links (rows 7, 11, 12)', () => {
  const link: PaymentLinkForBooks = {
    id: 'pl_1',
    customerId: 'cus_1',
    externalPayments: [
      { id: 'ep_1', amountCents: 2_500, paidAt: '2026-01-04', voided: false, serviceBankingTransferId: null },
      {
        id: 'ep_dep',
        amountCents: 1_000,
        paidAt: '2026-01-04',
        voided: false,
        serviceBankingTransferId: 'tr_1',
      },
    ],
    debitMemos: [{ id: 'dm_1', amountCents: 3_500, createdAt: '2026-01-05T08:00:00.000Z', voided: false }],
  };

  it('external payment: Dr Checks To Deposit / Cr AR by default; debit memo: Dr AR / Cr Fee Income', () => {
    expect(table(paymentLinkEntries(link, { timeZone: 'UTC' }))).toEqual([
      [
        'external-payment:ep_1',
        '2026-01-04',
        `Dr ${Accounts.ChecksToDeposit} / Cr ${Accounts.AccountsReceivable} 2500`,
      ],
      ['debit-memo:dm_1', '2026-01-05', `Dr ${Accounts.AccountsReceivable} / Cr ${Accounts.FeeIncome} 3500`],
    ]);
    expect(paymentLinkEntries(link, { timeZone: 'UTC' })[0]?.links).toEqual({
      paymentLinkId: 'pl_1',
      customerId: 'cus_1',
      externalPaymentId: 'ep_1',
    });
  });

  it('external payment to Operating Bank by config', () => {
    expect(
      drCr(
        paymentLinkEntries(link, {
          timeZone: 'UTC',
          externalPaymentAccount: 'operating-bank',
        })[0] as LedgerEntryInput,
      ),
    ).toBe(`Dr ${Accounts.OperatingBank} / Cr ${Accounts.AccountsReceivable} 2500`);
  });

  it('voided external payment or debit memo (omitted by the service): reversal', async () => {
    const r = await transition(
      paymentLinkEntries(link, { timeZone: 'UTC' }),
      paymentLinkEntries({ ...link, externalPayments: [], debitMemos: [] }, { timeZone: 'UTC' }),
      { paymentLinkId: 'pl_1' },
      paymentLinkEntryKinds,
    );
    expect(r.reversed).toEqual(['external-payment:ep_1', 'debit-memo:dm_1']);
  });

  it('the link flow leaves payments booked under the same link alone', async () => {
    const ledger = EmbeddedLedger.open();
    await syncEntries(
      ledger,
      paymentEntries(card, 'UTC', 'invoice'),
      { paymentId: 'pay_1' },
      { kinds: paymentEntryKinds, date: '2026-02-01' },
    );
    const r = await syncEntries(
      ledger,
      paymentLinkEntries(link, { timeZone: 'UTC' }),
      { paymentLinkId: 'pl_1' },
      {
        kinds: paymentLinkEntryKinds,
        date: '2026-02-01',
      },
    );
    expect(r.reversed).toEqual([]);
    expect(await ledger.isReversed('payment:pay_1')).toBe(false);
    ledger.close();
  });
});

describe('check deposits (rows 8-10)', () => {
  const deposit: CheckDepositForBooks = {
    id: 'cd_1',
    status: 'PROCESSING',
    amountCents: 8_000,
    createdAt: '2026-01-05T23:30:00.000Z',
    clearedAt: null,
    applications: [
      {
        id: 'ep_a',
        amountCents: 3_000,
        paidAt: '2026-01-06',
        voided: false,
        serviceBankingTransferId: 'tr_1',
      },
      {
        id: 'ep_b',
        amountCents: 2_000,
        paidAt: '2026-01-06',
        voided: false,
        serviceBankingTransferId: 'tr_1',
      },
    ],
  };
  const links: Record<string, string> = { ep_a: 'pl_a', ep_b: 'pl_b' };
  const linkOf = (id: string) => links[id];

  it('the whole check to Unapplied Cash on its own day, each application from there to AR', () => {
    const entries = checkDepositEntries(deposit, linkOf, 'America/New_York');
    expect(table(entries)).toEqual([
      [
        'check-deposited:cd_1',
        '2026-01-05',
        `Dr ${Accounts.ChecksToDeposit} / Cr ${Accounts.UnappliedCash} 8000`,
      ],
      [
        'check-application:ep_a',
        '2026-01-06',
        `Dr ${Accounts.UnappliedCash} / Cr ${Accounts.AccountsReceivable} 3000`,
      ],
      [
        'check-application:ep_b',
        '2026-01-06',
        `Dr ${Accounts.UnappliedCash} / Cr ${Accounts.AccountsReceivable} 2000`,
      ],
    ]);
    expect(entries[1]?.links).toEqual({
      checkDepositId: 'cd_1',
      externalPaymentId: 'ep_a',
      paymentLinkId: 'pl_a',
    });
  });

  it('cleared: Dr Operating Bank / Cr Checks To Deposit for the whole check, not the applied total', () => {
    const cleared = { ...deposit, status: 'CLEARED', clearedAt: '2026-01-09T15:00:00.000Z' };
    expect(table(checkDepositEntries(cleared, linkOf, 'UTC')).at(-1)).toEqual([
      'check-cleared:cd_1',
      '2026-01-09',
      `Dr ${Accounts.OperatingBank} / Cr ${Accounts.ChecksToDeposit} 8000`,
    ]);
  });

  it('returned or rejected: every entry is reversed', async () => {
    for (const status of ['RETURNED', 'REJECTED']) {
      const r = await transition(
        checkDepositEntries(deposit, linkOf, 'UTC'),
        checkDepositEntries({ ...deposit, status, applications: [] }, linkOf, 'UTC'),
        { checkDepositId: 'cd_1' },
        checkDepositEntryKinds,
      );
      expect(r.reversed).toEqual([
        'check-deposited:cd_1',
        'check-application:ep_a',
        'check-application:ep_b',
      ]);
    }
  });

  it('an application whose link is unknown is an error, not a guess', () => {
    expect(() => checkDepositEntries(deposit, () => undefined, 'UTC')).toThrow(UnmappableStateError);
  });
});

describe('disbursements (rows 13-14)', () => {
  const pending: DisbursementForBooks = {
    id: 'dis_1',
    status: 'PENDING',
    amountInCents: 7_180,
    createdAt: '2026-01-10',
    paidAt: null,
  };
  it('pending: Dr Payouts In Transit / Cr Processor Clearing', () => {
    expect(table(disbursementEntries(pending))).toEqual([
      [
        'disbursement-pending:dis_1',
        '2026-01-10',
        `Dr ${Accounts.PayoutsInTransit} / Cr ${Accounts.ProcessorClearing} 7180`,
      ],
    ]);
  });
  it('succeeded: also Dr Operating Bank / Cr Payouts In Transit, on paidAt', () => {
    expect(table(disbursementEntries({ ...pending, status: 'SUCCEEDED', paidAt: '2026-01-12' }))[1]).toEqual([
      'disbursement-paid:dis_1',
      '2026-01-12',
      `Dr ${Accounts.OperatingBank} / Cr ${Accounts.PayoutsInTransit} 7180`,
    ]);
  });
  it('failed: what was booked is reversed', async () => {
    const r = await transition(
      disbursementEntries(pending),
      disbursementEntries({ ...pending, status: 'FAILED' }),
      { disbursementId: 'dis_1' },
      disbursementEntryKinds,
    );
    expect(r.reversed).toEqual(['disbursement-pending:dis_1']);
  });
});

describe('bill payments (rows 15-17)', () => {
  const sent: BillPaymentForBooks = {
    id: 'bp_1',
    billId: 'bill_1',
    vendorId: 'ven_1',
    amountCents: 12_345,
    status: 'PENDING',
    sentAt: '2026-01-15T09:00:00.000Z',
    completedAt: null,
    deliveryMethodType: 'CHECK',
  };
  it('not yet sent: nothing', () => {
    expect(billPaymentEntries({ ...sent, sentAt: null }, 'UTC')).toEqual([]);
  });
  it('sent: Dr Accounts Payable / Cr Outgoing Payments Clearing', () => {
    expect(table(billPaymentEntries(sent, 'UTC'))).toEqual([
      [
        'bill-payment-sent:bp_1',
        '2026-01-15',
        `Dr ${Accounts.AccountsPayable} / Cr ${Accounts.OutgoingPaymentsClearing} 12345`,
      ],
    ]);
    expect(billPaymentEntries(sent, 'UTC')[0]?.links).toEqual({
      billPaymentId: 'bp_1',
      vendorId: 'ven_1',
      billId: 'bill_1',
    });
  });
  it('check deposited: Dr Outgoing Payments Clearing / Cr Operating Bank when the vendor deposits it', () => {
    const paid = { ...sent, status: 'SUCCEEDED', completedAt: '2026-01-20T09:00:00.000Z' };
    expect(table(billPaymentEntries(paid, 'UTC'))[1]).toEqual([
      'bill-payment-paid:bp_1',
      '2026-01-20',
      `Dr ${Accounts.OutgoingPaymentsClearing} / Cr ${Accounts.OperatingBank} 12345`,
    ]);
  });
  it('ACH (and wire): the bank is debited when the payment is sent, even while PENDING (spec 6.5)', () => {
    // Sent 30 January, succeeding 3 February: January's bank is lower by the payment.
    const ach = { ...sent, deliveryMethodType: 'ACH', sentAt: '2026-01-30T15:00:00.000Z' };
    const bank = `Dr ${Accounts.OutgoingPaymentsClearing} / Cr ${Accounts.OperatingBank} 12345`;
    expect(table(billPaymentEntries(ach, 'UTC'))[1]).toEqual(['bill-payment-paid:bp_1', '2026-01-30', bank]);
    const succeeded = { ...ach, status: 'SUCCEEDED', completedAt: '2026-02-03T09:00:00.000Z' };
    expect(table(billPaymentEntries(succeeded, 'UTC'))[1]).toEqual([
      'bill-payment-paid:bp_1',
      '2026-01-30',
      bank,
    ]);
    const wire = { ...ach, deliveryMethodType: 'INTERNATIONAL_WIRE' };
    expect(billPaymentEntries(wire, 'UTC')).toHaveLength(2);
    // The debit returned (FAILED): nothing, so both are reversed and the money is back in the bank.
    expect(billPaymentEntries({ ...ach, status: 'FAILED' }, 'UTC')).toEqual([]);
  });
  it('check returned / failed / cancelled (FAILED): the sent entry is reversed, the bill is owed again', async () => {
    const r = await transition(
      billPaymentEntries(sent, 'UTC'),
      billPaymentEntries({ ...sent, status: 'FAILED' }, 'UTC'),
      { billPaymentId: 'bp_1' },
      billPaymentEntryKinds,
    );
    expect(r.reversed).toEqual(['bill-payment-sent:bp_1']);
    expect(r.trial.accounts.find((a) => a.account === Accounts.AccountsPayable)?.balanceCents).toBe(0);
  });
});

describe('complete books: invoices and bills', () => {
  const link = {
    id: 'pl_9',
    customerId: 'cus_9',
    requestedAmountCents: 12_500,
    debitMemoAmountCents: 2_500,
    reusable: false,
    payments: [],
    externalPayments: [],
    debitMemos: [],
  };
  const booked = (entries: ReturnType<typeof invoiceEntryToPost>[]) =>
    entries
      .filter((e) => e !== null)
      .map(
        (e, i) =>
          ({
            ...e,
            id: i + 1,
            reverses: null,
            reversedBy: null,
            contentHash: '',
            createdAt: '',
            links: e.links ?? {},
          }) as never,
      );

  it('books the invoice for the link own amount (without its memos), once', () => {
    const first = invoiceEntryToPost(link, [], '2026-02-01', 'UTC');
    expect(table([first!])).toEqual([
      ['invoice:pl_9', '2026-02-01', `Dr ${Accounts.AccountsReceivable} / Cr ${Accounts.Revenue} 10000`],
    ]);
    expect(first?.links).toEqual({ paymentLinkId: 'pl_9', customerId: 'cus_9' });
    expect(invoiceEntryToPost(link, booked([first]), '2026-02-05', 'UTC')).toBeNull();
  });

  it('a lowered amount (a write-off, 4.3) is an adjustment for the difference, never an edit', () => {
    const first = invoiceEntryToPost(link, [], '2026-02-01', 'UTC');
    const lowered = invoiceEntryToPost(
      { ...link, requestedAmountCents: 9_000 },
      booked([first]),
      '2026-02-03',
      'UTC',
    );
    expect(table([lowered!])).toEqual([
      [
        'invoice-adjustment:pl_9:1',
        '2026-02-03',
        `Dr ${Accounts.DiscountsAndWriteOffs} / Cr ${Accounts.AccountsReceivable} 3500`,
      ],
    ]);
    const raised = invoiceEntryToPost(
      { ...link, requestedAmountCents: 11_000 },
      booked([first, lowered]),
      '2026-02-04',
      'UTC',
    );
    expect(raised?.key).toBe('invoice-adjustment:pl_9:2');
    expect(raised?.lines.find((l) => l.account === Accounts.AccountsReceivable)?.amountCents).toBe(2_000);
  });

  describe('a lowering the business wrote off (booksync link write-off) is Bad Debt', () => {
    const plain = { ...link, requestedAmountCents: 10_000, debitMemoAmountCents: 0 };
    const first = invoiceEntryToPost(plain, [], '2026-02-01', 'UTC');

    it('a write-off of 4,000 recorded, the link lowered by 4,000: Dr Bad Debt / Cr A/R, dated today', () => {
      const lowered = invoiceEntryToPost(
        { ...plain, requestedAmountCents: 6_000 },
        booked([first]),
        '2026-02-03',
        'UTC',
        0,
        4_000,
      );
      expect(table([lowered!])).toEqual([
        [
          'invoice-adjustment:pl_9:1',
          '2026-02-03',
          `Dr ${Accounts.BadDebt} / Cr ${Accounts.AccountsReceivable} 4000`,
        ],
      ]);
      expect(lowered?.description).toBe(
        'Invoice for payment link pl_9: 4000 cents written off as bad debt, amount lowered to 6000 cents',
      );
      // Booked, the write-off is covered: the same link again books nothing more.
      expect(
        invoiceEntryToPost(
          { ...plain, requestedAmountCents: 6_000 },
          booked([first, lowered]),
          '2026-02-04',
          'UTC',
          0,
          4_000,
        ),
      ).toBeNull();
    });

    it('no write-off recorded: the same lowering is a discount, as before', () => {
      const lowered = invoiceEntryToPost(
        { ...plain, requestedAmountCents: 6_000 },
        booked([first]),
        '2026-02-03',
        'UTC',
        0,
        0,
      );
      expect(lowered?.lines).toEqual([
        { account: Accounts.AccountsReceivable, amountCents: -4_000 },
        { account: Accounts.DiscountsAndWriteOffs, amountCents: 4_000 },
      ]);
    });

    it('a lowering larger than the write-off (a discount given too): Bad Debt for what was written off, then the rest a discount, one adjustment each', () => {
      const lowering = { ...plain, requestedAmountCents: 5_000 };
      const writtenOff = invoiceEntryToPost(lowering, booked([first]), '2026-02-03', 'UTC', 0, 3_000);
      expect([writtenOff?.key, writtenOff?.lines]).toEqual([
        'invoice-adjustment:pl_9:1',
        [
          { account: Accounts.AccountsReceivable, amountCents: -3_000 },
          { account: Accounts.BadDebt, amountCents: 3_000 },
        ],
      ]);
      expect(writtenOff?.description).toBe(
        'Invoice for payment link pl_9: 3000 cents written off as bad debt, amount lowered to 7000 cents',
      );
      const discount = invoiceEntryToPost(
        lowering,
        booked([first, writtenOff]),
        '2026-02-03',
        'UTC',
        0,
        3_000,
      );
      expect([discount?.key, discount?.lines]).toEqual([
        'invoice-adjustment:pl_9:2',
        [
          { account: Accounts.AccountsReceivable, amountCents: -2_000 },
          { account: Accounts.DiscountsAndWriteOffs, amountCents: 2_000 },
        ],
      ]);
      expect(
        invoiceEntryToPost(lowering, booked([first, writtenOff, discount]), '2026-02-03', 'UTC', 0, 3_000),
      ).toBeNull();
    });

    it('an earlier discount stays a discount; a later write-off covers only its own lowering', () => {
      const discount = invoiceEntryToPost(
        { ...plain, requestedAmountCents: 9_000 },
        booked([first]),
        '2026-02-02',
        'UTC',
      );
      expect(discount?.lines.map((l) => l.account)).toEqual([
        Accounts.AccountsReceivable,
        Accounts.DiscountsAndWriteOffs,
      ]);
      const writtenOff = invoiceEntryToPost(
        { ...plain, requestedAmountCents: 2_000 },
        booked([first, discount]),
        '2026-02-05',
        'UTC',
        0,
        7_000,
      );
      expect(table([writtenOff!])).toEqual([
        [
          'invoice-adjustment:pl_9:2',
          '2026-02-05',
          `Dr ${Accounts.BadDebt} / Cr ${Accounts.AccountsReceivable} 7000`,
        ],
      ]);
      // A second write-off of the same link later (after a raise): only what earlier adjustments did not
      // book to Bad Debt counts.
      // Raised back to 10,000: the 1,000 discount taken back, the other 7,000 is revenue again.
      const takenBack = invoiceEntryToPost(
        plain,
        booked([first, discount, writtenOff]),
        '2026-02-06',
        'UTC',
        0,
        7_000,
      );
      const raised = invoiceEntryToPost(
        plain,
        booked([first, discount, writtenOff, takenBack]),
        '2026-02-06',
        'UTC',
        0,
        7_000,
      );
      expect([takenBack?.lines, raised?.lines]).toEqual([
        [
          { account: Accounts.AccountsReceivable, amountCents: 1_000 },
          { account: Accounts.DiscountsAndWriteOffs, amountCents: -1_000 },
        ],
        [
          { account: Accounts.AccountsReceivable, amountCents: 7_000 },
          { account: Accounts.Revenue, amountCents: -7_000 },
        ],
      ]);
      const again = invoiceEntryToPost(
        { ...plain, requestedAmountCents: 7_000 },
        booked([first, discount, writtenOff, takenBack, raised]),
        '2026-02-07',
        'UTC',
        0,
        10_000,
      );
      expect(again?.lines).toEqual([
        { account: Accounts.AccountsReceivable, amountCents: -3_000 },
        { account: Accounts.BadDebt, amountCents: 3_000 },
      ]);
    });

    it('a link with debit memos: the own amount lowered by the write-off, Bad Debt for it', () => {
      // 10,000 own + 2,500 memo, 8,000 paid: 4,500 left; the own amount lowered to 8,000 - 2,500 = 5,500.
      const first = invoiceEntryToPost(link, [], '2026-02-01', 'UTC');
      const lowered = invoiceEntryToPost(
        { ...link, requestedAmountCents: 8_000 },
        booked([first]),
        '2026-02-03',
        'UTC',
        0,
        4_500,
      );
      expect(table([lowered!])).toEqual([
        [
          'invoice-adjustment:pl_9:1',
          '2026-02-03',
          `Dr ${Accounts.BadDebt} / Cr ${Accounts.AccountsReceivable} 4500`,
        ],
      ]);
    });
  });

  it('10,000 lowered to 8,000: Dr Discounts and Write-offs 2,000 / Cr A/R; raised to 11,000: the discount taken back, then Revenue', () => {
    const plain = { ...link, requestedAmountCents: 10_000, debitMemoAmountCents: 0 };
    const first = invoiceEntryToPost(plain, [], '2026-02-01', 'UTC');
    const lowered = invoiceEntryToPost(
      { ...plain, requestedAmountCents: 8_000 },
      booked([first]),
      '2026-02-03',
      'UTC',
    );
    expect(lowered?.lines).toEqual([
      { account: Accounts.AccountsReceivable, amountCents: -2_000 },
      { account: Accounts.DiscountsAndWriteOffs, amountCents: 2_000 },
    ]);
    // Raised to 11,000: the 2,000 discount is taken back first, and only the 1,000 beyond it is new revenue,
    // two adjustments, each one credit against the receivable.
    const raisedTo = { ...plain, requestedAmountCents: 11_000 };
    const takenBack = invoiceEntryToPost(raisedTo, booked([first, lowered]), '2026-02-04', 'UTC');
    const more = invoiceEntryToPost(raisedTo, booked([first, lowered, takenBack]), '2026-02-04', 'UTC');
    expect(table([takenBack!, more!])).toEqual([
      [
        'invoice-adjustment:pl_9:2',
        '2026-02-04',
        `Dr ${Accounts.AccountsReceivable} / Cr ${Accounts.DiscountsAndWriteOffs} 2000`,
      ],
      [
        'invoice-adjustment:pl_9:3',
        '2026-02-04',
        `Dr ${Accounts.AccountsReceivable} / Cr ${Accounts.Revenue} 1000`,
      ],
    ]);
    expect(
      invoiceEntryToPost(raisedTo, booked([first, lowered, takenBack, more]), '2026-02-05', 'UTC'),
    ).toBeNull();
    // Raised back only part of the way: all of it takes back the discount.
    const partWay = invoiceEntryToPost(
      { ...plain, requestedAmountCents: 9_000 },
      booked([first, lowered]),
      '2026-02-04',
      'UTC',
    );
    expect(partWay?.lines).toEqual([
      { account: Accounts.AccountsReceivable, amountCents: 1_000 },
      { account: Accounts.DiscountsAndWriteOffs, amountCents: -1_000 },
    ]);
  });

  it('a lowering an earlier release booked against Revenue is counted as booked: nothing new, nothing rebooked', () => {
    const plain = { ...link, requestedAmountCents: 10_000, debitMemoAmountCents: 0 };
    const first = invoiceEntryToPost(plain, [], '2026-02-01', 'UTC');
    const earlier = {
      key: 'invoice-adjustment:pl_9:1',
      date: '2026-02-03',
      description: 'Invoice for payment link pl_9: amount lowered to 8000 cents',
      lines: [
        { account: Accounts.Revenue, amountCents: 2_000 },
        { account: Accounts.AccountsReceivable, amountCents: -2_000 },
      ],
      links: first?.links,
    };
    const lowered = { ...plain, requestedAmountCents: 8_000 };
    expect(invoiceEntryToPost(lowered, booked([first, earlier as never]), '2026-03-01', 'UTC')).toBeNull();
    // Lowered again: only the new difference, on the new account, numbered after the earlier one.
    const again = invoiceEntryToPost(
      { ...plain, requestedAmountCents: 7_500 },
      booked([first, earlier as never]),
      '2026-03-02',
      'UTC',
    );
    expect(table([again!])).toEqual([
      [
        'invoice-adjustment:pl_9:2',
        '2026-03-02',
        `Dr ${Accounts.DiscountsAndWriteOffs} / Cr ${Accounts.AccountsReceivable} 500`,
      ],
    ]);
  });

  it('a reusable link is a standing price, not an invoice', () => {
    expect(invoiceEntryToPost({ ...link, reusable: true }, [], '2026-02-01', 'UTC')).toBeNull();
  });

  it('a bill: Dr Bill Expenses / Cr Accounts Payable on its creation date, with bill and vendor', () => {
    const [bill] = billEntries(
      {
        id: 'bill_7',
        vendorId: 'ven_7',
        amountCents: 97_500,
        createdAt: '2026-02-02T15:00:00.000Z',
      },
      'UTC',
    );
    expect(table([bill!])).toEqual([
      ['bill:bill_7', '2026-02-02', `Dr ${Accounts.BillExpenses} / Cr ${Accounts.AccountsPayable} 97500`],
    ]);
    expect(bill?.links).toEqual({ billId: 'bill_7', vendorId: 'ven_7' });
  });
});

describe("dates are business days in the business's time zone (BOOKS_TIME_ZONE)", () => {
  // 23:30 on 31 January in Los Angeles is 07:30 on 1 February in UTC.
  const lastEvening = Date.UTC(2026, 1, 1, 7, 30);

  it('a payment at 23:30 on the last day of the month in Los Angeles is booked in that month', () => {
    const payment = { ...card, createdAt: lastEvening, platformFeeInCents: 0 };
    expect(paymentEntries(payment, 'America/Los_Angeles', 'invoice').map((e) => e.date)).toEqual([
      '2026-01-31',
    ]);
    expect(paymentEntries(payment, 'UTC', 'invoice').map((e) => e.date)).toEqual(['2026-02-01']);
  });

  it('date-times (refunds, memos, bills) follow the zone, daylight saving included; plain dates stay', () => {
    // 1 July 2026, 06:30 UTC is 23:30 on 30 June in Los Angeles (PDT, UTC-7).
    const refunded = {
      ...card,
      platformFeeInCents: 0,
      refunds: [{ id: 're_1', amountCents: 500, refundDate: '2026-07-01T06:30:00Z', voided: false }],
    };
    const refund = paymentEntries(refunded, 'America/Los_Angeles', 'invoice').find(
      (e) => e.key === 'refund:re_1',
    );
    expect(refund?.date).toBe('2026-06-30');
    const [bill] = billEntries(
      { id: 'bill_1', vendorId: 'ven_1', amountCents: 100, createdAt: '2026-03-01T02:00:00Z' },
      'America/New_York',
    );
    expect(bill?.date).toBe('2026-02-28');
    const [external] = paymentLinkEntries(
      {
        id: 'pl_1',
        customerId: undefined,
        externalPayments: [
          {
            id: 'ep_1',
            amountCents: 100,
            paidAt: '2026-03-01',
            voided: false,
            serviceBankingTransferId: null,
          },
        ],
        debitMemos: [],
      },
      { timeZone: 'Pacific/Kiritimati' },
    );
    expect(external?.date).toBe('2026-03-01');
  });

  it('an invoice is dated no later than the first money on it (a backfilled invoice by its payment)', () => {
    const link = {
      id: 'pl_5',
      customerId: null,
      requestedAmountCents: 10_000,
      debitMemoAmountCents: 0,
      reusable: false,
      payments: [{ ...card, id: 'pay_5', createdAt: lastEvening, fees: [] }],
      externalPayments: [],
      debitMemos: [],
    } as unknown as Parameters<typeof invoiceEntryToPost>[0];
    expect(invoiceEntryToPost(link, [], '2026-03-15', 'America/Los_Angeles')?.date).toBe('2026-01-31');
    // Learned of before any money moved: dated that day.
    expect(invoiceEntryToPost(link, [], '2026-01-20', 'America/Los_Angeles')?.date).toBe('2026-01-20');
  });

  it('an unknown zone is refused with one line naming the setting', () => {
    expect(() => checkedTimeZone('Mars/Olympus_Mons')).toThrow(
      /^BOOKS_TIME_ZONE: "Mars\/Olympus_Mons" is not a time zone/,
    );
    expect(checkedTimeZone('America/Los_Angeles')).toBe('America/Los_Angeles');
  });
});
