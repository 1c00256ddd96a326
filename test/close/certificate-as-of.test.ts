import type { Disbursement, Payment } from '@booksync/service-contract/schemas/index';
import { describe, expect, it } from 'vitest';
import { closeCertificate } from '../../src/close/certificate.js';
import { certificateHtml } from '../../src/close/certificate-html.js';
import { certificateLines } from '../../src/close/certificate-text.js';
import type { CloseInput } from '../../src/close/close-input.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import type { BookedEntry } from '../../src/ledger/entry.js';
import { bookedEntry, closeInput } from './close-fixtures.js';

// The balances of a closed month re-made after the next month's events: the service's figures as
// of the end of the period's last day in the books' time zone, from the dates its objects carry, against the
// books' entries of that day or before by economic date. Every figure is worked out by hand.

const zone = 'America/Los_Angeles';
const january = { from: '2026-01-01', to: '2026-01-31' };
const february = { from: '2026-02-01', to: '2026-02-28' };

const entry = bookedEntry;

/** A payment on no link (a sale of its own), created at `createdAt` (an instant). */
const sale = (
  pid: string,
  createdAt: string,
  amount: number,
  fee = 0,
  refunds: unknown[] = [],
  status = 'SUCCEEDED',
) =>
  ({
    id: pid,
    status,
    amountInCents: amount,
    platformFeeInCents: fee,
    paymentLinkId: null,
    createdAt: Date.parse(createdAt),
    refunds,
  }) as unknown as Payment;

const received = (pid: string, date: string, amount: number, extra: Partial<BookedEntry> = {}) =>
  entry(
    `sale:${pid}`,
    date,
    [
      [Accounts.ProcessorClearing, amount],
      [Accounts.Revenue, -amount],
    ],
    { paymentId: pid },
    extra,
  );

function certify(period: { from: string; to: string }, over: Partial<CloseInput>) {
  return closeCertificate(closeInput({ period, asOf: '2026-03-02T18:00:00Z', timeZone: zone }, over));
}

const figures = (cert: ReturnType<typeof certify>) =>
  cert.balances.map((b) => [b.check, b.asOf, b.booksCents, b.serviceCents, b.ok]);

