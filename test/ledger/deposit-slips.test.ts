import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import {
  bookDepositSlip,
  DepositSlipRefusedError,
  paymentsToDeposit,
} from '../../src/ledger/deposit-slips.js';
import type { LedgerEntryInput } from '../../src/ledger/entry.js';
import { depositSlipEntry } from '../../src/ledger/mapping/deposit-slip.js';
import { ledgerStores, type TestLedger } from './ledger-stores.js';

// Deposit slips on both stores: an external payment booked Dr Checks To Deposit leaves that account when the
// business says which slip took it to the bank, and only then; every slip the books cannot take is refused
// with its reason, and nothing is written.

function externalPayment(
  link: string,
  id: string,
  cents: number,
  date: string,
  account: string = Accounts.ChecksToDeposit,
): LedgerEntryInput {
  return {
    key: `external-payment:${id}`,
    date,
    description: `External payment ${id} on payment link ${link}`,
    lines: [
      { account: account as typeof Accounts.ChecksToDeposit, amountCents: cents },
      { account: Accounts.AccountsReceivable, amountCents: -cents },
    ],
    links: { paymentLinkId: link, externalPaymentId: id },
  };
}

async function refusal(promise: Promise<unknown>): Promise<readonly string[]> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DepositSlipRefusedError);
  return (error as DepositSlipRefusedError).reasons;
}

describe('the deposit slip entry', () => {
  it('is Dr Operating Bank the total / Cr Checks To Deposit each payment, naming its entry', () => {
    const entry = depositSlipEntry({ reference: 'SLIP-7', date: '2026-03-05', payments: [] }, [
      {
        paymentLinkId: 'l1',
        externalPaymentId: 'e1',
        entryKey: 'external-payment:e1',
        amountCents: 100_00,
        paidOn: '2026-03-01',
      },
      {
        paymentLinkId: 'l2',
        externalPaymentId: 'e2',
        entryKey: 'external-payment:e2',
        amountCents: 250_00,
        paidOn: '2026-03-02',
      },
    ]);
    expect(entry).toEqual({
      key: 'deposit-slip:SLIP-7',
      date: '2026-03-05',
      description:
        'Deposit slip SLIP-7: 2 checks received outside the service, deposited to the operating bank',
      lines: [
        { account: Accounts.OperatingBank, amountCents: 350_00 },
        { account: Accounts.ChecksToDeposit, amountCents: -100_00, memo: 'external-payment:e1' },
        { account: Accounts.ChecksToDeposit, amountCents: -250_00, memo: 'external-payment:e2' },
      ],
      links: { depositSlipId: 'SLIP-7' },
    });
  });
});

