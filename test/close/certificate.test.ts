import type { Bill, BillPayment, Disbursement, Payment } from '@booksync/service-contract/schemas/index';
import { describe, expect, it } from 'vitest';
import { closeCertificate } from '../../src/close/certificate.js';
import { certificateHtml, escapeHtml } from '../../src/close/certificate-html.js';
import { certificateLines } from '../../src/close/certificate-text.js';
import type { CloseInput } from '../../src/close/close-input.js';
import { monthBefore } from '../../src/flows/period-close/workflow.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import type { EntryLinks } from '../../src/ledger/entry.js';
import { bookedEntry, closeInput } from './close-fixtures.js';

// The certificate's rules on hand-made objects and entries: skip reasons, duplicates, amounts, orphans,
// payables per bill and the accounting targets' index. Every figure is worked out by hand.

const period = { from: '2026-03-01', to: '2026-03-31' };
const march = (day: number) => Date.parse(`2026-03-${String(day).padStart(2, '0')}T12:00:00Z`);

const entry = bookedEntry;

/** A payment on a link that books its invoice (`payment:`); `paymentLinkId: null` makes it a sale. */
const payment = (
  pid: string,
  status: string,
  amount: number,
  fee: number,
  refunds: unknown[] = [],
  paymentLinkId: string | null = 'pl_inv',
) =>
  ({
    id: pid,
    status,
    amountInCents: amount,
    platformFeeInCents: fee,
    paymentLinkId,
    createdAt: march(10),
    refunds,
  }) as unknown as Payment;

function input(over: Partial<CloseInput>): CloseInput {
  return closeInput({ period, asOf: '2026-04-01T00:00:00Z' }, over);
}

