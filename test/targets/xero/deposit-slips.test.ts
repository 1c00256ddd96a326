import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountRoles, defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import { pushIndex } from '../../support/push-index.js';
import { xeroOrganisation } from '../../support/xero/organisation.js';
import { depositedBalances, depositSlipScenario } from '../deposit-slip-documents.js';
import { withZeros } from '../figures-documents.js';

// A deposit slip pushed to the Xero double: the checks received outside the service are Payments into
// Checks To Deposit (a BANK account), the slip one bank transfer from Checks To Deposit to Operating Bank for
// the total; Xero's trial balance then has Checks To Deposit back at 0.

const double = new XeroDouble({ limits: { concurrent: 5, perMinute: 600, perDay: 5_000, windowMs: 1_000 } });
const cipher = new TokenCipher('test-secret-for-xero-deposit-slips');

beforeAll(async () => {
  await double.start();
});
afterAll(async () => {
  await double.stop();
});

describe('Xero: a deposit slip', () => {
  it('is one bank transfer from Checks To Deposit to Operating Bank; Checks To Deposit back to 0', async () => {
    const scenario = await depositSlipScenario();
    const organisation = xeroOrganisation(double, cipher, {
      limits: { perMinute: 600, concurrent: 5, windowMs: 1_000, marginMs: 50 },
    });
    const target = organisation.target();
    const { pushed, context } = pushIndex({ mayExist: true });
    for (const doc of scenario.documents) pushed.set(doc.key, await target.push(doc, context));

    const remote = pushed.get(`deposit-slip:${scenario.reference}`)?.remoteIds[0] ?? '';
    expect(remote).toMatch(/^BankTransfer:/);
    const transfers = double.all(organisation.tenantId, 'BankTransfers');
    expect(transfers).toHaveLength(1);
    expect(transfers[0]).toMatchObject({
      FromBankAccount: { Code: defaultAccountCodes.ChecksToDeposit },
      ToBankAccount: { Code: defaultAccountCodes.OperatingBank },
      Amount: 500,
    });
    const figures = await target.figuresAsOf('2026-03-31');
    expect(figures.balances).toEqual(withZeros(depositedBalances, accountRoles));
    expect(figures.balances.ChecksToDeposit).toBe(0);
  });
});
