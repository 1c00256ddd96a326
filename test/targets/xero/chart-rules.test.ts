import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from 'xero-node';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import { idempotencyKey } from '../../../src/targets/xero/keys.js';
import { xeroOrganisation } from '../../support/xero/organisation.js';

// Xero's rules for creating an account (PUT /Accounts) as the double holds them (packages/vendor-doubles/src/xero/README.md):
// Name and Type given, Code at most 10 characters, Code and Name unique, a BANK account with its number; and
// the demo company's chart a new organisation can start with.

const double = new XeroDouble();
const cipher = new TokenCipher('test-secret-for-xero-chart-rules');

beforeAll(async () => {
  await double.start();
});
afterAll(async () => {
  await double.stop();
});

/** An account as Xero names its fields (`Code`), sent through the SDK (which takes them as `code`). */
async function create(tenantId: string, fields: Record<string, unknown>): Promise<string[]> {
  const account = Object.fromEntries(
    Object.entries(fields).map(([k, v]) => [k.charAt(0).toLowerCase() + k.slice(1), v]),
  );
  const { client } = xeroOrganisation(double, cipher, { tenantId }).target();
  return client
    .call('createAccount', (api, t) =>
      api.createAccount(t, account as Account, idempotencyKey(t, 'account', 'create', account)),
    )
    .then(
      () => [],
      (e: Error) => [e.message],
    );
}

describe('the Xero double: accounts', () => {
  it("starts a demo organisation with Xero's chart: the receivable and payable its system accounts", () => {
    const tenantId = double.createTenant('Demo Company (Global)', { chart: 'demo' });
    const chart = double.all(tenantId, 'Accounts');
    expect(chart.find((a) => a.Code === '610')).toMatchObject({
      Name: 'Accounts Receivable',
      Type: 'CURRENT',
      SystemAccount: 'DEBTORS',
    });
    expect(chart.find((a) => a.Code === '800')).toMatchObject({
      Type: 'CURRLIAB',
      SystemAccount: 'CREDITORS',
    });
    expect(chart.find((a) => a.Code === '090')).toMatchObject({
      Type: 'BANK',
      Name: 'Business Bank Account',
    });
    expect(chart.some((a) => a.Code === '1010')).toBe(false);
  });

  it('creates an account with its Class from its Type; refuses a taken Code or Name, a bank account without number, a missing Name', async () => {
    const tenantId = double.createTenant(undefined, { chart: 'demo' });
    expect(await create(tenantId, { Code: '6000', Name: 'Processing Fees', Type: 'EXPENSE' })).toEqual([]);
    expect(double.all(tenantId, 'Accounts').find((a) => a.Code === '6000')).toMatchObject({
      Class: 'EXPENSE',
      Status: 'ACTIVE',
      EnablePaymentsToAccount: false,
    });
    expect(await create(tenantId, { Code: '200', Name: 'More Sales', Type: 'REVENUE' })).toEqual([
      expect.stringContaining('Please enter a unique Code.'),
    ]);
    expect(await create(tenantId, { Code: '201', Name: 'sales', Type: 'REVENUE' })).toEqual([
      expect.stringContaining('Please enter a unique Name.'),
    ]);
    expect(await create(tenantId, { Code: '1010', Name: 'Operating Bank', Type: 'BANK' })).toEqual([
      expect.stringContaining('Please enter a Bank Account Number.'),
    ]);
    expect(await create(tenantId, { Code: '1011', Type: 'EXPENSE' })).toEqual([
      expect.stringContaining('Please enter a Name.'),
    ]);
    expect(await create(tenantId, { Code: '12345678901', Name: 'Long', Type: 'EXPENSE' })).toEqual([
      expect.stringContaining('longer than 10'),
    ]);
    expect(
      await create(tenantId, {
        Code: '2020',
        Name: 'Unapplied Cash',
        Type: 'CURRLIAB',
        EnablePaymentsToAccount: true,
      }),
    ).toEqual([]);
    expect(
      await create(tenantId, {
        Code: '1010',
        Name: 'Operating Bank',
        Type: 'BANK',
        BankAccountNumber: '0900001010',
      }),
    ).toEqual([]);
    const chart = double.all(tenantId, 'Accounts');
    expect(chart.find((a) => a.Code === '2020')).toMatchObject({
      Class: 'LIABILITY',
      EnablePaymentsToAccount: true,
    });
    expect(chart.find((a) => a.Code === '1010')).toMatchObject({
      Class: 'ASSET',
      BankAccountNumber: '0900001010',
    });
    expect(double.violations).toEqual([]);
  });
});
