import type { Disbursement, Payment } from '@booksync/service-contract/schemas/index';
import { describe, expect, it } from 'vitest';
import { closeCertificate } from '../../src/close/certificate.js';
import { certificateLines } from '../../src/close/certificate-text.js';
import type { CloseInput } from '../../src/close/close-input.js';
import { periodFigures } from '../../src/close/period-figures.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import type { BookedEntry, LedgerEntryInput } from '../../src/ledger/entry.js';
import { disbursementEntries } from '../../src/ledger/mapping/index.js';
import { closeInput } from './close-fixtures.js';

// The period's figures when payouts land in two bank accounts: a payout to an account PAYOUT_BANK_ACCOUNTS
// names is compared on Payout Bank, every other on Operating Bank, each against the service's disbursements
// paid to it. The entries are the mapping's own.

const january = { from: '2026-01-01', to: '2026-01-31' };
const payoutBankAccounts = ['4321'];
let seq = 0;

function booked(entry: LedgerEntryInput): BookedEntry {
  return {
    ...entry,
    id: ++seq,
    links: entry.links ?? {},
    reverses: null,
    reversedBy: null,
    contentHash: entry.key,
    createdAt: `${entry.date}T00:00:00Z`,
  } as BookedEntry;
}

const sale = (id: string, day: string, amount: number) =>
  ({
    id,
    status: 'SUCCEEDED',
    fees: [],
    amountInCents: amount,
    chargedAmountInCents: amount,
    platformFeeInCents: 0,
    paymentLinkId: null,
    paymentMethod: { type: 'Card' },
    refunds: [],
    createdAt: Date.parse(`${day}T12:00:00Z`),
  }) as unknown as Payment;

const payout = (id: string, amount: number, lastFour: string, paymentId: string) =>
  ({
    id,
    status: 'SUCCEEDED',
    amountInCents: amount,
    createdAt: '2026-01-12',
    paidAt: '2026-01-14',
    bankName: 'First Bank',
    accountNumberLastFour: lastFour,
    paymentIds: [paymentId],
  }) as unknown as Disbursement;

/** Two sales in January, paid out to the operating account (••6789) and to the payout account (••4321). */
function january2026(mappedWith: readonly string[]) {
  const payments = [sale('pay_1', '2026-01-05', 300_00), sale('pay_2', '2026-01-06', 200_00)];
  const disbursements = [
    payout('dis_op', 300_00, '6789', 'pay_1'),
    payout('dis_pb', 200_00, '4321', 'pay_2'),
  ];
  const entries = [
    ...payments.map((p) =>
      booked({
        key: `sale:${p.id}`,
        date: new Date(p.createdAt).toISOString().slice(0, 10),
        description: `sale ${p.id}`,
        lines: [
          { account: Accounts.ProcessorClearing, amountCents: p.amountInCents },
          { account: Accounts.Revenue, amountCents: -p.amountInCents },
        ],
        links: { paymentId: p.id },
      }),
    ),
    ...disbursements.flatMap((d) => disbursementEntries(d, { payoutBankAccounts: mappedWith }).map(booked)),
  ];
  return { payments, disbursements, entries };
}

function input(over: Partial<CloseInput>): CloseInput {
  return closeInput({ period: january, asOf: '2026-02-02T18:00:00Z' }, over);
}

const rows = (c: CloseInput) =>
  periodFigures(c).map((f) => [f.check, f.booksCents, f.serviceCents, f.differenceCents, f.ok]);

describe('the period’s figures with a payout bank', () => {
  it('compares a payout to the payout bank on Payout Bank and the others on Operating Bank: the certificate passes', () => {
    const close = input({ ...january2026(payoutBankAccounts), payoutBankAccounts });
    expect(rows(close)).toEqual([
      ['OperatingBank', 300_00, 300_00, 0, true],
      ['PayoutBank', 200_00, 200_00, 0, true],
      ['Revenue', 500_00, 500_00, 0, true],
      ['Fees', 0, 0, 0, true],
    ]);
    const cert = closeCertificate(close);
    expect(cert.problems).toEqual([]);
    expect(cert.passes).toBe(true);
    const text = certificateLines(cert).join('\n');
    expect(text).toContain('Payout Bank (payouts)');
    expect(text).toContain('PAYOUT_BANK_ACCOUNTS names (4321)');
  });

  it('without a payout bank named or booked: the three figures as before', () => {
    const close = input(january2026([]));
    expect(rows(close)).toEqual([
      ['OperatingBank', 500_00, 500_00, 0, true],
      ['Revenue', 500_00, 500_00, 0, true],
      ['Fees', 0, 0, 0, true],
    ]);
    expect(closeCertificate(close).passes).toBe(true);
  });

  it('a payout booked to Payout Bank the setting no longer names: both banks differ by it, named', () => {
    const close = input(january2026(payoutBankAccounts));
    expect(rows(close).slice(0, 2)).toEqual([
      ['OperatingBank', 300_00, 500_00, -200_00, false],
      ['PayoutBank', 200_00, 0, 200_00, false],
    ]);
    const cert = closeCertificate(close);
    expect(cert.passes).toBe(false);
    expect(cert.problems).toContain(
      'Payout Bank (payouts) from 2026-01-01 to 2026-01-31: books 20000 cents, service 0 cents: 20000 cents unexplained',
    );
  });

  it('a payout to the payout bank booked to Operating Bank (booked before the setting named it): both banks differ', () => {
    const close = input({ ...january2026([]), payoutBankAccounts });
    expect(rows(close).slice(0, 2)).toEqual([
      ['OperatingBank', 500_00, 300_00, 200_00, false],
      ['PayoutBank', 0, 200_00, -200_00, false],
    ]);
  });
});
