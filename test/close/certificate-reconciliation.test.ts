import type { Bill, BillPayment, Disbursement, Payment } from '@booksync/service-contract/schemas/index';
import { describe, expect, it } from 'vitest';
import { closeCertificate } from '../../src/close/certificate.js';
import { certificateHtml } from '../../src/close/certificate-html.js';
import { certificateLines } from '../../src/close/certificate-text.js';
import type { CloseInput } from '../../src/close/close-input.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import type { BookedEntry } from '../../src/ledger/entry.js';
import { bookedEntry, closeInput, dr } from './close-fixtures.js';

// The certificate as a reconciliation: receivables and payables as of the period's end from the service's
// records' own dates, the Operating Bank, revenue and fees of the period against the service's records, a
// Processor Clearing below zero named, and what it proves and cannot. Every figure is worked out by hand.

const january = { from: '2026-01-01', to: '2026-01-31' };

const payment = (pid: string, day: string, amount: number, fee: number, over: Partial<Payment> = {}) =>
  ({
    id: pid,
    status: 'SUCCEEDED',
    fees: fee > 0 ? [{ type: 'CREDIT_CARD_FEE', amountInCents: fee }] : [],
    amountInCents: amount,
    chargedAmountInCents: amount,
    platformFeeInCents: fee,
    paymentLinkId: null,
    paymentMethod: { type: 'Card' },
    refunds: [],
    createdAt: Date.parse(`${day}T12:00:00Z`),
    ...over,
  }) as unknown as Payment;

/** An invoice of 100.00 made 10 January, paid by card on 3 February (fee 3.20). */
function invoicePaidInFebruary() {
  const pay = payment('pay_feb', '2026-02-03', 100_00, 320, { paymentLinkId: 'pl_1' });
  const link = {
    id: 'pl_1',
    reusable: false,
    requestedAmountCents: 100_00,
    debitMemoAmountCents: 0,
    completedAmountCents: 100_00,
    payments: [pay],
    externalPayments: [],
    debitMemos: [],
  } as unknown as CloseInput['links'][number];
  const links = { paymentLinkId: 'pl_1' };
  const entries = [
    bookedEntry(
      'invoice:pl_1',
      '2026-01-10',
      dr(Accounts.AccountsReceivable, Accounts.Revenue, 100_00),
      links,
    ),
    bookedEntry(
      'payment:pay_feb',
      '2026-02-03',
      dr(Accounts.ProcessorClearing, Accounts.AccountsReceivable, 100_00),
      {
        ...links,
        paymentId: 'pay_feb',
      },
    ),
    bookedEntry(
      'payment-fee:pay_feb',
      '2026-02-03',
      dr(Accounts.ProcessingFees, Accounts.ProcessorClearing, 320),
      {
        ...links,
        paymentId: 'pay_feb',
      },
    ),
  ];
  return { link, pay, entries };
}

function certify(over: Partial<CloseInput>, period = january) {
  return closeCertificate(closeInput({ period, asOf: '2026-03-02T18:00:00Z' }, over));
}

