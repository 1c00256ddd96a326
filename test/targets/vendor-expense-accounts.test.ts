import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  billExpenseCode,
  defaultAccountCodes,
  parseAccountMapping,
  parseVendorExpenseAccounts,
  type VendorExpenseAccounts,
  vendorExpenseCodes,
} from '../../src/targets/account-mapping.js';
import { TargetConfigurationError } from '../../src/targets/errors.js';
import { TokenCipher } from '../../src/targets/oauth/token-cipher.js';
import type { PushContext, TargetDocument } from '../../src/targets/target-port.js';
import { createTrytonTarget } from '../../src/targets/tryton/index.js';
import { doubleForFile } from '../support/double-for-file.js';
import { quickBooksCompany } from '../support/quickbooks/company.js';
import { startTryton, type TrytonServer } from '../support/tryton.js';
import { xeroOrganisation } from '../support/xero/organisation.js';

// VENDOR_EXPENSE_ACCOUNTS: a vendor's bills are expensed to an account of the business's own chart (rent to
// Rent), every other vendor's to Bill Expenses. Each target writes the bill's expense line there, counts
// that account in Bill Expenses' figure (the ledger's Bill Expenses is every bill), and refuses at start-up
// an account it does not have.

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const landlord = { serviceId: `ven_rent_${run}`, name: `Landlord ${run}`, email: null };
const supplier = { serviceId: `ven_misc_${run}`, name: `Supplier ${run}`, email: null };
const rentCode = '6300';
const vendors: VendorExpenseAccounts = { [landlord.serviceId]: rentCode };

function bill(vendor: typeof landlord, n: number, cents: number): TargetDocument {
  const billId = `bill_${run}_${n}`;
  return {
    key: `bill:${billId}`,
    kind: 'bill',
    date: '2026-11-03',
    description: `Bill ${billId} from vendor ${vendor.serviceId}`,
    amountCents: cents,
    lines: [
      { role: 'BillExpenses', amountCents: cents },
      { role: 'AccountsPayable', amountCents: -cents },
    ],
    contentHash: String(n).repeat(64),
    bill: { billId, number: `VB-${run}-${n}`, dueDate: '2026-11-30' },
    vendor,
    reference: billId,
  };
}

const context: PushContext = {
  mayExist: () => false,
  refusals: () => 0,
  pushed: () => null,
  closedThrough: null,
};
const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';

describe('VENDOR_EXPENSE_ACCOUNTS, as read', () => {
  const mapping = parseAccountMapping(undefined);

  it('maps each vendor to its account; a vendor it does not name keeps Bill Expenses', () => {
    const parsed = parseVendorExpenseAccounts(' ven_a=6300, ven_b = 6310 ,ven_c=6020', mapping);
    expect(parsed).toEqual({ ven_a: '6300', ven_b: '6310', ven_c: '6020' });
    expect(billExpenseCode(mapping, parsed, 'ven_a')).toBe('6300');
    expect(billExpenseCode(mapping, parsed, 'ven_z')).toBe(defaultAccountCodes.BillExpenses);
    expect(billExpenseCode(mapping, parsed, undefined)).toBe(defaultAccountCodes.BillExpenses);
    // Bill Expenses' own account is not added to itself.
    expect(vendorExpenseCodes(mapping, parsed)).toEqual(['6300', '6310']);
  });

  it('refuses, one line each, a pair without a vendor or an account, an account of another role, and two accounts for a vendor', () => {
    expect(() =>
      parseVendorExpenseAccounts(
        `=6300,ven_a,ven_b=${defaultAccountCodes.OperatingBank},ven_c=6300,ven_c=6310`,
        mapping,
      ),
    ).toThrow(
      'VENDOR_EXPENSE_ACCOUNTS: "=6300" names no vendor; vendor ven_a has no account; vendor ven_b: account 1010 is OperatingBank\'s, not an expense account; vendor ven_c is given two accounts (6300 and 6310)',
    );
  });
});

