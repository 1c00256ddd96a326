import { describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import type { AccountRole } from '../../src/targets/account-mapping.js';
import { LedgerMirrorTarget } from '../../src/targets/ledger-mirror-target.js';
import { appliedWholeBalances, checkDepositScenario, returnedBalances } from './check-deposit-documents.js';

// A deposited check booked whole pushed to the ledger mirror: the mirror's balances equal
// the ledger's, for a check applied in part, cleared and applied in full after, and for a returned check.

async function mirrored(outcome: 'applied-after-clearing' | 'returned') {
  const scenario = await checkDepositScenario(outcome);
  const mirror = EmbeddedLedger.open();
  try {
    const target = new LedgerMirrorTarget(mirror);
    for (const doc of scenario.documents) await target.push(doc);
    const balances: Partial<Record<AccountRole, number>> = {};
    for (const role of Object.keys(appliedWholeBalances) as AccountRole[])
      balances[role] = await mirror.balanceOf(Accounts[role]);
    return balances;
  } finally {
    mirror.close();
  }
}

describe('ledger mirror: a check deposit booked whole', () => {
  it('a check of 150,000 cents, 100,000 applied, cleared, 50,000 applied after: bank 150,000, A/R 0', async () => {
    expect(await mirrored('applied-after-clearing')).toEqual(appliedWholeBalances);
  });
  it('a returned check: everything back', async () => {
    expect(await mirrored('returned')).toEqual(returnedBalances);
  });
});
