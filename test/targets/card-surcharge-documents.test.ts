import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BookedEntry, LedgerEntryInput } from '../../src/ledger/entry.js';
import { type PaymentForBooks, paymentEntries } from '../../src/ledger/mapping/payment.js';
import { defaultAccountCodes } from '../../src/targets/account-mapping.js';
import { documentFor, type ReferenceData } from '../../src/targets/documents.js';
import { TokenCipher } from '../../src/targets/oauth/token-cipher.js';
import type { PushContext, TargetDocument } from '../../src/targets/target-port.js';
import { quickBooksCompany } from '../support/quickbooks/company.js';
import { startTryton, type TrytonServer, trytonTarget } from '../support/tryton.js';
import { xeroOrganisation } from '../support/xero/organisation.js';

// A card payment whose fee the payer paid books two entries of its own beside the receipt: the surcharge
// received (a sale of its own, on Surcharge Income) and the processor keeping it (a fee). Each target takes
// them as the documents of those kinds, on the accounts of the entries' roles.

const run = Date.now().toString(36);
const payment: PaymentForBooks = {
  id: `pay_${run}`,
  status: 'SUCCEEDED',
  amountInCents: 100_00,
  chargedAmountInCents: 103_20,
  platformFeeInCents: 0,
  fees: [{ type: 'CREDIT_CARD_FEE', amountInCents: 3_20 }],
  paymentMethod: { type: 'Card' },
  paymentLinkId: `pl_${run}`,
  createdAt: Date.UTC(2026, 10, 2, 15),
  refunds: [],
};

const booked = (input: LedgerEntryInput, id: number): BookedEntry => ({
  ...input,
  lines: [...input.lines],
  links: input.links ?? {},
  id,
  reverses: null,
  reversedBy: null,
  contentHash: String(id).repeat(64).slice(0, 64),
  createdAt: '2026-11-02T15:00:00.000Z',
});

const customer = { serviceId: `cus_${run}`, name: `Surcharge Customer ${run}`, email: null };
const references: ReferenceData = {
  paymentLink: async () => ({ name: `INV-S-${run}`, customerId: customer.serviceId }),
  customer: async () => customer,
  vendor: () => {
    throw new Error('no vendor');
  },
  bill: () => {
    throw new Error('no bill');
  },
  payout: async () => ({ paymentIds: [] }),
};
const noEntries = { get: async () => null, entriesFor: async () => [] };

async function documents(): Promise<{ surcharge: TargetDocument; fee: TargetDocument }> {
  const entries = paymentEntries(payment, 'UTC', 'invoice');
  const of = async (prefix: string, id: number) => {
    const entry = entries.find((e) => e.key.startsWith(`${prefix}:`));
    if (!entry) throw new Error(`no ${prefix} entry`);
    return documentFor(booked(entry, id), references, noEntries);
  };
  return { surcharge: await of('payment-surcharge', 1), fee: await of('surcharge-fee', 2) };
}

const context: PushContext = {
  mayExist: () => false,
  refusals: () => 0,
  pushed: () => null,
  closedThrough: null,
};
interface Ref {
  value: string;
}
interface StoredReceipt {
  DepositToAccountRef: Ref;
  TotalAmt: number;
  Line: { SalesItemLineDetail: { ItemRef: Ref } }[];
}
interface StoredItem {
  Name: string;
  IncomeAccountRef: Ref;
}
interface StoredJournal {
  Line: { Amount: number; JournalEntryLineDetail: { PostingType: string; AccountRef: Ref } }[];
}
interface StoredBankTransaction {
  Type: string;
  BankAccount?: { Code?: string };
  LineItems: { AccountCode: string; LineAmount: number }[];
}

const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';
const cipher = new TokenCipher('test-secret-for-card-surcharges');