describe('QuickBooks Online (the double)', () => {
  const qbo = doubleForFile(new QuickBooksDouble());
  const cipher = new TokenCipher('test-secret-for-vendor-expense-accounts');

  it("a mapped vendor's Bill is expensed to its account, another's to Bill Expenses; the figures add both to Bill Expenses", async () => {
    const company = quickBooksCompany(qbo, cipher);
    const rent = qbo.seed(company.realmId, 'Account', {
      Name: 'Rent or Lease',
      AcctNum: rentCode,
      AccountType: 'Expense',
      AccountSubType: 'RentOrLeaseOfBuildings',
      Active: true,
    });
    const target = company.target(vendors);
    await target.verify();
    const rentBill = await target.push(bill(landlord, 1, 1_500_00), context);
    const otherBill = await target.push(bill(supplier, 2, 75_25), context);
    const accountOf = (remoteId: string | undefined) => {
      const stored = qbo.get(company.realmId, 'Bill', idOf(remoteId)) as unknown as {
        Line: { AccountBasedExpenseLineDetail: { AccountRef: { value: string } } }[];
      };
      const id = stored.Line[0]?.AccountBasedExpenseLineDetail.AccountRef.value ?? '';
      return qbo.get(company.realmId, 'Account', id)?.AcctNum;
    };
    expect(accountOf(rentBill.remoteIds[0])).toBe(rentCode);
    expect(accountOf(otherBill.remoteIds[0])).toBe(defaultAccountCodes.BillExpenses);
    const figures = await target.figuresAsOf('2026-11-03');
    expect(figures.balances.BillExpenses).toBe(1_575_25);
    expect(qbo.balanceOf(company.realmId, rentCode)).toBe(1_500_00);
    expect(rent.Id).toBeTruthy();
  });

  it('refuses at start-up a vendor account the company does not have, or one that is not an expense', async () => {
    const company = quickBooksCompany(qbo, cipher);
    qbo.seed(company.realmId, 'Account', {
      Name: 'Petty Cash',
      AcctNum: '1090',
      AccountType: 'Bank',
      AccountSubType: 'CashOnHand',
      Active: true,
    });
    const target = company.target({ [landlord.serviceId]: rentCode, [supplier.serviceId]: '1090' });
    const refused = await target.verify().then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(TargetConfigurationError);
    const message = String((refused as Error).message);
    expect(message).toContain(
      `BillExpenses of vendor ${landlord.serviceId}: no QuickBooks account with number or id ${rentCode}`,
    );
    expect(message).toMatch(/BillExpenses.*1090|1090.*BillExpenses/);
  });
});

describe('Xero (the double)', { timeout: 60_000 }, () => {
  const xero = doubleForFile(
    new XeroDouble({ limits: { concurrent: 5, perMinute: 60, perDay: 5_000, windowMs: 1_000 } }),
    { calm: true },
  );
  const cipher = new TokenCipher('test-secret-for-vendor-expense-accounts-xero');

  it("a mapped vendor's ACCPAY invoice is on its account, another's on Bill Expenses; the figures add both to Bill Expenses", async () => {
    const organisation = xeroOrganisation(xero, cipher, { lockTtlMs: 0 });
    xero.seed(organisation.tenantId, 'Accounts', {
      Code: rentCode,
      Name: 'Rent',
      Type: 'OVERHEADS',
      Class: 'EXPENSE',
      Status: 'ACTIVE',
      EnablePaymentsToAccount: false,
    });
    const target = organisation.target(vendors);
    await target.verify();
    const rentBill = await target.push(bill(landlord, 1, 1_500_00), context);
    const otherBill = await target.push(bill(supplier, 2, 75_25), context);
    const codeOf = (remoteId: string | undefined) =>
      (
        (xero.get(organisation.tenantId, 'Invoices', idOf(remoteId))?.LineItems ?? []) as {
          AccountCode: string;
        }[]
      )[0]?.AccountCode;
    expect(codeOf(rentBill.remoteIds[0])).toBe(rentCode);
    expect(codeOf(otherBill.remoteIds[0])).toBe(defaultAccountCodes.BillExpenses);
    const figures = await target.figuresAsOf('2026-11-03');
    expect(figures.balances.BillExpenses).toBe(1_575_25);
    expect(xero.balanceOf(organisation.tenantId, rentCode)).toBe(1_500_00);
  });

  it('refuses at start-up a vendor account the organisation does not have, or one that is not an expense', async () => {
    const organisation = xeroOrganisation(xero, cipher, { lockTtlMs: 0 });
    xero.seed(organisation.tenantId, 'Accounts', {
      Code: '4300',
      Name: 'Other Income',
      Type: 'OTHERINCOME',
      Class: 'REVENUE',
      Status: 'ACTIVE',
      EnablePaymentsToAccount: false,
    });
    const target = organisation.target({
      [landlord.serviceId]: rentCode,
      [supplier.serviceId]: '4300',
    });
    const refused = await target.verify().then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(TargetConfigurationError);
    const message = String((refused as Error).message);
    expect(message).toContain(
      `account BillExpenses of vendor ${landlord.serviceId} (code ${rentCode}) is not in the Xero organisation`,
    );
    expect(message).toMatch(/BillExpenses[^;]*4300|4300[^;]*BillExpenses/);
  });
});

