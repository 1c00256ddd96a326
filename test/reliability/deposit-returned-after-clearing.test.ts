import { newDeposit, newLink } from '@booksync/emulator/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-world.js';

// Hostile review: a check deposit that cleared and was returned later (emulator decision E2) stayed in the
// books as cleared, because the deposit workflow closes at CLEARED and reconciliation never looked at
// deposits. Reconciliation now walks check deposits and books what their state says.

let world: SyncWorld;

beforeAll(async () => {
  world = await startSyncWorld();
});
afterAll(async () => {
  await world?.close();
});

const liveKeys = async (checkDepositId: string) =>
  (await world.ledger.entriesFor({ checkDepositId }))
    .filter((e) => e.reverses === null && e.reversedBy === null)
    .map((e) => e.key.split(':')[0])
    .sort();

describe('a cleared check deposit returned later', () => {
  it('is reversed in the books by reconciliation, and a second run finds nothing to do', async () => {
    const { activities, emulator, ledger } = world;
    const deposit = await newDeposit(emulator.api, 4_200);
    const link = await newLink(emulator.api, 4_200);
    const applied = await activities.applyCheckDepositToLink({
      checkDepositId: deposit.id,
      paymentLinkId: link.id,
      externalReferenceId: `apply-${deposit.id}`,
      commandId: 'cmd-1',
    });
    await activities.syncCheckDeposit({
      checkDepositId: deposit.id,
      paymentLinkOf: { [applied.externalPaymentId]: link.id },
      reason: 'applied',
    });
    expect((await emulator.api('POST', `/sandbox/checkDeposits/${deposit.id}/clear`)).status).toBe(200);
    const cleared = await activities.syncCheckDeposit({
      checkDepositId: deposit.id,
      paymentLinkOf: {},
      reason: 'poll',
    });
    expect(cleared.status).toBe('CLEARED');
    expect(await liveKeys(deposit.id)).toEqual(['check-application', 'check-cleared', 'check-deposited']);
    const bankBefore = await ledger.balanceOf(Accounts.OperatingBank);

    // The bank returns the check after it cleared; no webhook says so and the workflow has closed.
    expect((await emulator.api('POST', `/sandbox/checkDeposits/${deposit.id}/return`)).status).toBe(200);
    expect(await liveKeys(deposit.id)).toEqual(['check-application', 'check-cleared', 'check-deposited']);

    const walk = async () => {
      const drift = [];
      let token: string | null = 'checkDeposits:1';
      while (token?.startsWith('checkDeposits')) {
        const page = await activities.reconcilePage({
          scope: { kind: 'all' },
          pageToken: token,
          pageSize: 50,
          runId: 'test',
        });
        drift.push(...page.drift.filter((d) => d.id === deposit.id));
        expect(page.problems).toEqual([]);
        token = page.nextPageToken;
      }
      return drift;
    };
    expect(await walk()).toEqual([
      {
        object: 'checkDeposit',
        id: deposit.id,
        posted: [],
        reversed: ['check-deposited', 'check-application', 'check-cleared'],
      },
    ]);
    expect(await liveKeys(deposit.id)).toEqual([]);
    expect(await ledger.balanceOf(Accounts.OperatingBank)).toBe(bankBefore - 4_200);
    // The link is owed again in the books, as at the service.
    const owed = (await ledger.openItems('receivable')).find((i) => i.documentId === link.id);
    const fetched = await world.service.getPaymentLink(link.id);
    expect(owed?.openCents).toBe(fetched.requestedAmountCents - fetched.completedAmountCents);
    expect(owed?.openCents).toBe(4_200);
    expect(await walk()).toEqual([]);
  });
});
