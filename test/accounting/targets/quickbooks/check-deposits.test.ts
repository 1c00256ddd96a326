import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { accountRoles } from '../../../../src/accounting/targets/account-mapping.js';
import { TokenCipher } from '../../../../src/accounting/targets/quickbooks/index.js';
import type { PushContext, RemoteRecord } from '../../../../src/accounting/targets/target-port.js';
import { quickBooksCompany } from '../../../support/quickbooks/company.js';
import { QuickBooksDouble } from '../../../support/quickbooks/double.js';
import { appliedWholeBalances, checkDepositScenario, returnedBalances } from '../check-deposit-documents.js';
import { withZeros } from '../figures-documents.js';

// A deposited check booked whole (issue 30 item 4) pushed to the QuickBooks double: the deposit a Deposit into
// Checks To Deposit from Unapplied Cash, each application a journal entry from Unapplied Cash to the
// customer's A/R (a Payment deposits only into an asset account), the clearing a Deposit to the bank; QBO's
// own trial balance then equals the ledger's, and a returned check leaves everything as before it.

const double = new QuickBooksDouble();
const cipher = new TokenCipher('test-secret-for-quickbooks-check-deposits');

beforeAll(async () => {
  await double.start();
});
afterAll(async () => {
  await double.stop();
});
afterEach(() => {
  expect(double.violations).toEqual([]);
});

async function pushAll(documents: Awaited<ReturnType<typeof checkDepositScenario>>['documents']) {
  const { realmId, target } = quickBooksCompany(double, cipher);
  const pushed = new Map<string, RemoteRecord>();
  const context: PushContext = {
    mayExist: () => true,
    refusals: () => 0,
    pushed: (key) => pushed.get(key) ?? null,
  };
  for (const doc of documents) pushed.set(doc.key, await target().push(doc, context));
  return { realmId, target: target(), pushed };
}

describe('QuickBooks Online: a check deposit booked whole', () => {
  it('a check of 150,000 cents deposited, 100,000 applied, cleared, 50,000 applied after: bank 150,000, A/R and Unapplied Cash 0', async () => {
    const scenario = await checkDepositScenario('applied-after-clearing');
    expect(scenario.ledgerBalances).toEqual(appliedWholeBalances);
    const { realmId, target, pushed } = await pushAll(scenario.documents);
    expect([...pushed.keys()].filter((k) => k.startsWith('check-'))).toHaveLength(4);
    expect(pushed.get(`check-deposited:cd_${scenario.run}`)?.remoteIds[0]).toMatch(/^Deposit:/);
    expect(pushed.get(`check-application:ep2_${scenario.run}`)?.remoteIds[0]).toMatch(/^JournalEntry:/);
    const figures = await target.figuresAsOf('2026-03-31');
    expect(figures.balances).toEqual(withZeros(appliedWholeBalances, accountRoles));
    expect(figures.openInvoices).toEqual({});
    expect(double.all(realmId, 'Deposit')).toHaveLength(2);
  });

  it('a returned check reverses every document: bank, checks and Unapplied Cash 0, both invoices owed again', async () => {
    const scenario = await checkDepositScenario('returned');
    expect(scenario.ledgerBalances).toEqual(returnedBalances);
    const { target } = await pushAll(scenario.documents);
    const figures = await target.figuresAsOf('2026-03-31');
    expect(figures.balances).toEqual(withZeros(returnedBalances, accountRoles));
    expect(figures.openInvoices).toEqual({ [scenario.links.A]: 1_000_00, [scenario.links.B]: 500_00 });
  });
});
