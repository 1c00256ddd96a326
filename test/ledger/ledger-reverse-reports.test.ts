import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Accounts, chartOfAccounts } from '../../src/ledger/chart-of-accounts.js';
import { LedgerEntryNotFoundError, LedgerValidationError } from '../../src/ledger/errors.js';
import { bookingReport } from '../../src/ledger/reports.js';
import { sumOfLines, twoLine } from './fixtures.js';
import { ledgerStores, type TestLedger } from './ledger-stores.js';

describe.each(ledgerStores())('$name ledger', (store) => {
  let ledger: TestLedger;
  beforeEach(async () => {
    ledger = await store.open();
  });
  afterEach(() => ledger.close());
  describe('reverse', () => {
    it('books reversal:{key}, lines negated, linked to the original', async () => {
      await ledger.post(twoLine('payment:p1', 1000, { links: { paymentId: 'p1', paymentLinkId: 'pl1' } }));
      const { entry, created } = await ledger.reverse('payment:p1', {
        reason: 'ACH return',
        date: '2026-02-01',
      });
      expect(created).toBe(true);
      expect(entry).toMatchObject({
        key: 'reversal:payment:p1',
        reverses: 'payment:p1',
        date: '2026-02-01',
        links: { paymentId: 'p1', paymentLinkId: 'pl1' },
        lines: [
          { account: Accounts.ProcessorClearing, amountCents: -1000 },
          { account: Accounts.AccountsReceivable, amountCents: 1000 },
        ],
      });
      expect(entry.description).toContain('ACH return');
      expect(await ledger.isReversed('payment:p1')).toBe(true);
      expect((await ledger.get('payment:p1'))?.reversedBy).toBe('reversal:payment:p1');
      expect(await ledger.balanceOf(Accounts.ProcessorClearing)).toBe(0);
    });

    it('happens at most once: a second call returns the existing reversal', async () => {
      await ledger.post(twoLine('payment:p1', 1000));
      const first = await ledger.reverse('payment:p1', { reason: 'ACH return', date: '2026-02-01' });
      const second = await ledger.reverse('payment:p1', { reason: 'another reason', date: '2026-03-01' });
      expect(second.created).toBe(false);
      expect(second.entry).toEqual(first.entry);
      expect(await ledger.balanceOf(Accounts.ProcessorClearing)).toBe(0);
      expect((await ledger.allEntries()).length).toBe(2);
    });

    it('of a key never posted is LedgerEntryNotFoundError', async () => {
      const error = await ledger
        .reverse('payment:nope', { reason: 'x', date: '2026-02-01' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LedgerEntryNotFoundError);
      expect((error as Error).name).toBe('LedgerEntryNotFoundError');
      expect((error as Error).message).toContain('payment:nope');
    });

    it('of a reversal is refused (book a new version instead)', async () => {
      await ledger.post(twoLine('payment:p1', 1000));
      await ledger.reverse('payment:p1', { reason: 'x', date: '2026-02-01' });
      await expect(
        ledger.reverse('reversal:payment:p1', { reason: 'y', date: '2026-02-02' }),
      ).rejects.toBeInstanceOf(LedgerValidationError);
    });

    it('needs a reason and a valid date', async () => {
      await ledger.post(twoLine('payment:p1', 1000));
      await expect(ledger.reverse('payment:p1', { reason: '', date: '2026-02-01' })).rejects.toBeInstanceOf(
        LedgerValidationError,
      );
      await expect(ledger.reverse('payment:p1', { reason: 'x', date: '2026-13-01' })).rejects.toBeInstanceOf(
        LedgerValidationError,
      );
      expect(await ledger.isReversed('payment:p1')).toBe(false);
    });

    it("is never dated before what it reverses: the original's date when asked for an earlier one", async () => {
      await ledger.post(twoLine('payment:dated1', 10_000, { date: '2026-02-03' }));
      const reversed = await ledger.reverse('payment:dated1', { reason: 'voided', date: '2026-01-31' });
      expect(reversed.entry.date).toBe('2026-02-03');
      await ledger.post(twoLine('payment:dated2', 5_000, { date: '2026-02-03' }));
      const later = await ledger.reverse('payment:dated2', { reason: 'returned', date: '2026-02-10' });
      expect(later.entry.date).toBe('2026-02-10');
    });

    it('isReversed is false for unknown and live keys', async () => {
      await ledger.post(twoLine('payment:p1', 1000));
      expect(await ledger.isReversed('payment:p1')).toBe(false);
      expect(await ledger.isReversed('payment:zzz')).toBe(false);
      expect(await ledger.get('payment:zzz')).toBeNull();
    });
  });

  describe('reports', () => {
    beforeEach(async () => {
      const link = { paymentLinkId: 'pl1', customerId: 'c1' };
      await ledger.post(twoLine('payment:p1', 10_000, { links: { ...link, paymentId: 'p1' } }));
      await ledger.post(
        twoLine('payment-fee:p1', 320, {
          debit: Accounts.ProcessingFees,
          credit: Accounts.ProcessorClearing,
          links: { ...link, paymentId: 'p1' },
        }),
      );
      await ledger.post(
        twoLine('refund:r1', 2_500, {
          debit: Accounts.Refunds,
          credit: Accounts.ProcessorClearing,
          links: { ...link, paymentId: 'p1', refundId: 'r1' },
        }),
      );
      await ledger.post(twoLine('payment:p2', 4_000, { links: { paymentLinkId: 'pl2', paymentId: 'p2' } }));
      await ledger.post(
        twoLine('disbursement-pending:d1', 7_180, {
          debit: Accounts.PayoutsInTransit,
          credit: Accounts.ProcessorClearing,
          links: { disbursementId: 'd1' },
        }),
      );
      await ledger.reverse('refund:r1', { reason: 'refund credit returned', date: '2026-01-20' });
    });

    it('entriesFor lists what is booked for a link, payment or disbursement, with reversal status', async () => {
      const forLink = await ledger.entriesFor({ paymentLinkId: 'pl1' });
      expect(forLink.map((e) => [e.key, e.reversedBy])).toEqual([
        ['payment:p1', null],
        ['payment-fee:p1', null],
        ['refund:r1', 'reversal:refund:r1'],
        ['reversal:refund:r1', null],
      ]);
      expect(forLink.every((e) => e.lines.length === 2 && sumOfLines(e) === 0)).toBe(true);
      expect((await ledger.entriesFor({ paymentId: 'p2' })).map((e) => e.key)).toEqual(['payment:p2']);
      expect((await ledger.entriesFor({ disbursementId: 'd1' })).map((e) => e.key)).toEqual([
        'disbursement-pending:d1',
      ]);
      expect((await ledger.entriesFor({ customerId: 'c1', refundId: 'r1' })).map((e) => e.key)).toEqual([
        'refund:r1',
        'reversal:refund:r1',
      ]);
      expect(await ledger.entriesFor({ paymentId: 'nothing' })).toEqual([]);
    });

    it('entriesWithLink lists every entry carrying the link field, reversals included, oldest first', async () => {
      const payouts = await ledger.entriesWithLink('disbursementId');
      expect(payouts.map((e) => [e.key, e.links.disbursementId, e.lines.length])).toEqual([
        ['disbursement-pending:d1', 'd1', 2],
      ]);
      expect((await ledger.entriesWithLink('refundId')).map((e) => [e.key, e.reversedBy])).toEqual([
        ['refund:r1', 'reversal:refund:r1'],
        ['reversal:refund:r1', null],
      ]);
      expect(await ledger.entriesWithLink('billId')).toEqual([]);
    });

    it('entriesFor needs a filter', async () => {
      await expect(ledger.entriesFor({})).rejects.toBeInstanceOf(LedgerValidationError);
    });

    it('trial balance: every account with debits, credits and balance; totals equal', async () => {
      const tb = await ledger.trialBalance();
      expect(tb.accounts.map((a) => a.account)).toContain(Accounts.BankCharges);
      expect(tb.accounts.length).toBe(chartOfAccounts.length);
      const clearing = tb.accounts.find((a) => a.account === Accounts.ProcessorClearing);
      // Dr 10000 + 4000 + 2500 (reversal); Cr 320 + 2500 + 7180.
      expect(clearing).toMatchObject({
        debitCents: 16_500,
        creditCents: 10_000,
        balanceCents: 6_500,
        type: 'asset',
      });
      expect(tb.totalDebitCents).toBe(tb.totalCreditCents);
      expect(tb.balanced).toBe(true);
      expect(tb.accounts.reduce((s, a) => s + a.balanceCents, 0)).toBe(0);
    });

    it('balanceOf and balances agree; unknown accounts are refused', async () => {
      expect(await ledger.balanceOf(Accounts.AccountsReceivable)).toBe(-14_000);
      expect(await ledger.balanceOf(Accounts.Refunds)).toBe(0);
      expect(await ledger.balanceOf(Accounts.ProcessingFees)).toBe(320);
      expect(await ledger.balanceOf(Accounts.PayoutsInTransit)).toBe(7_180);
      const balances = await ledger.balances();
      expect(balances.find((b) => b.account === Accounts.PayoutsInTransit)?.balanceCents).toBe(7_180);
      await expect(ledger.balanceOf('assets:petty-cash' as never)).rejects.toBeInstanceOf(
        LedgerValidationError,
      );
    });

    it('openItems: what each invoice or bill still owes, with its counterparty, no document first', async () => {
      await ledger.post(
        twoLine('invoice:pl_b', 7_000, {
          debit: Accounts.AccountsReceivable,
          credit: Accounts.Revenue,
          links: { paymentLinkId: 'pl_b', customerId: 'c2' },
        }),
      );
      await ledger.post(
        twoLine('invoice:pl_A', 1_000, {
          debit: Accounts.AccountsReceivable,
          credit: Accounts.Revenue,
          links: { paymentLinkId: 'pl_A' },
        }),
      );
      await ledger.post(
        twoLine('bill:b1', 900, {
          debit: Accounts.BillExpenses,
          credit: Accounts.AccountsPayable,
          links: { billId: 'b1', vendorId: 'v1' },
        }),
      );
      await ledger.post(
        twoLine('invoice-adjustment:x1', 50, {
          debit: Accounts.AccountsReceivable,
          credit: Accounts.Revenue,
        }),
      );
      // pl1: never invoiced, paid 10000 (c1); pl2: paid 4000, no customer. Code-unit order: pl1 < pl2 < pl_A < pl_b.
      expect(await ledger.openItems('receivable')).toEqual([
        { documentId: null, counterpartyId: null, openCents: 50 },
        { documentId: 'pl1', counterpartyId: 'c1', openCents: -10_000 },
        { documentId: 'pl2', counterpartyId: null, openCents: -4_000 },
        { documentId: 'pl_A', counterpartyId: null, openCents: 1_000 },
        { documentId: 'pl_b', counterpartyId: 'c2', openCents: 7_000 },
      ]);
      expect(await ledger.openItems('payable')).toEqual([
        { documentId: 'b1', counterpartyId: 'v1', openCents: 900 },
      ]);
    });

    it('bookingReport: each entry with its status, live keys and the net per account', async () => {
      const report = bookingReport(await ledger.entriesFor({ paymentLinkId: 'pl1' }));
      expect(report.items.map((i) => [i.key, i.status, i.related])).toEqual([
        ['payment:p1', 'live', null],
        ['payment-fee:p1', 'live', null],
        ['refund:r1', 'reversed', 'reversal:refund:r1'],
        ['reversal:refund:r1', 'reversal', 'refund:r1'],
      ]);
      expect(report.liveKeys).toEqual(['payment:p1', 'payment-fee:p1']);
      expect(report.netByAccount).toEqual({
        [Accounts.ProcessorClearing]: 9_680,
        [Accounts.AccountsReceivable]: -10_000,
        [Accounts.ProcessingFees]: 320,
      });
    });
  });
});