describe.each(ledgerStores())('$name ledger: deposit slips', (store) => {
  let ledger: TestLedger;
  beforeEach(async () => {
    ledger = await store.open();
    await ledger.post(externalPayment('link1', 'ep1', 100_00, '2026-03-01'));
    await ledger.post(externalPayment('link2', 'ep2', 250_00, '2026-03-03'));
    await ledger.post(externalPayment('link1', 'ep3', 40_00, '2026-02-27'));
  });
  afterEach(() => ledger.close());

  it('books one entry moving the checks to the bank; the same slip again is a no-op', async () => {
    expect((await paymentsToDeposit(ledger)).map((p) => p.externalPaymentId)).toEqual(['ep3', 'ep1', 'ep2']);
    const slip = {
      reference: 'SLIP-1',
      date: '2026-03-04',
      payments: [
        { paymentLinkId: 'link1', externalPaymentId: 'ep1' },
        { paymentLinkId: 'link2', externalPaymentId: 'ep2' },
      ],
    };
    const booked = await bookDepositSlip(ledger, slip);
    expect(booked).toMatchObject({ key: 'deposit-slip:SLIP-1', totalCents: 350_00, created: true });
    const entry = await ledger.get('deposit-slip:SLIP-1');
    expect(entry?.date).toBe('2026-03-04');
    expect(entry?.links).toEqual({ depositSlipId: 'SLIP-1' });
    expect(await ledger.balanceOf(Accounts.ChecksToDeposit)).toBe(40_00);
    expect(await ledger.balanceOf(Accounts.OperatingBank)).toBe(350_00);
    expect((await ledger.entriesFor({ depositSlipId: 'SLIP-1' })).map((e) => e.key)).toEqual([
      'deposit-slip:SLIP-1',
    ]);
    expect((await paymentsToDeposit(ledger)).map((p) => p.externalPaymentId)).toEqual(['ep3']);

    // Again, payments in another order: nothing written.
    const again = await bookDepositSlip(ledger, { ...slip, payments: [...slip.payments].reverse() });
    expect(again.created).toBe(false);
    expect(await ledger.balanceOf(Accounts.OperatingBank)).toBe(350_00);

    // The same number with other contents is refused.
    expect(await refusal(bookDepositSlip(ledger, { ...slip, date: '2026-03-05' }))).toEqual([
      'deposit slip SLIP-1 is booked already with other contents (2026-03-04, 2 checks, $350.00): a slip number is booked once',
    ]);
  });

  it('refuses a payment already on another slip, a bank date before it was paid, and an empty slip', async () => {
    await bookDepositSlip(ledger, {
      reference: 'SLIP-1',
      date: '2026-03-02',
      payments: [{ paymentLinkId: 'link1', externalPaymentId: 'ep1' }],
    });
    expect(
      await refusal(
        bookDepositSlip(ledger, {
          reference: 'SLIP-2',
          date: '2026-03-02',
          payments: [
            { paymentLinkId: 'link1', externalPaymentId: 'ep1' },
            { paymentLinkId: 'link2', externalPaymentId: 'ep2' },
          ],
        }),
      ),
    ).toEqual([
      'external payment ep1 is on deposit slip SLIP-1 already',
      'external payment ep2 was paid on 2026-03-03, after the bank date 2026-03-02',
    ]);
    expect(
      await refusal(bookDepositSlip(ledger, { reference: 'SLIP-3', date: '2026-03-02', payments: [] })),
    ).toEqual(['a deposit slip names at least one external payment']);
    expect(await ledger.get('deposit-slip:SLIP-2')).toBeNull();
    expect(await ledger.balanceOf(Accounts.ChecksToDeposit)).toBe(290_00);
  });

  it('refuses a payment not booked, voided, on another link, or booked straight to the bank', async () => {
    await ledger.reverse('external-payment:ep2', { reason: 'voided', date: '2026-03-04' });
    await ledger.post(externalPayment('link3', 'ep4', 10_00, '2026-03-01', Accounts.OperatingBank));
    const reasons = await refusal(
      bookDepositSlip(ledger, {
        reference: 'SLIP-9',
        date: '2026-03-10',
        payments: [
          { paymentLinkId: 'link1', externalPaymentId: 'nope' },
          { paymentLinkId: 'link2', externalPaymentId: 'ep2' },
          { paymentLinkId: 'link2', externalPaymentId: 'ep3' },
          { paymentLinkId: 'link3', externalPaymentId: 'ep4' },
        ],
      }),
    );
    expect(reasons).toEqual([
      'external payment nope on payment link link1 is not booked: record it (booksync link record-payment) and let it be booked first',
      'external payment ep2 on payment link link2 is voided: its entry external-payment:ep2 is reversed',
      'external payment ep3 on payment link link2: the books hold it on payment link link1',
      'external payment ep4 on payment link link3 was booked straight to the operating bank (EXTERNAL_PAYMENTS_ACCOUNT=operating-bank): there is no check to deposit',
    ]);
    expect(await ledger.get('deposit-slip:SLIP-9')).toBeNull();
  });

  it('refuses a bank date in a closed period and a reference the books cannot key', async () => {
    await ledger.closeBooks('2026-03-03', { reason: 'February and early March reviewed', forced: false });
    expect(
      await refusal(
        bookDepositSlip(ledger, {
          reference: 'SLIP-4',
          date: '2026-03-03',
          payments: [{ paymentLinkId: 'link1', externalPaymentId: 'ep3' }],
        }),
      ),
    ).toEqual([
      'the books are closed through 2026-03-03: a deposit slip dated 2026-03-03 would be in a closed period',
    ]);
    expect(
      await refusal(
        bookDepositSlip(ledger, {
          reference: 'SLIP 4',
          date: '2026-03-32',
          payments: [{ paymentLinkId: 'link1', externalPaymentId: 'ep3' }],
        }),
      ),
    ).toEqual([
      `reference "SLIP 4": 1 to 100 characters, no spaces, commas, semicolons or '#'`,
      'date "2026-03-32" is not a YYYY-MM-DD day',
    ]);
    const open = await bookDepositSlip(ledger, {
      reference: 'SLIP-4',
      date: '2026-03-04',
      payments: [{ paymentLinkId: 'link1', externalPaymentId: 'ep3' }],
    });
    expect(open.created).toBe(true);
  });
});
