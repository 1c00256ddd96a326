import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { closingAssertions, toHledgerJournal } from '../../src/ledger/hledger-export.js';
import {
  billPaymentEntries,
  billPaymentEntryKinds,
  checkDepositEntries,
  checkDepositEntryKinds,
  disbursementEntries,
  disbursementEntryKinds,
  paymentEntries,
  paymentEntryKinds,
  paymentLinkEntries,
  paymentLinkEntryKinds,
} from '../../src/ledger/mapping/index.js';
import { formatUsd } from '../../src/ledger/money.js';
import { syncEntries } from '../../src/ledger/sync.js';
import { ledgerStores, type TestLedger } from './ledger-stores.js';

// The real hledger (Debian package `hledger`) verifies the export independently of our code.
const hledgerAvailable = spawnSync('hledger', ['--version']).status === 0;

function hledger(journal: string, ...args: string[]) {
  const run = spawnSync('hledger', ['-f', '-', ...args], { input: journal, encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** "$-1234.56" / "$12.00" / "0" from `hledger bal -O csv` to integer cents, without floating point. */
function csvCents(amount: string): number {
  if (amount === '0') return 0;
  const m = /^(-?)\$(-?)(\d+)\.(\d{2})$/.exec(amount);
  if (!m) throw new Error(`unexpected hledger amount ${amount}`);
  const cents = Number(m[3]) * 100 + Number(m[4]);
  return m[1] === '-' || m[2] === '-' ? -cents : cents;
}

describe('formatUsd', () => {
  it.each([
    [0, '$0.00'],
    [5, '$0.05'],
    [-5, '-$0.05'],
    [123_456, '$1234.56'],
    [-100_000_000, '-$1000000.00'],
    [Number.MAX_SAFE_INTEGER, '$90071992547409.91'],
  ])('%d cents is %s', (cents, text) => {
    expect(formatUsd(cents)).toBe(text);
  });
  it('refuses non-integers', () => {
    expect(() => formatUsd(1.5)).toThrow(RangeError);
  });
});

describe.skipIf(!hledgerAvailable)('hledger export checked by the real hledger', () => {
  describe.each(ledgerStores())('$name ledger', (store) => {
    let ledger: TestLedger;
    const date = '2026-02-01';

    beforeAll(async () => {
      ledger = await store.open();
      const card = {
        id: 'pay_1',
        status: 'SUCCEEDED',
        amountInCents: 10_000,
        platformFeeInCents: 320,
        paymentLinkId: 'pl_1',
        createdAt: Date.UTC(2026, 0, 2),
        refunds: [{ id: 're_1', amountCents: 2_500, refundDate: '2026-01-05T10:00:00.000Z', voided: false }],
      };
      const ach = {
        ...card,
        id: 'pay_2',
        status: 'SUCCEEDED',
        platformFeeInCents: 0,
        amountInCents: 4_000,
        refunds: [],
      };
      const returned = {
        ...card,
        id: 'pay_3',
        status: 'PENDING',
        platformFeeInCents: 0,
        amountInCents: 999,
        refunds: [],
      };
      for (const p of [card, ach, returned]) {
        await syncEntries(
          ledger,
          paymentEntries(p, 'UTC', 'invoice'),
          { paymentId: p.id },
          { kinds: paymentEntryKinds, date },
        );
      }
      await syncEntries(
        ledger,
        paymentEntries({ ...returned, status: 'FAILED' }, 'UTC', 'invoice'),
        { paymentId: 'pay_3' },
        {
          kinds: paymentEntryKinds,
          date: '2026-01-08',
          reason: 'ACH return, payment.failed',
        },
      );
      // Disbursement of everything settled: 10000 - 320 - 2500 + 4000.
      const disbursement = {
        id: 'dis_1',
        status: 'SUCCEEDED',
        amountInCents: 11_180,
        createdAt: '2026-01-10',
        paidAt: '2026-01-12',
      };
      await syncEntries(
        ledger,
        disbursementEntries(disbursement),
        { disbursementId: 'dis_1' },
        {
          kinds: disbursementEntryKinds,
          date,
        },
      );
      const link = {
        id: 'pl_1',
        customerId: 'cus_1',
        externalPayments: [
          {
            id: 'ep_1',
            amountCents: 1_500,
            paidAt: '2026-01-04',
            voided: false,
            serviceBankingTransferId: null,
          },
        ],
        debitMemos: [
          { id: 'dm_1', amountCents: 3_500, createdAt: '2026-01-05T08:00:00.000Z', voided: false },
        ],
      };
      await syncEntries(
        ledger,
        paymentLinkEntries(link, { timeZone: 'UTC' }),
        { paymentLinkId: 'pl_1' },
        { kinds: paymentLinkEntryKinds, date },
      );
      const deposit = {
        id: 'cd_1',
        status: 'CLEARED',
        amountCents: 700,
        createdAt: '2026-01-05T00:00:00.000Z',
        clearedAt: '2026-01-09T00:00:00.000Z',
        applications: [
          {
            id: 'ep_d',
            amountCents: 700,
            paidAt: '2026-01-06',
            voided: false,
            serviceBankingTransferId: 't',
          },
        ],
      };
      await syncEntries(
        ledger,
        checkDepositEntries(deposit, () => 'pl_9', 'UTC'),
        { checkDepositId: 'cd_1' },
        {
          kinds: checkDepositEntryKinds,
          date,
        },
      );
      const bill = {
        id: 'bp_1',
        billId: 'bill_1',
        vendorId: 'ven_1',
        amountCents: 5_000,
        status: 'SUCCEEDED',
        sentAt: '2026-01-15T09:00:00.000Z',
        completedAt: '2026-01-18T09:00:00.000Z',
        deliveryMethodType: 'CHECK',
      };
      await syncEntries(
        ledger,
        billPaymentEntries(bill, 'UTC'),
        { billPaymentId: 'bp_1' },
        { kinds: billPaymentEntryKinds, date },
      );
      await ledger.post({
        key: 'bank-charge:2026-01',
        date: '2026-01-31',
        description: 'Monthly bank fee; January',
        lines: [
          { account: Accounts.BankCharges, amountCents: 1_200, memo: 'fee; monthly' },
          { account: Accounts.OperatingBank, amountCents: -1_200 },
        ],
      });
    });
    afterAll(() => ledger.close());

    it('passes `hledger check -s` with Processor Clearing asserted $0.00 after the disbursement, and closing balances', async () => {
      expect(await ledger.balanceOf(Accounts.ProcessorClearing)).toBe(0);
      const journal = toHledgerJournal(await ledger.allEntries(), {
        assertions: [
          { account: Accounts.ProcessorClearing, date: '2026-01-12', balanceCents: 0 },
          ...closingAssertions(await ledger.balances(), '2026-02-01'),
        ],
      });
      expect(journal).toContain('assets:processor-clearing                     $0.00 = $0.00');
      const check = hledger(journal, 'check', '-s');
      expect(check.stderr).toBe('');
      expect(check.status).toBe(0);
    });

    it('`hledger bal` gives the embedded trial balance, account by account', async () => {
      const journal = toHledgerJournal(await ledger.allEntries());
      const bal = hledger(journal, 'bal', '-O', 'csv', '-N');
      expect(bal.status).toBe(0);
      const fromHledger = new Map(
        bal.stdout
          .trim()
          .split('\n')
          .slice(1)
          .map((row) => {
            const [account, amount] = row.split(',').map((cell) => cell.replace(/^"|"$/g, '')) as [
              string,
              string,
            ];
            return [account, csvCents(amount)] as const;
          }),
      );
      const embedded = (await ledger.trialBalance()).accounts.filter((a) => a.balanceCents !== 0);
      expect(embedded.length).toBeGreaterThan(5);
      expect(Object.fromEntries(fromHledger)).toEqual(
        Object.fromEntries(embedded.map((a) => [a.account, a.balanceCents])),
      );
    });

    it('a false assertion makes hledger fail, so the assertions are really checked', async () => {
      const journal = toHledgerJournal(await ledger.allEntries(), {
        assertions: [{ account: Accounts.ProcessorClearing, date: '2026-01-12', balanceCents: 1 }],
      });
      const check = hledger(journal, 'check', '-s');
      expect(check.status).not.toBe(0);
      expect(check.stderr).toMatch(/balance assertion/i);
    });

    it('an assertion before the disbursement sees the clearing balance of that day', async () => {
      const journal = toHledgerJournal(await ledger.allEntries(), {
        // End of 2026-01-05: 10000 - 320 - 2500 + 4000, plus pay_3 (999), returned only on 2026-01-08.
        assertions: [{ account: Accounts.ProcessorClearing, date: '2026-01-05', balanceCents: 12_179 }],
      });
      expect(hledger(journal, 'check', '-s').status).toBe(0);
    });

    it('tags each transaction with its key, links and what a reversal reverses', async () => {
      const journal = toHledgerJournal(await ledger.allEntries());
      expect(journal).toContain('; key:payment:pay_1, paymentLinkId:pl_1, paymentId:pay_1');
      expect(journal).toContain('key:reversal:payment:pay_3, reverses:payment:pay_3');
      const reversals = hledger(journal, 'print', 'tag:reverses');
      expect(reversals.status).toBe(0);
      expect(reversals.stdout.match(/^\d{4}-\d{2}-\d{2} /gm)).toHaveLength(1);
      // A ';' in a description or memo is neutralised, not turned into a comment mid-line.
      expect(journal).toContain('2026-01-31 Monthly bank fee, January  ; key:bank-charge:2026-01');
    });

    it('an unknown account in an assertion is refused', () => {
      expect(() =>
        toHledgerJournal([], {
          assertions: [{ account: 'assets:nope' as never, date: '2026-01-01', balanceCents: 0 }],
        }),
      ).toThrow();
    });
  });
});
