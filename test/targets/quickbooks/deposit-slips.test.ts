import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { describe, expect, it } from 'vitest';
import { accountRoles, defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import { TokenCipher } from '../../../src/targets/quickbooks/index.js';
import type { PushContext, RemoteRecord, TargetDocument } from '../../../src/targets/target-port.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { quickBooksCompany } from '../../support/quickbooks/company.js';
import { depositedBalances, depositSlipScenario } from '../deposit-slip-documents.js';
import { withZeros } from '../figures-documents.js';

// A deposit slip pushed to the QuickBooks double: the two checks received outside the service are Payments
// into Checks To Deposit, the slip one Deposit into Operating Bank with one line from Checks To Deposit for
// the total, its DocNumber the slip's number; QBO's trial balance then has Checks To Deposit back at 0.

const double = doubleForFile(new QuickBooksDouble());
const cipher = new TokenCipher('test-secret-for-quickbooks-deposit-slips');

describe('QuickBooks Online: a deposit slip', () => {
  it('is one Deposit into Operating Bank from Checks To Deposit; Checks To Deposit back to 0', async () => {
    const scenario = await depositSlipScenario();
    expect(scenario.ledgerBalances).toEqual(depositedBalances);
    const slip = scenario.documents.find(
      (d) => d.key === `deposit-slip:${scenario.reference}`,
    ) as TargetDocument;
    expect(slip).toMatchObject({
      kind: 'check-cleared',
      amountCents: 500_00,
      businessReference: scenario.reference,
      lines: [
        { role: 'OperatingBank', amountCents: 500_00 },
        { role: 'ChecksToDeposit', amountCents: -500_00 },
      ],
    });

    const { realmId, target } = quickBooksCompany(double, cipher);
    const adapter = target();
    const pushed = new Map<string, RemoteRecord>();
    const context: PushContext = {
      mayExist: () => true,
      refusals: () => 0,
      pushed: (key) => pushed.get(key) ?? null,
      closedThrough: null,
    };
    for (const doc of scenario.documents) pushed.set(doc.key, await adapter.push(doc, context));

    const remote = pushed.get(slip.key)?.remoteIds[0] ?? '';
    expect(remote).toMatch(/^Deposit:/);
    const deposit = double.get(realmId, 'Deposit', remote.split(':')[1] as string);
    expect(deposit?.DocNumber).toBe(scenario.reference.slice(0, 21));
    const lines = deposit?.Line as { Amount: number; DepositLineDetail: { AccountRef: { value: string } } }[];
    expect(lines).toHaveLength(1);
    expect(lines[0]?.Amount).toBe(500);
    expect(double.balanceOf(realmId, defaultAccountCodes.ChecksToDeposit)).toBe(0);
    expect(double.balanceOf(realmId, defaultAccountCodes.OperatingBank)).toBe(500_00);
    const figures = await adapter.figuresAsOf('2026-03-31');
    expect(figures.balances).toEqual(withZeros(depositedBalances, accountRoles));

    // Pushed again (a retry after a lost answer): found, not made twice.
    const again = await target().push(slip, context);
    expect(again.remoteIds[0]).toBe(remote);
    expect(double.all(realmId, 'Deposit')).toHaveLength(1);
  });
});
