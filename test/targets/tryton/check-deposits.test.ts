import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountRoles } from '../../../src/targets/account-mapping.js';
import { pushIndex } from '../../support/push-index.js';
import { startTryton, type TrytonServer, trytonTarget } from '../../support/tryton.js';
import { appliedWholeBalances, checkDepositScenario, returnedBalances } from '../check-deposit-documents.js';
import { withZeros } from '../figures-documents.js';

// A deposited check booked whole pushed to a real Tryton on PostgreSQL: every document a
// move on the mapped accounts (2020 Unapplied Cash from scripts/tryton/setup-database.py), the applications'
// receivable lines on the links' invoices; Tryton's own figures then equal the ledger's, and a returned
// check leaves everything as before it. The two scenarios share one Tryton, so the second is compared by
// its difference.

let tryton: TrytonServer;
const connect = () => trytonTarget(tryton);

beforeAll(async () => {
  tryton = await startTryton();
}, 300_000);
afterAll(async () => {
  await tryton?.close();
});

async function pushAll(documents: Awaited<ReturnType<typeof checkDepositScenario>>['documents']) {
  const { pushed, context } = pushIndex({ mayExist: true });
  for (const doc of documents) pushed.set(doc.key, await connect().push(doc, context));
  return pushed;
}

describe('Tryton: a check deposit booked whole', { timeout: 300_000 }, () => {
  it('a check of 150,000 cents deposited, 100,000 applied, cleared, 50,000 applied after, then a returned one', async () => {
    const scenario = await checkDepositScenario('applied-after-clearing');
    await pushAll(scenario.documents);
    const figures = await connect().figuresAsOf('2026-03-31');
    expect(figures.balances).toEqual(withZeros(appliedWholeBalances, accountRoles));
    expect(figures.openInvoices).toEqual({});

    const returned = await checkDepositScenario('returned');
    await pushAll(returned.documents);
    const after = await connect().figuresAsOf('2026-03-31');
    const sum = (a: number | undefined, b: number | undefined) => (a ?? 0) + (b ?? 0);
    expect(after.balances).toEqual(
      withZeros(
        Object.fromEntries(
          accountRoles.map((role) => [role, sum(appliedWholeBalances[role], returnedBalances[role])]),
        ),
        accountRoles,
      ),
    );
    expect(after.openInvoices).toEqual({ [returned.links.A]: 1_000_00, [returned.links.B]: 500_00 });
  });
});
