import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { afterAll, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import type { BookedEntry, LedgerEntryInput } from '../../src/ledger/entry.js';
import { type DisbursementForBooks, disbursementEntries } from '../../src/ledger/mapping/disbursement.js';
import { defaultAccountCodes } from '../../src/targets/account-mapping.js';
import { documentFor, type ReferenceData } from '../../src/targets/documents.js';
import { LedgerMirrorTarget } from '../../src/targets/ledger-mirror-target.js';
import { TokenCipher } from '../../src/targets/oauth/token-cipher.js';
import type { PushContext, TargetDocument } from '../../src/targets/target-port.js';
import { doubleForFile } from '../support/double-for-file.js';
import { quickBooksCompany } from '../support/quickbooks/company.js';
import { xeroOrganisation } from '../support/xero/organisation.js';

// A payout to an account PAYOUT_BANK_ACCOUNTS names is received in Payout Bank: its `disbursement-paid`
// document moves the money from Payouts In Transit into the target's account of the role PayoutBank, as a
// payout into the operating bank is moved into Operating Bank's (QuickBooks: a Deposit; Xero: a BankTransfer;
// the ledger mirror: the entry as booked). Tryton's move takes each line's account by its role the same way.

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const disbursement: DisbursementForBooks = {
  id: `dis_${run}`,
  status: 'SUCCEEDED',
  amountInCents: 73_25,
  createdAt: '2026-11-04',
  paidAt: '2026-11-05',
  accountNumberLastFour: '4321',
};

const booked = (input: LedgerEntryInput, id: number): BookedEntry => ({
  ...input,
  lines: [...input.lines],
  links: input.links ?? {},
  id,
  reverses: null,
  reversedBy: null,
  contentHash: String(id).repeat(64).slice(0, 64),
  createdAt: '2026-11-05T15:00:00.000Z',
});

const references: ReferenceData = {
  paymentLink: () => {
    throw new Error('no payment link');
  },
  customer: () => {
    throw new Error('no customer');
  },
  vendor: () => {
    throw new Error('no vendor');
  },
  bill: () => {
    throw new Error('no bill');
  },
  payout: async () => ({ paymentIds: [] }),
};
const noEntries = { get: async () => null, entriesFor: async () => [] };
const context: PushContext = {
  mayExist: () => false,
  refusals: () => 0,
  pushed: () => null,
  closedThrough: null,
};
const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';
const cipher = new TokenCipher('test-secret-for-payout-bank-documents');

/** The paid payout's entry, as the mapping books it with `payoutBankAccounts`, and its target document. */
async function paidPayout(payoutBankAccounts: readonly string[]): Promise<{
  entry: BookedEntry;
  document: TargetDocument;
}> {
  const paid = disbursementEntries(disbursement, { payoutBankAccounts }).find((e) =>
    e.key.startsWith('disbursement-paid:'),
  );
  if (!paid) throw new Error('no disbursement-paid entry');
  const entry = booked(paid, 2);
  return { entry, document: await documentFor(entry, references, noEntries) };
}

describe('a payout received in Payout Bank, as a target document', () => {
  it('is the disbursement-paid document on the role PayoutBank, from Payouts In Transit', async () => {
    const { document } = await paidPayout(['4321']);
    expect(document).toMatchObject({
      key: `disbursement-paid:dis_${run}`,
      kind: 'disbursement-paid',
      date: '2026-11-05',
      amountCents: 73_25,
      reference: `dis_${run}`,
      lines: [
        { role: 'PayoutBank', amountCents: 73_25 },
        { role: 'PayoutsInTransit', amountCents: -73_25 },
      ],
    });
  });

  describe('at QuickBooks (the double)', () => {
    const qbo = doubleForFile(new QuickBooksDouble());

    it('a Deposit into the Payout Bank account from Payouts In Transit', async () => {
      const { realmId, target: connect } = quickBooksCompany(qbo, cipher);
      const target = connect();
      const { document } = await paidPayout(['4321']);
      const pushed = await target.push(document, context);
      expect(pushed.remoteIds[0]).toMatch(/^Deposit:/);
      const deposit = qbo.get(realmId, 'Deposit', idOf(pushed.remoteIds[0])) as unknown as {
        DepositToAccountRef: { value: string };
        TotalAmt: number;
        Line: { Amount: number; DepositLineDetail: { AccountRef: { value: string } } }[];
      };
      const accountNumber = (id: string) => qbo.get(realmId, 'Account', id)?.AcctNum;
      expect(accountNumber(deposit.DepositToAccountRef.value)).toBe(defaultAccountCodes.PayoutBank);
      expect(deposit.TotalAmt).toBe(73.25);
      expect(
        deposit.Line.map((l) => [accountNumber(l.DepositLineDetail.AccountRef.value), l.Amount]),
      ).toEqual([[defaultAccountCodes.PayoutsInTransit, 73.25]]);
      const figures = await target.figuresAsOf('2026-11-05');
      expect(figures.balances.PayoutBank).toBe(73_25);
      expect(figures.balances.OperatingBank ?? 0).toBe(0);
    });
  });

  describe('at Xero (the double)', { timeout: 60_000 }, () => {
    const xero = doubleForFile(
      new XeroDouble({ limits: { concurrent: 5, perMinute: 60, perDay: 5_000, windowMs: 1_000 } }),
      { calm: true },
    );

    it('a BankTransfer from Payouts In Transit to the Payout Bank account', async () => {
      const { tenantId, target: connect } = xeroOrganisation(xero, cipher, { lockTtlMs: 0 });
      const target = connect();
      const { document } = await paidPayout(['4321']);
      const pushed = await target.push(document, context);
      const transfer = xero.get(tenantId, 'BankTransfers', idOf(pushed.remoteIds[0])) as unknown as {
        FromBankAccount: { Code: string };
        ToBankAccount: { Code: string };
        Amount: number;
        Date: string;
      };
      expect(transfer).toMatchObject({
        FromBankAccount: { Code: defaultAccountCodes.PayoutsInTransit },
        ToBankAccount: { Code: defaultAccountCodes.PayoutBank },
        Amount: 73.25,
      });
      const figures = await target.figuresAsOf('2026-11-05');
      expect(figures.balances.PayoutBank).toBe(73_25);
      expect(figures.balances.OperatingBank ?? 0).toBe(0);
    });
  });

  describe('at the ledger mirror', () => {
    const mirror = EmbeddedLedger.open();
    afterAll(() => mirror.close());

    it('the entry as booked, on Payout Bank', async () => {
      const { document } = await paidPayout(['4321']);
      await new LedgerMirrorTarget(mirror).push(document);
      expect((await mirror.get(document.key))?.lines).toEqual([
        { account: Accounts.PayoutBank, amountCents: 73_25 },
        { account: Accounts.PayoutsInTransit, amountCents: -73_25 },
      ]);
    });
  });
});
