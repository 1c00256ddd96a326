import { describe, expect, it } from 'vitest';
import { closeCertificate } from '../../src/close/certificate.js';
import { certificateHtml } from '../../src/close/certificate-html.js';
import { certificateLines } from '../../src/close/certificate-text.js';
import type { CloseInput } from '../../src/close/close-input.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import type { BookedEntry, LedgerEntryInput } from '../../src/ledger/entry.js';
import { depositSlipEntry } from '../../src/ledger/mapping/deposit-slip.js';

// Checks To Deposit in the certificate: the external payments recorded as received and on no deposit slip
// at the period's end are listed oldest first with their age, a finding that does not fail the certificate;
// a deposit slip is the business's own record, never an entry without a service object.

const period = { from: '2026-03-01', to: '2026-03-31' };
let id = 0;

function booked(input: LedgerEntryInput): BookedEntry {
  return {
    ...input,
    lines: [...input.lines],
    links: input.links ?? {},
    id: ++id,
    reverses: null,
    reversedBy: null,
    contentHash: input.key,
    createdAt: `${input.date}T00:00:00Z`,
  };
}

const received = (epId: string, cents: number, day: string) =>
  booked({
    key: `external-payment:${epId}`,
    date: day,
    description: epId,
    lines: [
      { account: Accounts.ChecksToDeposit, amountCents: cents },
      { account: Accounts.AccountsReceivable, amountCents: -cents },
    ],
    links: { paymentLinkId: 'pl_1', externalPaymentId: epId },
  });

const held = (epId: string, cents: number, paidOn: string) => ({
  paymentLinkId: 'pl_1',
  externalPaymentId: epId,
  entryKey: `external-payment:${epId}`,
  amountCents: cents,
  paidOn,
});

describe('checks to deposit on the certificate', () => {
  it('lists the payments no slip took by the period end, oldest first with their age; it still passes', () => {
    const payments = [
      ['ep_banked', 100_00, '2026-03-02'],
      ['ep_late_slip', 40_00, '2026-03-20'],
      ['ep_drawer', 25_00, '2026-03-05'],
    ] as const;
    const link = {
      id: 'pl_1',
      reusable: false,
      requestedAmountCents: 165_00,
      completedAmountCents: 165_00,
      payments: [],
      externalPayments: payments.map(([epId, cents, day]) => ({
        id: epId,
        amountCents: cents,
        paidAt: `${day}T12:00:00.000Z`,
        voided: false,
        serviceBankingTransferId: null,
      })),
      debitMemos: [],
    };
    const slip = (reference: string, date: string, which: ReturnType<typeof held>) =>
      booked(depositSlipEntry({ reference, date, payments: [] }, [which]));
    const entries = [
      booked({
        key: 'invoice:pl_1',
        date: '2026-03-01',
        description: 'invoice',
        lines: [
          { account: Accounts.AccountsReceivable, amountCents: 165_00 },
          { account: Accounts.Revenue, amountCents: -165_00 },
        ],
        links: { paymentLinkId: 'pl_1' },
      }),
      ...payments.map(([epId, cents, day]) => received(epId, cents, day)),
      slip('SLIP-1', '2026-03-03', held('ep_banked', 100_00, '2026-03-02')),
      // Banked in April: still in Checks To Deposit at the end of March.
      slip('SLIP-2', '2026-04-02', held('ep_late_slip', 40_00, '2026-03-20')),
    ];
    const input: CloseInput = {
      period,
      asOf: '2026-04-03T00:00:00Z',
      timeZone: 'UTC',
      links: [link] as unknown as CloseInput['links'],
      payments: [],
      disbursements: [],
      checkDeposits: [],
      bills: [],
      billPayments: [],
      entries,
      receivables: [{ documentId: 'pl_1', openCents: 0 }],
      payables: [],
      targets: null,
    };
    const cert = closeCertificate(input);
    expect(cert.problems).toEqual([]);
    expect(cert.orphanEntries).toEqual([]);
    expect(cert.passes).toBe(true);
    expect(cert.checksToDeposit).toEqual([
      {
        paymentLinkId: 'pl_1',
        externalPaymentId: 'ep_drawer',
        paidOn: '2026-03-05',
        amountCents: 25_00,
        ageDays: 26,
      },
      {
        paymentLinkId: 'pl_1',
        externalPaymentId: 'ep_late_slip',
        paidOn: '2026-03-20',
        amountCents: 40_00,
        ageDays: 11,
      },
    ]);
    const lines = certificateLines(cert);
    const at = lines.indexOf(
      'checks to deposit at the end of 2026-03-31: 2 external payments, $65.00, on no deposit slip (a finding, oldest first)',
    );
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 3)).toEqual([
      '  2026-03-05 (26 days): $25.00, external payment ep_drawer on payment link pl_1',
      '  2026-03-20 (11 days): $40.00, external payment ep_late_slip on payment link pl_1',
    ]);
    expect(certificateHtml(cert)).toContain('<table id="checks-to-deposit">');

    // Every check on a slip by the end of the period: nothing to list.
    const all = closeCertificate({
      ...input,
      entries: [...entries, slip('SLIP-3', '2026-03-31', held('ep_drawer', 25_00, '2026-03-05'))],
      period: { from: '2026-03-01', to: '2026-04-30' },
    });
    expect(all.checksToDeposit).toEqual([]);
    expect(certificateLines(all).some((l) => l.startsWith('checks to deposit'))).toBe(false);
  });
});