describe('a card surcharge as target documents', () => {
  it('the surcharge is a sale on Surcharge Income, the fee kept a payment fee on Processing Fees', async () => {
    const { surcharge, fee } = await documents();
    expect(surcharge).toMatchObject({
      kind: 'sale',
      date: '2026-11-02',
      amountCents: 3_20,
      customer,
      lines: [
        { role: 'ProcessorClearing', amountCents: 3_20 },
        { role: 'SurchargeIncome', amountCents: -3_20 },
      ],
    });
    expect(fee).toMatchObject({
      kind: 'payment-fee',
      amountCents: 3_20,
      lines: [
        { role: 'ProcessingFees', amountCents: 3_20 },
        { role: 'ProcessorClearing', amountCents: -3_20 },
      ],
    });
  });

  describe('at QuickBooks (the double)', () => {
    const qbo = new QuickBooksDouble();
    beforeAll(() => qbo.start(), 60_000);
    afterAll(() => qbo.stop());

    it('a sales receipt into Undeposited Funds through the Surcharge Income item; the fee a journal entry', async () => {
      const { realmId, target: connect } = quickBooksCompany(qbo, cipher);
      const target = connect();
      const { surcharge, fee } = await documents();
      const receipt = await target.push(surcharge, context);
      expect(receipt.remoteIds[0]).toMatch(/^SalesReceipt:/);
      const stored = qbo.get(realmId, 'SalesReceipt', idOf(receipt.remoteIds[0])) as unknown as StoredReceipt;
      const accountNumber = (id: unknown) => qbo.get(realmId, 'Account', String(id))?.AcctNum;
      expect(accountNumber(stored.DepositToAccountRef.value)).toBe(defaultAccountCodes.ProcessorClearing);
      expect(stored.TotalAmt).toBe(3.2);
      const itemId = stored.Line[0]?.SalesItemLineDetail.ItemRef.value ?? '';
      const item = qbo.get(realmId, 'Item', itemId) as unknown as StoredItem;
      expect(item.Name).toBe('booksync SurchargeIncome');
      expect(accountNumber(item.IncomeAccountRef.value)).toBe(defaultAccountCodes.SurchargeIncome);

      const kept = await target.push(fee, context);
      expect(kept.remoteIds[0]).toMatch(/^JournalEntry:/);
      const journal = qbo.get(realmId, 'JournalEntry', idOf(kept.remoteIds[0])) as unknown as StoredJournal;
      expect(
        journal.Line.map((l) => [
          l.JournalEntryLineDetail.PostingType,
          accountNumber(l.JournalEntryLineDetail.AccountRef.value),
          l.Amount,
        ]),
      ).toEqual([
        ['Debit', defaultAccountCodes.ProcessingFees, 3.2],
        ['Credit', defaultAccountCodes.ProcessorClearing, 3.2],
      ]);
      expect(qbo.violations).toEqual([]);
    });
  });

  describe('at Xero (the double)', () => {
    const xero = new XeroDouble({ limits: { concurrent: 5, perMinute: 60, perDay: 5_000, windowMs: 1_000 } });
    beforeAll(() => xero.start(), 60_000);
    afterAll(() => xero.stop());

    it('money received into the clearing account on Surcharge Income; the fee money spent on Processing Fees', async () => {
      const { tenantId, target: connect } = xeroOrganisation(xero, cipher);
      const target = connect();
      const { surcharge, fee } = await documents();
      const shape = (remoteId: string | undefined) => {
        const stored = xero.get(
          tenantId,
          'BankTransactions',
          idOf(remoteId),
        ) as unknown as StoredBankTransaction;
        return {
          type: stored.Type,
          bank: stored.BankAccount?.Code,
          lines: stored.LineItems.map((l) => [l.AccountCode, l.LineAmount]),
        };
      };
      const receipt = await target.push(surcharge, context);
      expect(shape(receipt.remoteIds[0])).toEqual({
        type: 'RECEIVE',
        bank: defaultAccountCodes.ProcessorClearing,
        lines: [[defaultAccountCodes.SurchargeIncome, 3.2]],
      });
      const kept = await target.push(fee, context);
      expect(shape(kept.remoteIds[0])).toEqual({
        type: 'SPEND',
        bank: defaultAccountCodes.ProcessorClearing,
        lines: [[defaultAccountCodes.ProcessingFees, 3.2]],
      });
      expect(xero.violations).toEqual([]);
    });
  });

  describe('at Tryton (a real one)', { timeout: 300_000 }, () => {
    let tryton: TrytonServer;
    beforeAll(async () => {
      tryton = await startTryton({ queue: false });
    }, 300_000);
    afterAll(async () => {
      await tryton?.close();
    });

    it('posted moves on the roles’ accounts: clearing, Surcharge Income and Processing Fees', async () => {
      const codes = [
        defaultAccountCodes.ProcessorClearing,
        defaultAccountCodes.SurchargeIncome,
        defaultAccountCodes.ProcessingFees,
      ];
      const before = await tryton.balances(codes);
      const target = trytonTarget(tryton);
      const { surcharge, fee } = await documents();
      await target.push(surcharge, context);
      await target.push(fee, context);
      const after = await tryton.balances(codes);
      expect(codes.map((code) => (after[code] ?? 0) - (before[code] ?? 0))).toEqual([0, -3_20, 3_20]);
    });
  });
});