describe('Tryton (real, on PostgreSQL)', { timeout: 180_000 }, () => {
  let tryton: TrytonServer;
  beforeAll(async () => {
    // No worker or scheduler needed: a supplier invoice renders no report.
    tryton = await startTryton({ queue: false });
  }, 300_000);
  afterAll(async () => {
    await tryton?.close();
  });

  const target = (vendorExpenses: VendorExpenseAccounts) =>
    createTrytonTarget({
      url: tryton.url,
      database: tryton.database,
      username: tryton.username,
      password: tryton.password,
      accounts: defaultAccountCodes,
      vendorExpenses,
      matching: 'create',
    });

  it("a mapped vendor's supplier invoice is on its account, another's on Bill Expenses; the figures add both to Bill Expenses", async () => {
    // Rent, an expense account of the business's own chart, beside booksync's Bill Expenses.
    const [expenses] = await tryton.rpc.searchRead<{ type: number; parent: number }>(
      'account.account',
      [['code', '=', defaultAccountCodes.BillExpenses]],
      ['type', 'parent'],
    );
    await tryton.rpc.model('account.account', 'create', [
      { code: rentCode, name: 'Rent', type: expenses?.type, parent: expenses?.parent },
    ]);
    const tryt = target(vendors);
    await tryt.verify();
    const rentBill = await tryt.push(bill(landlord, 1, 1_500_00), context);
    const otherBill = await tryt.push(bill(supplier, 2, 75_25), context);
    const codeOf = async (remoteIds: string[]) => {
      const invoice = Number(remoteIds.find((r) => r.startsWith('account.invoice,'))?.split(',')[1]);
      const [line] = await tryton.rpc.searchRead<{ account: number }>(
        'account.invoice.line',
        [['invoice', '=', invoice]],
        ['account'],
      );
      const [account] = await tryton.rpc.searchRead<{ code: string }>(
        'account.account',
        [['id', '=', line?.account ?? 0]],
        ['code'],
      );
      return account?.code;
    };
    expect(await codeOf(rentBill.remoteIds)).toBe(rentCode);
    expect(await codeOf(otherBill.remoteIds)).toBe(defaultAccountCodes.BillExpenses);
    const figures = await tryt.figuresAsOf('2026-11-03');
    expect(figures.balances.BillExpenses).toBe(1_575_25);
    expect((await tryton.balances([rentCode]))[rentCode]).toBe(1_500_00);
  });

  it("refuses at start-up a vendor account Tryton's chart does not have, or one that is not an expense", async () => {
    const refused = await target({
      [landlord.serviceId]: '6399',
      [supplier.serviceId]: defaultAccountCodes.Revenue,
    })
      .verify()
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(refused).toBeInstanceOf(TargetConfigurationError);
    const message = String((refused as Error).message);
    expect(message).toContain(
      `account 6399 (BillExpenses of vendor ${landlord.serviceId}) is not in Tryton's chart of accounts`,
    );
    expect(message).toMatch(/BillExpenses[^;]*4000|4000[^;]*BillExpenses/);
  });
});
