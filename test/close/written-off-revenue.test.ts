import { describe, expect, it } from 'vitest';
import { closeCertificate } from '../../src/close/certificate.js';
import type { CloseInput } from '../../src/close/close-input.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { bookedEntry, closeInput, dr } from './close-fixtures.js';

// The certificate's revenue check with a receivable written off (booksync link write-off): the service's own
// amount of the link is lowered, the books keep Revenue whole and book the lowering to Bad Debt, an expense.
// The difference is explained by the write-off, in whichever period the lowering falls; a discount (Discounts
// and Write-offs) lowers the books' revenue as the service's, also when the link was invoiced in the period.

const january = { from: '2026-01-01', to: '2026-01-31' };

function certify(over: Partial<CloseInput>, period = january) {
  return closeCertificate(closeInput({ period, asOf: '2026-03-02T18:00:00Z' }, over));
}

const links = { paymentLinkId: 'pl_1' };
const link = (requested: number) =>
  ({
    id: 'pl_1',
    reusable: false,
    requestedAmountCents: requested,
    debitMemoAmountCents: 0,
    completedAmountCents: 0,
    payments: [],
    externalPayments: [],
    debitMemos: [],
  }) as unknown as CloseInput['links'][number];
const invoice = bookedEntry(
  'invoice:pl_1',
  '2026-01-10',
  dr(Accounts.AccountsReceivable, Accounts.Revenue, 100_00),
  links,
);
const lowering = (date: string, account: string) =>
  bookedEntry(
    'invoice-adjustment:pl_1:1',
    date,
    [
      [Accounts.AccountsReceivable, -30_00],
      [account, 30_00],
    ],
    links,
  );
const february = { from: '2026-02-01', to: '2026-02-28' };
const revenue = (c: ReturnType<typeof certify>) => c.periodFigures?.find((f) => f.check === 'Revenue');

describe('revenue with a receivable written off', () => {
  it.each([Accounts.DiscountsAndWriteOffs, Accounts.BadDebt])(
    'invoiced in January, lowered in January (%s)',
    (account) => {
      const c = certify({ links: [link(70_00)], entries: [invoice, lowering('2026-01-20', account)] });
      expect(revenue(c)).toMatchObject({ differenceCents: 0, ok: true });
    },
  );
  it.each([Accounts.DiscountsAndWriteOffs, Accounts.BadDebt])(
    'invoiced in January, lowered in February (%s)',
    (account) => {
      const entries = [invoice, lowering('2026-02-10', account)];
      expect(revenue(certify({ links: [link(70_00)], entries }))).toMatchObject({
        differenceCents: 0,
        ok: true,
      });
      expect(revenue(certify({ links: [link(70_00)], entries }, february))).toMatchObject({
        differenceCents: 0,
        ok: true,
      });
    },
  );
});
