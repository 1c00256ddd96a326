import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import { TargetConfigurationError } from '../../../src/targets/errors.js';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import { xeroBooksyncChart } from '../../support/booksync-charts.js';
import { xeroOrganisation } from '../../support/xero/organisation.js';

// Start-up's check of each role's account type in Xero (src/targets/xero/account-types.ts): a role mapped to
// an account its documents cannot use stops start-up, naming the role, the account's code, its type and the
// type the role requires, before Xero refuses the documents one by one.

const double = new XeroDouble();
const cipher = new TokenCipher('test-secret-for-xero-account-types');
// booksync's accounts already in place: this test is about verify()'s type checks, not set-up.
const booksyncChart = { chart: xeroBooksyncChart } as const;

beforeAll(async () => {
  await double.start();
});
afterAll(async () => {
  await double.stop();
});

const accountOf = (tenantId: string, code: string) => {
  const account = double.all(tenantId, 'Accounts').find((a) => a.Code === code);
  if (!account) throw new Error(`the double holds no account ${code}`);
  return account;
};

async function problemsOf(tenantId: string, accounts = defaultAccountCodes): Promise<string[]> {
  const error = await xeroOrganisation(double, cipher, { tenantId, accounts })
    .target()
    .verify()
    .then(
      () => null,
      (e: Error) => e,
    );
  if (error === null) return [];
  expect(error).toBeInstanceOf(TargetConfigurationError);
  return (error as TargetConfigurationError).problems as string[];
}

describe('Xero verify(): the type of each role’s account', () => {
  it('passes on booksync’s chart', async () => {
    expect(await problemsOf(double.createTenant(undefined, booksyncChart))).toEqual([]);
  });

  it('names a money role on a non-bank account, an income role on an expense, and a bank account as an expense', async () => {
    const tenantId = double.createTenant(undefined, booksyncChart);
    const clearing = accountOf(tenantId, defaultAccountCodes.ProcessorClearing);
    clearing.Type = 'CURRENT';
    delete clearing.BankAccountNumber;
    delete clearing.BankAccountType;
    accountOf(tenantId, defaultAccountCodes.Refunds).Type = 'EXPENSE';
    const problems = await problemsOf(tenantId, {
      ...defaultAccountCodes,
      BillExpenses: defaultAccountCodes.OperatingBank,
    });
    expect(problems).toEqual([
      'account ProcessorClearing (code 1020, Processor Clearing) is CURRENT in Xero; ProcessorClearing requires BANK, not a system account',
      'account Refunds (code 4010, Refunds) is EXPENSE in Xero; Refunds requires REVENUE or SALES or OTHERINCOME, not a system account',
      'account BillExpenses (code 1010, Operating Bank) is BANK in Xero; BillExpenses requires EXPENSE or OVERHEADS or DIRECTCOSTS, not a system account',
    ]);
  });

  it('holds the receivable and payable to Xero’s system accounts, and keeps other roles off them', async () => {
    const tenantId = double.createTenant(undefined, booksyncChart);
    double.seed(tenantId, 'Accounts', {
      Code: '1210',
      Name: 'Other Receivables',
      Type: 'CURRENT',
      Class: 'ASSET',
      Status: 'ACTIVE',
      EnablePaymentsToAccount: false,
    });
    const problems = await problemsOf(tenantId, {
      ...defaultAccountCodes,
      AccountsReceivable: '1210',
      UnappliedCash: defaultAccountCodes.AccountsPayable,
    });
    // Payments are not enabled on the payable either: its type is what is named.
    expect(problems).toEqual([
      'account AccountsReceivable (code 1210, Other Receivables) is CURRENT in Xero; AccountsReceivable requires CURRENT (system account DEBTORS)',
      'account UnappliedCash (code 2000, Accounts Payable) is CURRLIAB (system account CREDITORS) in Xero; UnappliedCash requires CURRLIAB or LIABILITY with "Enable payments to this account"',
    ]);
  });
});