describe('the completeness certificate', () => {
  it('passes when each object has one live entry, a failed payment is skipped with its reason, and balances agree', () => {
    const ok = payment('pay_ok', 'SUCCEEDED', 10_000, 320);
    const failed = payment('pay_failed', 'FAILED', 5_000, 0);
    const payout = {
      id: 'dis_1',
      status: 'PENDING',
      amountInCents: 9_680,
      createdAt: '2026-03-11',
      paidAt: null,
    } as unknown as Disbursement;
    const pay = entry(
      'payment:pay_ok',
      '2026-03-10',
      [
        [Accounts.ProcessorClearing, 10_000],
        [Accounts.AccountsReceivable, -10_000],
      ],
      { paymentId: 'pay_ok' },
    );
    const cert = closeCertificate(
      input({
        payments: [ok, failed],
        disbursements: [payout],
        entries: [
          pay,
          entry(
            'payment-fee:pay_ok',
            '2026-03-10',
            [
              [Accounts.ProcessingFees, 320],
              [Accounts.ProcessorClearing, -320],
            ],
            { paymentId: 'pay_ok' },
          ),
          // The failed payment was booked, then reversed: history, not a live entry.
          entry(
            'payment:pay_failed',
            '2026-03-10',
            [
              [Accounts.ProcessorClearing, 5_000],
              [Accounts.AccountsReceivable, -5_000],
            ],
            { paymentId: 'pay_failed' },
            { reversedBy: 'reversal:payment:pay_failed' },
          ),
          entry(
            'reversal:payment:pay_failed',
            '2026-03-12',
            [
              [Accounts.ProcessorClearing, -5_000],
              [Accounts.AccountsReceivable, 5_000],
            ],
            { paymentId: 'pay_failed' },
            { reverses: 'payment:pay_failed' },
          ),
          entry(
            'disbursement-pending:dis_1',
            '2026-03-11',
            [
              [Accounts.PayoutsInTransit, 9_680],
              [Accounts.ProcessorClearing, -9_680],
            ],
            { disbursementId: 'dis_1' },
          ),
        ],
      }),
    );
    expect(cert.problems).toEqual([]);
    expect(cert.passes).toBe(true);
    expect(cert.objects.map((o) => [o.kind, o.id, o.status, o.entryKey ?? o.skipReason])).toEqual([
      [
        'payment',
        'pay_failed',
        'SKIPPED',
        'FAILED: nothing stays booked (a return reverses what was booked)',
      ],
      ['payment', 'pay_ok', 'BOOKED', 'payment:pay_ok'],
      ['disbursement', 'dis_1', 'BOOKED', 'disbursement-pending:dis_1'],
    ]);
    // 10000 - 320 - 9680 = 0 at the service and in the books (the failed payment's booking and its reversal,
    // both in March, cancel out); 9680 in transit.
    expect(cert.balances.map((b) => [b.booksCents, b.serviceCents, b.ok])).toEqual([
      [0, 0, true],
      [9_680, 9_680, true],
    ]);
    expect(cert.flow).toEqual({
      receivedCents: 10_000,
      feesCents: 320,
      refundsCents: 0,
      disbursedCents: 9_680,
      reachedBankCents: 0,
    });
    expect(cert.counts).toMatchObject({ objects: 3, BOOKED: 2, SKIPPED: 1, entries: 5, orphans: 0 });
  });

  it('names two live versions, a booked amount that differs, an entry of an object the service no longer lists, and objects outside the period not at all', () => {
    const twice = payment('pay_twice', 'SUCCEEDED', 1_000, 0);
    const wrong = payment('pay_wrong', 'SUCCEEDED', 2_000, 0);
    const april = {
      ...payment('pay_april', 'SUCCEEDED', 3_000, 0),
      createdAt: Date.parse('2026-04-02T00:00:00Z'),
    };
    const line = (n: number): [string, number][] => [
      [Accounts.ProcessorClearing, n],
      [Accounts.AccountsReceivable, -n],
    ];
    const cert = closeCertificate(
      input({
        payments: [twice, wrong, april],
        entries: [
          entry('payment:pay_twice', '2026-03-10', line(1_000), { paymentId: 'pay_twice' }),
          entry('payment:pay_twice#2', '2026-03-10', line(1_000), { paymentId: 'pay_twice' }),
          entry('payment:pay_wrong', '2026-03-10', line(2_500), { paymentId: 'pay_wrong' }),
          entry('payment:pay_gone', '2026-03-05', line(700), { paymentId: 'pay_gone' }),
        ],
      }),
    );
    expect(cert.passes).toBe(false);
    expect(cert.objects.map((o) => [o.id, o.status, o.detail])).toEqual([
      ['pay_twice', 'DUPLICATE', '2 live versions of payment:pay_twice'],
      ['pay_wrong', 'AMOUNT_DIFFERS', 'booked 2500 cents, the service says 2000'],
    ]);
    expect(cert.orphanEntries).toEqual([
      {
        key: 'payment:pay_gone',
        date: '2026-03-05',
        detail: 'payment pay_gone is not listed by the service',
      },
    ]);
    // As of 31 March: the service 1000 + 2000 (April's payment is not March's) = 3000; books 1000 twice + 2500 + 700.
    expect(cert.balances[0]).toMatchObject({ booksCents: 5_200, serviceCents: 3_000, ok: false });
    expect(cert.problems).toEqual([
      'payment pay_twice (2026-03-10): DUPLICATE: 2 live versions of payment:pay_twice',
      'payment pay_wrong (2026-03-10): AMOUNT_DIFFERS: booked 2500 cents, the service says 2000',
      'entry payment:pay_gone (2026-03-05): payment pay_gone is not listed by the service',
      'Processor Clearing as of 2026-03-31: books 5200 cents, service 3000 cents',
    ]);
  });

  it('checks payables per bill against what is still owed, and every entry of the period at each target', () => {
    const bill = {
      id: 'bill_1',
      vendorId: 'ven_1',
      amountCents: 50_000,
      createdAt: '2026-03-02T09:00:00Z',
    } as unknown as Bill;
    const sent = {
      id: 'bp_1',
      billId: 'bill_1',
      vendorId: 'ven_1',
      amountCents: 20_000,
      status: 'PENDING',
      sentAt: '2026-03-03T09:00:00Z',
      completedAt: null,
      failureReason: null,
      // A check in the post: the bank is debited when the vendor cashes it, after the period.
      deliveryMethodType: 'CHECK',
      createdAt: '2026-03-03T09:00:00Z',
    } as unknown as BillPayment;
    const cancelled = {
      ...sent,
      id: 'bp_2',
      status: 'FAILED',
      failureReason: 'CANCELLED',
      sentAt: null,
    } as unknown as BillPayment;
    const links = { billId: 'bill_1', vendorId: 'ven_1' };
    const entries = [
      entry(
        'bill:bill_1',
        '2026-03-02',
        [
          [Accounts.BillExpenses, 50_000],
          [Accounts.AccountsPayable, -50_000],
        ],
        links,
      ),
      entry(
        'bill-payment-sent:bp_1',
        '2026-03-03',
        [
          [Accounts.AccountsPayable, 20_000],
          [Accounts.OutgoingPaymentsClearing, -20_000],
        ],
        { ...links, billPaymentId: 'bp_1' },
      ),
    ];
    const cert = closeCertificate(
      input({
        bills: [bill],
        billPayments: [sent, cancelled],
        entries,
        payables: [{ documentId: 'bill_1', openCents: 30_000 }],
        targets: [
          {
            target: 'tryton',
            statuses: new Map([
              ['bill:bill_1', { status: 'PUSHED', reason: null }],
              ['bill-payment-sent:bp_1', { status: 'FAILED', reason: 'closed period' }],
            ]),
          },
          { target: 'ledger-mirror', statuses: new Map() },
        ],
      }),
    );
    expect(cert.objects.map((o) => [o.kind, o.id, o.status, o.skipReason])).toEqual([
      ['bill', 'bill_1', 'BOOKED', null],
      ['billPayment', 'bp_1', 'BOOKED', null],
      ['billPayment', 'bp_2', 'SKIPPED', 'FAILED (CANCELLED): the bill is owed again'],
    ]);
    // 50000 - 20000 sent (the cancelled one does not count) = 30000 still owed, as the books say.
    expect(cert.payables).toEqual([
      { documentId: 'bill_1', booksCents: 30_000, serviceCents: 30_000, ok: true },
    ]);
    expect(cert.targets).toEqual([
      {
        target: 'tryton',
        entries: 2,
        pushed: 1,
        skipped: 0,
        notPushed: [{ key: 'bill-payment-sent:bp_1', status: 'FAILED', reason: 'closed period' }],
        ok: false,
      },
      {
        target: 'ledger-mirror',
        entries: 2,
        pushed: 0,
        skipped: 0,
        notPushed: [
          { key: 'bill:bill_1', status: 'NOT_INDEXED', reason: null },
          { key: 'bill-payment-sent:bp_1', status: 'NOT_INDEXED', reason: null },
        ],
        ok: false,
      },
    ]);
    expect(cert.problems).toEqual([
      'target tryton: 1 entries not pushed',
      'target ledger-mirror: 2 entries not pushed',
    ]);
    const text = certificateLines(cert);
    expect(text[0]).toBe('period close 2026-03-01 to 2026-03-31: FAILS (as of 2026-04-01T00:00:00Z)');
    expect(text).toContain('target tryton: 1 pushed, 0 skipped, 1 not pushed of 2');
    expect(text).toContain('  bill-payment-sent:bp_1: FAILED (closed period)');
  });

  it('books a deposit whole and each application once (as check-application, not external-payment), skips a returned deposit, and leaves reusable links out of receivables', () => {
    const application = (id: string, amountCents: number) => ({
      id,
      amountCents,
      paidAt: '2026-03-20',
      voided: false,
      externalReferenceId: null,
      serviceBankingTransferId: 'tr_1',
    });
    const deposit = {
      id: 'cd_1',
      status: 'PROCESSING',
      amountCents: 75_000,
      createdAt: '2026-03-18T12:00:00.000Z',
      applications: [application('ep_app', 60_000)],
    };
    const bounced = {
      id: 'cd_2',
      status: 'RETURNED',
      amountCents: 5_000,
      createdAt: '2026-03-18T12:00:00.000Z',
      applications: [application('ep_bounced', 5_000)],
    };
    // Booked by the previous release (its application debits Checks To Deposit): the deposit's own entry
    // holds only the rest of the check.
    const earlier = {
      id: 'cd_3',
      status: 'PROCESSING',
      amountCents: 10_000,
      createdAt: '2026-03-02T12:00:00.000Z',
      applications: [{ ...application('ep_old', 4_000), paidAt: '2026-03-03' }],
    };
    const link = {
      id: 'pl_1',
      reusable: false,
      requestedAmountCents: 60_000,
      completedAmountCents: 60_000,
      payments: [],
      externalPayments: [application('ep_app', 60_000)],
      debitMemos: [],
    };
    // The link the earlier deposit's application paid, invoiced in February.
    const old = {
      id: 'pl_old',
      reusable: false,
      requestedAmountCents: 4_000,
      completedAmountCents: 4_000,
      payments: [],
      externalPayments: [{ ...application('ep_old', 4_000), paidAt: '2026-03-03' }],
      debitMemos: [],
    };
    const donations = {
      id: 'pl_donate',
      reusable: true,
      requestedAmountCents: 1_000,
      completedAmountCents: 0,
      payments: [],
      externalPayments: [],
      debitMemos: [],
    };
    const cert = closeCertificate(
      input({
        links: [link, old, donations] as unknown as CloseInput['links'],
        checkDeposits: [deposit, bounced, earlier] as unknown as CloseInput['checkDeposits'],
        entries: [
          entry(
            'invoice:pl_old',
            '2026-02-20',
            [
              [Accounts.AccountsReceivable, 4_000],
              [Accounts.Revenue, -4_000],
            ],
            { paymentLinkId: 'pl_old' },
          ),
          entry(
            'invoice:pl_1',
            '2026-03-18',
            [
              [Accounts.AccountsReceivable, 60_000],
              [Accounts.Revenue, -60_000],
            ],
            { paymentLinkId: 'pl_1' },
          ),
          entry(
            'check-deposited:cd_1',
            '2026-03-18',
            [
              [Accounts.ChecksToDeposit, 75_000],
              [Accounts.UnappliedCash, -75_000],
            ],
            { checkDepositId: 'cd_1' },
          ),
          entry(
            'check-application:ep_app',
            '2026-03-20',
            [
              [Accounts.UnappliedCash, 60_000],
              [Accounts.AccountsReceivable, -60_000],
            ],
            { checkDepositId: 'cd_1', externalPaymentId: 'ep_app', paymentLinkId: 'pl_1' },
          ),
          entry(
            'check-application:ep_old',
            '2026-03-03',
            [
              [Accounts.ChecksToDeposit, 4_000],
              [Accounts.AccountsReceivable, -4_000],
            ],
            { checkDepositId: 'cd_3', externalPaymentId: 'ep_old', paymentLinkId: 'pl_old' },
          ),
          entry(
            'check-deposited:cd_3',
            '2026-03-02',
            [
              [Accounts.ChecksToDeposit, 6_000],
              [Accounts.UnappliedCash, -6_000],
            ],
            { checkDepositId: 'cd_3' },
          ),
        ],
        // A payment on the reusable link credits its receivable with nothing invoiced: not compared.
        receivables: [
          { documentId: 'pl_1', openCents: 0 },
          { documentId: 'pl_donate', openCents: -1_000 },
        ],
      }),
    );
    expect(cert.objects.map((o) => [o.kind, o.id, o.status, o.entryKey ?? o.skipReason])).toEqual([
      ['checkDeposit', 'cd_3', 'BOOKED', 'check-deposited:cd_3'],
      ['depositApplication', 'ep_old', 'BOOKED', 'check-application:ep_old'],
      ['checkDeposit', 'cd_1', 'BOOKED', 'check-deposited:cd_1'],
      ['checkDeposit', 'cd_2', 'SKIPPED', 'deposit RETURNED: its entries are reversed'],
      ['depositApplication', 'ep_app', 'BOOKED', 'check-application:ep_app'],
      ['depositApplication', 'ep_bounced', 'SKIPPED', 'deposit RETURNED: its applications are reversed'],
    ]);
    expect(cert.receivables).toEqual([
      { documentId: 'pl_1', booksCents: 0, serviceCents: 0, ok: true },
      { documentId: 'pl_old', booksCents: 0, serviceCents: 0, ok: true },
    ]);
    expect(cert.passes).toBe(true);
  });

  it('expects sale: for a payment that settles no invoice (a reusable link, no link), payment: otherwise', () => {
    const shop = { id: 'pl_shop', reusable: true, payments: [], externalPayments: [], debitMemos: [] };
    const onShop = payment('pay_shop', 'SUCCEEDED', 2_500, 0, [], 'pl_shop');
    const walkIn = payment('pay_walk', 'SUCCEEDED', 1_000, 0, [], null);
    const invoiced = payment('pay_inv', 'SUCCEEDED', 4_000, 0);
    const received = (key: string, amount: number, credit: string, links: EntryLinks) =>
      entry(
        key,
        '2026-03-10',
        [
          [Accounts.ProcessorClearing, amount],
          [credit, -amount],
        ],
        links,
      );
    const cert = closeCertificate(
      input({
        links: [{ ...shop, payments: [onShop] }] as unknown as CloseInput['links'],
        payments: [walkIn, invoiced],
        entries: [
          received('sale:pay_shop', 2_500, Accounts.Revenue, {
            paymentId: 'pay_shop',
            paymentLinkId: 'pl_shop',
          }),
          // Booked by an earlier release and not yet corrected: the sale is missing.
          received('payment:pay_walk', 1_000, Accounts.AccountsReceivable, { paymentId: 'pay_walk' }),
          received('payment:pay_inv', 4_000, Accounts.AccountsReceivable, { paymentId: 'pay_inv' }),
        ],
      }),
    );
    expect(cert.objects.map((o) => [o.id, o.status, o.expectedKey])).toEqual([
      ['pay_inv', 'BOOKED', 'payment:pay_inv'],
      ['pay_shop', 'BOOKED', 'sale:pay_shop'],
      ['pay_walk', 'MISSING', 'sale:pay_walk'],
    ]);
    // The walk-in sale booked against a receivable leaves the period's revenue short of the service's sales.
    expect(cert.problems).toEqual([
      'payment pay_walk (2026-03-10): MISSING: no live entry sale:pay_walk',
      'Revenue (net of discounts and write-offs) from 2026-03-01 to 2026-03-31: books 2500 cents, service 3500 cents: -1000 cents unexplained',
    ]);
    // A sale belongs to its payment (no orphan) and is money received.
    expect(cert.counts).toMatchObject({ orphans: 0 });
    expect(cert.flow.receivedCents).toBe(7_500);
  });

  it('lists every object not booked, and booked ones up to the bound; counts them all', () => {
    const payments = [1, 2, 3, 4].map((n) => payment(`pay_${n}`, 'SUCCEEDED', 1_000, 0));
    const entries = payments.slice(0, 3).map((p) =>
      entry(
        `payment:${p.id}`,
        '2026-03-10',
        [
          [Accounts.ProcessorClearing, 1_000],
          [Accounts.AccountsReceivable, -1_000],
        ],
        { paymentId: p.id },
      ),
    );
    const cert = closeCertificate(input({ payments, entries, maxListedBooked: 2 }));
    expect(cert.counts).toMatchObject({ objects: 4, BOOKED: 3, MISSING: 1 });
    expect(cert.objects.map((o) => [o.id, o.status])).toEqual([
      ['pay_1', 'BOOKED'],
      ['pay_2', 'BOOKED'],
      ['pay_4', 'MISSING'],
    ]);
    expect(cert.bookedNotListed).toBe(1);
    expect(certificateLines(cert)).toContain('  ... and 1 more booked objects (counted, not listed)');
  });

  it('escapes what it writes into the HTML page', () => {
    expect(escapeHtml(`<b>"a" & 'b'</b>`)).toBe('&lt;b&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/b&gt;');
    const cert = closeCertificate(input({}));
    const html = certificateHtml({ ...cert, problems: ['<script>alert(1)</script>'], passes: false });
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('the Schedule closes the calendar month before the run', () => {
    expect(monthBefore(Date.parse('2026-04-01T02:00:00Z'))).toEqual({ from: '2026-03-01', to: '2026-03-31' });
    expect(monthBefore(Date.parse('2026-03-15T00:00:00Z'))).toEqual({ from: '2026-02-01', to: '2026-02-28' });
    expect(monthBefore(Date.parse('2026-01-01T00:00:00Z'))).toEqual({ from: '2025-12-01', to: '2025-12-31' });
    // In the books' time zone: 1 March 05:00 UTC is still 28 February in Los Angeles, so the month just
    // ended there is January; in Tokyo it is 1 March already.
    const earlyUtc = Date.parse('2026-03-01T05:00:00Z');
    expect(monthBefore(earlyUtc, 'America/Los_Angeles')).toEqual({ from: '2026-01-01', to: '2026-01-31' });
    expect(monthBefore(earlyUtc, 'Asia/Tokyo')).toEqual({ from: '2026-02-01', to: '2026-02-28' });
    expect(monthBefore(Date.parse('2024-03-10T12:00:00Z'), 'UTC')).toEqual({
      from: '2024-02-01',
      to: '2024-02-29',
    });
  });

  it('fails naming a target whose own figures disagree or cannot be read; passes when they agree', () => {
    const figures = {
      asOf: period.to,
      balances: { ProcessorClearing: 0 },
      openInvoices: {},
      openBills: {},
    };
    const agreeing = closeCertificate(input({ targetFigures: [{ target: 'quickbooks', figures }] }));
    expect(agreeing.passes).toBe(true);
    expect(agreeing.targetFigures?.[0]).toMatchObject({ target: 'quickbooks', ok: true, asOf: period.to });
    const edited = closeCertificate(
      input({ targetFigures: [{ target: 'xero', figures: { ...figures, openInvoices: { pl_9: 500 } } }] }),
    );
    expect(edited.passes).toBe(false);
    expect(edited.problems).toEqual([
      `xero: invoice pl_9 open as of ${period.to}: ledger 0 cents, target 500 cents`,
    ]);
    const unread = closeCertificate(input({ targetFigures: [{ target: 'xero', error: 'HTTP 503' }] }));
    expect(unread.passes).toBe(false);
    expect(unread.problems).toEqual([
      `target xero: its figures as of ${period.to} could not be read: HTTP 503`,
    ]);
    expect(closeCertificate(input({})).targetFigures).toBeNull();
  });
});