describe('the certificate as a reconciliation', () => {
  it('states what it proves and what it cannot, in its JSON, its text and its page', () => {
    const cert = certify({});
    expect(cert.proves?.length).toBeGreaterThan(3);
    expect(cert.cannotProve?.length).toBeGreaterThan(3);
    expect(cert.cannotProve?.join(' ')).toContain('no creation date');
    expect(cert.cannotProve?.join(' ')).toContain('bank statement');
    const text = certificateLines(cert);
    expect(text).toContain('this certificate proves');
    expect(text).toContain('this certificate cannot prove');
    expect(text).toContain(`  - ${cert.proves![0]}`);
    const html = certificateHtml(cert);
    expect(html).toContain('<h2>What this certificate proves</h2>');
    expect(html).toContain('<ul id="cannot-prove">');
    // The verdict line stays first and the last line still says it.
    expect(text[0]).toBe('period close 2026-01-01 to 2026-01-31: PASSES (as of 2026-03-02T18:00:00Z)');
    expect(text.at(-1)).toBe('certificate: passes');
  });

  it("counts an invoice paid on 3 February as owed at January's end, from the payment's own date", () => {
    const { link, entries } = invoicePaidInFebruary();
    // As of the run the link is paid (0 owed, books 0): the check of the run cannot tell January's end.
    const cert = certify({ links: [link], entries, receivables: [{ documentId: 'pl_1', openCents: 0 }] });
    expect(cert.receivables).toEqual([{ documentId: 'pl_1', booksCents: 0, serviceCents: 0, ok: true }]);
    expect(cert.documentsAtEnd?.asOf).toBe('2026-01-31');
    expect(cert.documentsAtEnd?.receivables).toEqual([
      { documentId: 'pl_1', booksCents: 100_00, serviceCents: 100_00, ok: true },
    ]);
    expect(cert.passes).toBe(true);

    // The same payment booked on 31 January (a wrong date): January's end no longer agrees, and it says so.
    const early = entries.map((e) => (e.links.paymentId ? { ...e, date: '2026-01-31' } : e));
    const wrong = certify({
      links: [link],
      entries: early,
      receivables: [{ documentId: 'pl_1', openCents: 0 }],
    });
    expect(wrong.documentsAtEnd?.receivables).toEqual([
      { documentId: 'pl_1', booksCents: 0, serviceCents: 100_00, ok: false },
    ]);
    expect(wrong.problems).toContain('receivable of pl_1 as of 2026-01-31: books 0, service 10000');
    expect(certificateLines(wrong)).toContain(
      'receivables per invoice as of the end of 2026-01-31: 0 of 1 agree',
    );
  });

  it("counts a check applied in January and returned in February as paying the invoice at January's end, though the service lists it no more", () => {
    // Invoice of 400.00 paid on 20 January by a deposited check's application; the check returned on
    // 5 February: the service voids the application, and the link lists it no more (live records only).
    const link = {
      id: 'pl_chk',
      reusable: false,
      requestedAmountCents: 400_00,
      debitMemoAmountCents: 0,
      completedAmountCents: 0,
      payments: [],
      externalPayments: [],
      debitMemos: [],
    } as unknown as CloseInput['links'][number];
    const l = { paymentLinkId: 'pl_chk' };
    const applied = bookedEntry(
      'check-application:ep_1',
      '2026-01-20',
      dr(Accounts.UnappliedCash, Accounts.AccountsReceivable, 400_00),
      {
        ...l,
        externalPaymentId: 'ep_1',
        checkDepositId: 'cd_1',
      },
    );
    const reversal = {
      ...bookedEntry(
        'reversal:check-application:ep_1',
        '2026-02-05',
        dr(Accounts.AccountsReceivable, Accounts.UnappliedCash, 400_00),
        {
          ...l,
          externalPaymentId: 'ep_1',
          checkDepositId: 'cd_1',
        },
      ),
      reverses: 'check-application:ep_1',
    };
    const invoice = bookedEntry(
      'invoice:pl_chk',
      '2026-01-15',
      dr(Accounts.AccountsReceivable, Accounts.Revenue, 400_00),
      l,
    );
    const entries = [invoice, { ...applied, reversedBy: reversal.key }, reversal];
    const jan = certify({ links: [link], entries });
    expect(jan.documentsAtEnd?.receivables).toEqual([
      { documentId: 'pl_chk', booksCents: 0, serviceCents: 0, ok: true },
    ]);
    // February: returned, owed again.
    const feb = certify({ links: [link], entries }, { from: '2026-02-01', to: '2026-02-28' });
    expect(feb.documentsAtEnd?.receivables).toEqual([
      { documentId: 'pl_chk', booksCents: 400_00, serviceCents: 400_00, ok: true },
    ]);
  });

  it("counts a bill paid on 2 February as owed at January's end, by the bill payment's sentAt", () => {
    const bill = {
      id: 'bill_1',
      vendorId: 'ven_1',
      amountCents: 500_00,
      createdAt: '2026-01-20T09:00:00Z',
    } as Bill;
    const paid = {
      id: 'bp_1',
      billId: 'bill_1',
      vendorId: 'ven_1',
      amountCents: 500_00,
      status: 'SUCCEEDED',
      deliveryMethodType: 'ACH',
      sentAt: '2026-02-02T09:00:00Z',
      completedAt: '2026-02-04T09:00:00Z',
      failureReason: null,
      createdAt: '2026-02-02T09:00:00Z',
    } as unknown as BillPayment;
    const links = { billId: 'bill_1', vendorId: 'ven_1' };
    const bp = { ...links, billPaymentId: 'bp_1' };
    const entries = [
      bookedEntry(
        'bill:bill_1',
        '2026-01-20',
        dr(Accounts.BillExpenses, Accounts.AccountsPayable, 500_00),
        links,
      ),
      bookedEntry(
        'bill-payment-sent:bp_1',
        '2026-02-02',
        dr(Accounts.AccountsPayable, Accounts.OutgoingPaymentsClearing, 500_00),
        bp,
      ),
      bookedEntry(
        'bill-payment-paid:bp_1',
        '2026-02-02',
        dr(Accounts.OutgoingPaymentsClearing, Accounts.OperatingBank, 500_00),
        bp,
      ),
    ];
    const cert = certify({ bills: [bill], billPayments: [paid], entries });
    expect(cert.documentsAtEnd?.payables).toEqual([
      { documentId: 'bill_1', booksCents: 500_00, serviceCents: 500_00, ok: true },
    ]);
    expect(cert.passes).toBe(true);
    // The books missing the bill: owed 500.00 at January's end by the service, 0 by the books.
    const missing = certify({ bills: [bill], billPayments: [paid], entries: entries.slice(1) });
    expect(missing.problems).toContain('payable of bill bill_1 as of 2026-01-31: books 0, service 50000');
  });

  it("compares the Operating Bank's payouts received and bill payments paid in the period with the service's, and names a difference", () => {
    const payout = {
      id: 'dis_1',
      status: 'SUCCEEDED',
      amountInCents: 300_00,
      createdAt: '2026-01-12',
      paidAt: '2026-01-14',
      paymentIds: [],
    } as unknown as Disbursement;
    const d = { disbursementId: 'dis_1' };
    const pending = bookedEntry(
      'disbursement-pending:dis_1',
      '2026-01-12',
      dr(Accounts.PayoutsInTransit, Accounts.ProcessorClearing, 300_00),
      d,
    );
    const paid = bookedEntry(
      'disbursement-paid:dis_1',
      '2026-01-14',
      dr(Accounts.OperatingBank, Accounts.PayoutsInTransit, 300_00),
      d,
    );
    const slip = bookedEntry(
      'deposit-slip:1',
      '2026-01-20',
      dr(Accounts.OperatingBank, Accounts.ChecksToDeposit, 40_00),
      {},
    );
    const sale = payment('pay_1', '2026-01-05', 300_00, 0);
    const saleEntry = bookedEntry(
      'sale:pay_1',
      '2026-01-05',
      dr(Accounts.ProcessorClearing, Accounts.Revenue, 300_00),
      { paymentId: 'pay_1' },
    );
    const cert = certify({
      payments: [sale],
      disbursements: [payout],
      entries: [saleEntry, pending, paid, slip],
    });
    const bank = cert.periodFigures?.find((f) => f.check === 'OperatingBank');
    expect(bank).toMatchObject({
      booksCents: 300_00,
      serviceCents: 300_00,
      differenceCents: 0,
      ok: true,
      otherBooksCents: 40_00,
    });
    expect(cert.passes).toBe(true);

    // The payout's arrival not booked: the bank is short of what the service paid out.
    const short = certify({ payments: [sale], disbursements: [payout], entries: [saleEntry, pending, slip] });
    expect(short.periodFigures?.find((f) => f.check === 'OperatingBank')).toMatchObject({
      booksCents: 0,
      serviceCents: 300_00,
      differenceCents: -300_00,
      ok: false,
    });
    expect(short.problems).toContain(
      'Operating Bank (payouts and bill payments) from 2026-01-01 to 2026-01-31: books 0 cents, service 30000 cents: -30000 cents unexplained',
    );
  });

  it('takes a FAILED ACH bill payment from the bank in the month it was sent and gives it back in the month the books reversed it', () => {
    const bill = {
      id: 'bill_2',
      vendorId: 'ven_1',
      amountCents: 80_00,
      createdAt: '2026-01-05T09:00:00Z',
    } as Bill;
    const failed = {
      id: 'bp_2',
      billId: 'bill_2',
      vendorId: 'ven_1',
      amountCents: 80_00,
      status: 'FAILED',
      deliveryMethodType: 'ACH',
      sentAt: '2026-01-25T09:00:00Z',
      completedAt: null,
      failureReason: 'R01',
      createdAt: '2026-01-25T09:00:00Z',
    } as unknown as BillPayment;
    const links = { billId: 'bill_2', vendorId: 'ven_1', billPaymentId: 'bp_2' };
    const reversed = (e: BookedEntry, day: string): [BookedEntry, BookedEntry] => {
      const back = {
        ...bookedEntry(
          `reversal:${e.key}`,
          day,
          e.lines.map((l): [string, number] => [l.account, -l.amountCents]),
          links,
        ),
        reverses: e.key,
      };
      return [{ ...e, reversedBy: back.key }, back];
    };
    const entries = [
      bookedEntry(
        'bill:bill_2',
        '2026-01-05',
        dr(Accounts.BillExpenses, Accounts.AccountsPayable, 80_00),
        links,
      ),
      ...reversed(
        bookedEntry(
          'bill-payment-sent:bp_2',
          '2026-01-25',
          dr(Accounts.AccountsPayable, Accounts.OutgoingPaymentsClearing, 80_00),
          links,
        ),
        '2026-02-03',
      ),
      ...reversed(
        bookedEntry(
          'bill-payment-paid:bp_2',
          '2026-01-25',
          dr(Accounts.OutgoingPaymentsClearing, Accounts.OperatingBank, 80_00),
          links,
        ),
        '2026-02-03',
      ),
    ];
    const bank = (c: ReturnType<typeof certify>) => c.periodFigures?.find((f) => f.check === 'OperatingBank');
    // As of the run the bill is owed again, in the books as at the service.
    const payables = [{ documentId: 'bill_2', openCents: 80_00 }];
    const jan = certify({ bills: [bill], billPayments: [failed], entries, payables });
    expect(bank(jan)).toMatchObject({ booksCents: -80_00, serviceCents: -80_00, ok: true });
    // Paid at January's end (sent, its return not yet heard of): nothing owed then.
    expect(jan.documentsAtEnd?.payables).toEqual([
      { documentId: 'bill_2', booksCents: 0, serviceCents: 0, ok: true },
    ]);
    expect(jan.passes).toBe(true);
    const feb = certify(
      { bills: [bill], billPayments: [failed], entries },
      { from: '2026-02-01', to: '2026-02-28' },
    );
    expect(bank(feb)).toMatchObject({ booksCents: 80_00, serviceCents: 80_00, ok: true });
    expect(feb.documentsAtEnd?.payables).toEqual([
      { documentId: 'bill_2', booksCents: 80_00, serviceCents: 80_00, ok: true },
    ]);
  });

  it("compares revenue with the period's links and sales, and fees with the payments' fee fields, naming a difference", () => {
    const { link, pay, entries } = invoicePaidInFebruary();
    // A sale of 25.00 on 20 January with a fee of 1.05 (the fee as the service's fees[] gives it).
    const sale = payment('pay_sale', '2026-01-20', 25_00, 105);
    const s = { paymentId: 'pay_sale' };
    const saleEntries = [
      bookedEntry('sale:pay_sale', '2026-01-20', dr(Accounts.ProcessorClearing, Accounts.Revenue, 25_00), s),
      bookedEntry(
        'payment-fee:pay_sale',
        '2026-01-20',
        dr(Accounts.ProcessingFees, Accounts.ProcessorClearing, 105),
        s,
      ),
    ];
    const all = [...entries, ...saleEntries];
    const jan = certify({ links: [link], payments: [sale], entries: all });
    const figure = (c: typeof jan, check: string) => c.periodFigures?.find((f) => f.check === check);
    // January: the invoice's 100.00 (dated by the books: the spec gives a link no creation date) and the sale.
    expect(figure(jan, 'Revenue')).toMatchObject({ booksCents: 125_00, serviceCents: 125_00, ok: true });
    // January's fee is the sale's; the invoice's payment and its fee are February's.
    expect(figure(jan, 'Fees')).toMatchObject({ booksCents: 105, serviceCents: 105, ok: true });
    const feb = certify(
      { links: [link], payments: [sale], entries: all },
      { from: '2026-02-01', to: '2026-02-28' },
    );
    expect(figure(feb, 'Revenue')).toMatchObject({ booksCents: 0, serviceCents: 0, ok: true });
    expect(figure(feb, 'Fees')).toMatchObject({
      booksCents: 320,
      serviceCents: pay.fees[0]!.amountInCents,
      ok: true,
    });

    // The sale's fee not booked: fees are short; a link lowered to 80.00 in February (an adjustment the
    // service keeps no history of) is explained in February, and January's invoice of 100.00 stays.
    const lowered = { ...link, requestedAmountCents: 80_00 };
    const adjustment = bookedEntry(
      'invoice-adjustment:pl_1:1',
      '2026-02-10',
      [
        [Accounts.AccountsReceivable, -20_00],
        [Accounts.DiscountsAndWriteOffs, 20_00],
      ],
      { paymentLinkId: 'pl_1' },
    );
    const noFee = [...entries, saleEntries[0]!, adjustment];
    const jan2 = certify({ links: [lowered], payments: [sale], entries: noFee });
    expect(figure(jan2, 'Fees')).toMatchObject({
      booksCents: 0,
      serviceCents: 105,
      differenceCents: -105,
      ok: false,
    });
    expect(jan2.problems).toContain(
      'Processing fees from 2026-01-01 to 2026-01-31: books 0 cents, service 105 cents: -105 cents unexplained',
    );
    expect(figure(jan2, 'Revenue')).toMatchObject({
      booksCents: 125_00,
      serviceCents: 105_00,
      explainedCents: 20_00,
      differenceCents: 0,
      ok: true,
    });
    const feb2 = certify(
      { links: [lowered], payments: [sale], entries: noFee },
      { from: '2026-02-01', to: '2026-02-28' },
    );
    expect(figure(feb2, 'Revenue')).toMatchObject({
      booksCents: -20_00,
      serviceCents: 0,
      explainedCents: -20_00,
      ok: true,
    });
  });

  it('compares the movements from the day the books open (a backfill): what settled before is in the opening entry', () => {
    // A sale on 5 January and its payout on 7 January, both before the books opened on 10 January: the
    // opening entry carries what they left, no entry of their own books them, and the period's figures
    // start on the 10th.
    const sale = payment('pay_old', '2026-01-05', 50_00, 175);
    const payout = {
      id: 'dis_old',
      status: 'SUCCEEDED',
      amountInCents: 48_25,
      createdAt: '2026-01-06',
      paidAt: '2026-01-07',
      paymentIds: ['pay_old'],
    } as unknown as Disbursement;
    const cert = certify({ payments: [sale], disbursements: [payout], opensOn: '2026-01-10' });
    expect(cert.periodFigures?.map((f) => [f.check, f.from, f.booksCents, f.serviceCents, f.ok])).toEqual([
      ['OperatingBank', '2026-01-10', 0, 0, true],
      ['Revenue', '2026-01-10', 0, 0, true],
      ['Fees', '2026-01-10', 0, 0, true],
    ]);
    expect(cert.passes).toBe(true);
    // Books opening after the period: nothing of it to compare.
    const later = certify({ payments: [sale], disbursements: [payout], opensOn: '2026-02-10' });
    expect(later.periodFigures?.every((f) => f.serviceCents === 0 && f.ok)).toBe(true);
  });

  it('names a Processor Clearing below zero after a refund that follows the payout: a warning, the books agreeing with the service', () => {
    const refund = { id: 're_1', amountCents: 30_00, refundDate: '2026-01-20T10:00:00Z', voided: false };
    const sale = payment('pay_1', '2026-01-05', 100_00, 0, { status: 'REFUNDED', refunds: [refund] });
    const payout = {
      id: 'dis_1',
      status: 'SUCCEEDED',
      amountInCents: 100_00,
      createdAt: '2026-01-06',
      paidAt: '2026-01-07',
      paymentIds: ['pay_1'],
    } as unknown as Disbursement;
    const p = { paymentId: 'pay_1' };
    const d = { disbursementId: 'dis_1' };
    const entries = [
      bookedEntry('sale:pay_1', '2026-01-05', dr(Accounts.ProcessorClearing, Accounts.Revenue, 100_00), p),
      bookedEntry(
        'disbursement-pending:dis_1',
        '2026-01-06',
        dr(Accounts.PayoutsInTransit, Accounts.ProcessorClearing, 100_00),
        d,
      ),
      bookedEntry(
        'disbursement-paid:dis_1',
        '2026-01-07',
        dr(Accounts.OperatingBank, Accounts.PayoutsInTransit, 100_00),
        d,
      ),
      bookedEntry('refund:re_1', '2026-01-20', dr(Accounts.Refunds, Accounts.ProcessorClearing, 30_00), {
        ...p,
        refundId: 're_1',
      }),
    ];
    const cert = certify({ payments: [sale], disbursements: [payout], entries });
    expect(cert.balances[0]).toMatchObject({
      check: 'ProcessorClearing',
      booksCents: -30_00,
      serviceCents: -30_00,
      ok: true,
    });
    expect(cert.passes).toBe(true);
    expect(cert.findings).toHaveLength(1);
    expect(cert.findings![0]).toContain('Processor Clearing is below zero as of the end of 2026-01-31');
    expect(cert.findings![0]).toContain('owes the processor 3000 cents');
    expect(cert.findings![0]).toContain('not a failure');
    expect(certificateLines(cert)).toContain('findings (named, not failing)');
    expect(certificateHtml(cert)).toContain('<ul id="findings">');
    // Before the refund the clearing account is at zero: nothing to name.
    expect(
      certify(
        { payments: [sale], disbursements: [payout], entries },
        { from: '2026-01-01', to: '2026-01-19' },
      ).findings,
    ).toEqual([]);
  });
});
