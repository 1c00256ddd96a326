import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountRoles, defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import { xeroBooksyncChart } from '../../support/booksync-charts.js';
import { pushIndex } from '../../support/push-index.js';
import { xeroOrganisation } from '../../support/xero/organisation.js';
import { appliedWholeBalances, checkDepositScenario, returnedBalances } from '../check-deposit-documents.js';
import { withZeros } from '../figures-documents.js';

// A deposited check booked whole pushed to the Xero double: the deposit received into
// Checks To Deposit on Unapplied Cash (a bank transaction), each application a Payment of the invoice from
// Unapplied Cash (payments enabled on it), the clearing a bank transfer; Xero's own trial balance then equals
// the ledger's, and a returned check leaves everything as before it.

const double = new XeroDouble({ limits: { concurrent: 5, perMinute: 600, perDay: 5_000, windowMs: 1_000 } });
const cipher = new TokenCipher('test-secret-for-xero-check-deposits');

/** A new adapter on a new organisation, or a second connection to `tenantId`. */
const organisation = (tenantId?: string) =>
  xeroOrganisation(double, cipher, {
    tenantId,
    limits: { perMinute: 600, concurrent: 5, windowMs: 1_000, marginMs: 50 },
  }).target();

beforeAll(async () => {
  await double.start();
});
afterAll(async () => {
  await double.stop();
});

async function pushAll(documents: Awaited<ReturnType<typeof checkDepositScenario>>['documents']) {
  const target = organisation();
  const { pushed, context } = pushIndex({ mayExist: true });
  for (const doc of documents) pushed.set(doc.key, await target.push(doc, context));
  return { target, pushed };
}

describe('Xero: a check deposit booked whole', () => {
  it('start-up names an Unapplied Cash account without payments enabled: applications could not pay invoices', async () => {
    // booksync's accounts already in place: this test is about Unapplied Cash's payments flag, not set-up.
    const tenantId = double.createTenant(undefined, { chart: xeroBooksyncChart });
    const target = organisation(tenantId);
    await target.verify();
    const unapplied = double
      .all(tenantId, 'Accounts')
      .find((a) => a.Code === defaultAccountCodes.UnappliedCash);
    if (!unapplied) throw new Error('the double holds no Unapplied Cash');
    unapplied.EnablePaymentsToAccount = false;
    const error = (await organisation(tenantId)
      .verify()
      .catch((e: Error) => e)) as Error;
    expect(error?.name).toBe('TargetConfigurationError');
    expect(error.message).toContain(
      'account UnappliedCash (code 2020, Unapplied Cash) needs "Enable payments to this account" in Xero',
    );
  });

  it('a check of 150,000 cents deposited, 100,000 applied, cleared, 50,000 applied after: bank 150,000, A/R and Unapplied Cash 0', async () => {
    const scenario = await checkDepositScenario('applied-after-clearing');
    const { target, pushed } = await pushAll(scenario.documents);
    expect(pushed.get(`check-application:ep2_${scenario.run}`)?.remoteIds[0]).toMatch(/^Payment:/);
    const figures = await target.figuresAsOf('2026-03-31');
    expect(figures.balances).toEqual(withZeros(appliedWholeBalances, accountRoles));
    expect(figures.openInvoices).toEqual({});
  });

  it('a returned check reverses every document: bank, checks and Unapplied Cash 0, both invoices owed again', async () => {
    const scenario = await checkDepositScenario('returned');
    const { target } = await pushAll(scenario.documents);
    const figures = await target.figuresAsOf('2026-03-31');
    expect(figures.balances).toEqual(withZeros(returnedBalances, accountRoles));
    expect(figures.openInvoices).toEqual({ [scenario.links.A]: 1_000_00, [scenario.links.B]: 500_00 });
  });
});