describe('the certificate balances as of the end of the period', () => {
  it("counts a payment made on 31 January at 23:30 in Los Angeles (1 February in UTC) in January's Processor Clearing, one made 1 February at 00:30 not", () => {
    const late = sale('pay_late', '2026-02-01T07:30:00Z', 100_00); // 23:30 PST on 31 January
    const next = sale('pay_next', '2026-02-01T08:30:00Z', 50_00); // 00:30 PST on 1 February
    const entries = [received('pay_late', '2026-01-31', 100_00), received('pay_next', '2026-02-01', 50_00)];
    const cert = certify(january, { payments: [late, next], entries });
    expect(figures(cert)).toEqual([
      ['ProcessorClearing', '2026-01-31', 100_00, 100_00, true],
      ['PayoutsInTransit', '2026-01-31', 0, 0, true],
    ]);
    expect(cert.objects.map((o) => [o.id, o.date, o.status])).toEqual([['pay_late', '2026-01-31', 'BOOKED']]);
    expect(cert.problems).toEqual([]);
    expect(figures(certify(february, { payments: [late, next], entries }))[0]).toEqual([
      'ProcessorClearing',
      '2026-02-28',
      150_00,
      150_00,
      true,
    ]);
  });

  it("a refund made in February leaves January's figure as it was; February's takes it", () => {
    const refund = { id: 're_1', amountCents: 20_00, refundDate: '2026-02-05T17:00:00Z', voided: false };
    const pay = sale('pay_1', '2026-01-10T17:00:00Z', 100_00, 320, [refund], 'REFUNDED');
    const links = { paymentId: 'pay_1' };
    const entries = [
      received('pay_1', '2026-01-10', 100_00),
      entry(
        'payment-fee:pay_1',
        '2026-01-10',
        [
          [Accounts.ProcessingFees, 320],
          [Accounts.ProcessorClearing, -320],
        ],
        links,
      ),
      entry(
        'refund:re_1',
        '2026-02-05',
        [
          [Accounts.Refunds, 20_00],
          [Accounts.ProcessorClearing, -20_00],
        ],
        { ...links, refundId: 're_1' },
      ),
    ];
    // January: 10000 - 320; the refund is February's: 10000 - 320 - 2000.
    expect(figures(certify(january, { payments: [pay], entries }))[0]).toEqual([
      'ProcessorClearing',
      '2026-01-31',
      96_80,
      96_80,
      true,
    ]);
    expect(figures(certify(february, { payments: [pay], entries }))[0]).toEqual([
      'ProcessorClearing',
      '2026-02-28',
      76_80,
      76_80,
      true,
    ]);
  });

  it('a payout created in January and paid in February is in transit as of the end of January', () => {
    const pay = sale('pay_1', '2026-01-20T17:00:00Z', 100_00);
    const payout = {
      id: 'dis_1',
      status: 'SUCCEEDED',
      amountInCents: 100_00,
      paymentIds: ['pay_1'],
      createdAt: '2026-01-30',
      paidAt: '2026-02-02',
    } as unknown as Disbursement;
    const links = { disbursementId: 'dis_1' };
    const entries = [
      received('pay_1', '2026-01-20', 100_00),
      entry(
        'disbursement-pending:dis_1',
        '2026-01-30',
        [
          [Accounts.PayoutsInTransit, 100_00],
          [Accounts.ProcessorClearing, -100_00],
        ],
        links,
      ),
      entry(
        'disbursement-paid:dis_1',
        '2026-02-02',
        [
          [Accounts.OperatingBank, 100_00],
          [Accounts.PayoutsInTransit, -100_00],
        ],
        links,
      ),
    ];
    const input = { payments: [pay], disbursements: [payout], entries };
    expect(figures(certify(january, input))).toEqual([
      ['ProcessorClearing', '2026-01-31', 0, 0, true],
      ['PayoutsInTransit', '2026-01-31', 100_00, 100_00, true],
    ]);
    expect(figures(certify(february, input))[1]).toEqual(['PayoutsInTransit', '2026-02-28', 0, 0, true]);
  });

  it('a January payment booked on 1 February after the close (its economic date January) still balances January', () => {
    const janPay = sale('pay_jan', '2026-01-31T18:00:00Z', 50_00);
    const febPay = sale('pay_feb', '2026-02-03T18:00:00Z', 30_00);
    const entries = [
      received('pay_jan', '2026-02-01', 50_00, { economicDate: '2026-01-31' }),
      received('pay_feb', '2026-02-03', 30_00),
    ];
    const jan = certify(january, { payments: [janPay, febPay], entries });
    expect(figures(jan)[0]).toEqual(['ProcessorClearing', '2026-01-31', 50_00, 50_00, true]);
    expect(jan.problems).toEqual([]);
    expect(figures(certify(february, { payments: [janPay, febPay], entries }))[0]).toEqual([
      'ProcessorClearing',
      '2026-02-28',
      80_00,
      80_00,
      true,
    ]);
  });

  it('a failure has no time at the service: dated the day the books reversed the entry, else taken as by the end', () => {
    // Made 10 January, returned (ACH) in February: the books reversed it on 3 February.
    const returned = sale('pay_ret', '2026-01-10T18:00:00Z', 40_00, 0, [], 'FAILED');
    // Made 12 January, FAILED, and the books still hold it live: the check names the difference.
    const unheard = sale('pay_unheard', '2026-01-12T18:00:00Z', 7_00, 0, [], 'FAILED');
    // A payout created 20 January that failed: reversed by the books on 25 January.
    const payout = {
      id: 'dis_f',
      status: 'FAILED',
      amountInCents: 10_00,
      paymentIds: [],
      createdAt: '2026-01-20',
      paidAt: null,
    } as unknown as Disbursement;
    const pending: [string, number][] = [
      [Accounts.PayoutsInTransit, 10_00],
      [Accounts.ProcessorClearing, -10_00],
    ];
    const entries = [
      received('pay_ret', '2026-01-10', 40_00, { reversedBy: 'reversal:sale:pay_ret' }),
      entry(
        'reversal:sale:pay_ret',
        '2026-02-03',
        [
          [Accounts.ProcessorClearing, -40_00],
          [Accounts.Revenue, 40_00],
        ],
        { paymentId: 'pay_ret' },
        { reverses: 'sale:pay_ret' },
      ),
      received('pay_unheard', '2026-01-12', 7_00),
      entry(
        'disbursement-pending:dis_f',
        '2026-01-20',
        pending,
        { disbursementId: 'dis_f' },
        {
          reversedBy: 'reversal:disbursement-pending:dis_f',
        },
      ),
      entry(
        'reversal:disbursement-pending:dis_f',
        '2026-01-25',
        pending.map(([a, c]) => [a, -c]),
        { disbursementId: 'dis_f' },
        { reverses: 'disbursement-pending:dis_f' },
      ),
    ];
    const input = { payments: [returned, unheard], disbursements: [payout], entries };
    // January: the return is February's (4000 held); the payout failed within January (nothing disbursed).
    const jan = certify(january, input);
    expect(figures(jan)).toEqual([
      ['ProcessorClearing', '2026-01-31', 47_00, 40_00, false],
      ['PayoutsInTransit', '2026-01-31', 0, 0, true],
    ]);
    expect(jan.problems).toContain(
      'Processor Clearing as of 2026-01-31: books 4700 cents, service 4000 cents',
    );
    expect(jan.balances[0]?.basis).toContain('counts until the day the books reversed its entry');
    // As of 19 January the payout did not exist yet, and both payments were still money held.
    const mid = certify({ from: '2026-01-01', to: '2026-01-19' }, input);
    expect(figures(mid)[0]).toEqual(['ProcessorClearing', '2026-01-19', 47_00, 40_00, false]);
    expect(figures(certify({ from: '2026-01-01', to: '2026-01-22' }, input))[1]).toEqual([
      'PayoutsInTransit',
      '2026-01-22',
      10_00,
      10_00,
      true,
    ]);
    // February: the return is in (0 held at the service); the books still hold the unheard failure.
    expect(figures(certify(february, input))[0]).toEqual(['ProcessorClearing', '2026-02-28', 7_00, 0, false]);
  });

  it('a disputed card payment (FAILED, a chargeback): its money goes back on the reversal day, the processor keeps the card fee', () => {
    // 100.00 paid by card on 10 January, the fee of 3.20 split: 1.00 absorbed, 2.20 paid by the payer
    // (102.20 charged). Disputed in February: the books reversed the sale and the surcharge on 3 February.
    const disputed = {
      ...sale('pay_cb', '2026-01-10T18:00:00Z', 100_00, 1_00, [], 'FAILED'),
      chargedAmountInCents: 102_20,
      paymentMethod: { type: 'Card' },
    } as Payment;
    const surcharge: [string, number][] = [
      [Accounts.ProcessorClearing, 2_20],
      [Accounts.SurchargeIncome, -2_20],
    ];
    const fee = (amount: number): [string, number][] => [
      [Accounts.ProcessingFees, amount],
      [Accounts.ProcessorClearing, -amount],
    ];
    const links = { paymentId: 'pay_cb' };
    const entries = [
      received('pay_cb', '2026-01-10', 100_00, { reversedBy: 'reversal:sale:pay_cb' }),
      entry('payment-fee:pay_cb', '2026-01-10', fee(1_00), links),
      entry('payment-surcharge:pay_cb', '2026-01-10', surcharge, links, {
        reversedBy: 'reversal:payment-surcharge:pay_cb',
      }),
      entry('surcharge-fee:pay_cb', '2026-01-10', fee(2_20), links),
      entry(
        'reversal:sale:pay_cb',
        '2026-02-03',
        [
          [Accounts.ProcessorClearing, -100_00],
          [Accounts.Revenue, 100_00],
        ],
        links,
        { reverses: 'sale:pay_cb' },
      ),
      entry(
        'reversal:payment-surcharge:pay_cb',
        '2026-02-03',
        surcharge.map(([a, c]) => [a, -c]),
        links,
        { reverses: 'payment-surcharge:pay_cb' },
      ),
    ];
    const input = { payments: [disputed], entries };
    // January: not disputed yet (the live fees do not hide the reversal's day): 100.00 less the absorbed 1.00.
    expect(figures(certify(january, input))[0]).toEqual([
      'ProcessorClearing',
      '2026-01-31',
      99_00,
      99_00,
      true,
    ]);
    // February: the money went back, the whole fee of 3.20 stays taken.
    expect(figures(certify(february, input))[0]).toEqual([
      'ProcessorClearing',
      '2026-02-28',
      -3_20,
      -3_20,
      true,
    ]);
  });

  it('says in its notes, text and page which dates each figure is compared by', () => {
    const cert = certify(january, {});
    expect(cert.timeZone).toBe(zone);
    expect(cert.notes.join('\n')).not.toContain('the service reports its current state only');
    expect(cert.notes).toEqual(
      expect.arrayContaining([
        expect.stringContaining(
          `Processor Clearing and Payouts In Transit are compared as of the end of 2026-01-31 (${zone})`,
        ),
        expect.stringContaining(
          'Receivables and payables are compared per document as of the run (2026-03-02T18:00:00Z)',
        ),
        expect.stringContaining('The spec cannot date a failure'),
      ]),
    );
    const lines = certificateLines(cert);
    expect(lines).toContain(`balances as of the end of 2026-01-31 (${zone})`);
    expect(lines).toContainEqual(
      expect.stringMatching(/^ {2}Payouts In Transit: as of the end of 2026-01-31 /),
    );
    expect(lines).toContain('receivables per invoice as of the run: 0 of 0 agree');
    const html = certificateHtml(cert);
    expect(html).toContain(`<p id="balances-as-of">As of the end of 2026-01-31 (${zone})`);
    expect(html).toContain('<h2>Receivables per invoice, as of the run</h2>');
    expect(html).toContain(`<td>${cert.balances[0]!.basis.replaceAll("'", '&#39;')}</td>`);
  });
});
