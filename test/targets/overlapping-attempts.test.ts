import { setTimeout as sleep } from 'node:timers/promises';
import { type Harness, startHarness } from '@booksync/emulator/harness';
import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { markerTextOf, XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PushToTargetResult } from '../../src/flows/push/activities-contract.js';
import { markersIn } from '../../src/targets/markers.js';
import { TokenCipher } from '../../src/targets/oauth/token-cipher.js';
import type { AccountingTarget, PushContext, TargetDocument } from '../../src/targets/target-port.js';
import { quietActivityEnvironment, runActivity } from '../flows/fakes.js';
import { OpenAmountsWorld } from '../support/open-amounts-world.js';
import { startTryton, type TrytonServer, trytonTarget } from '../support/tryton.js';

// A push attempt times out while its request is on its way
// to the accounting software (Temporal sees no heartbeat; the worker still runs it), the retry Temporal
// started runs beside it with a slice that has grown since (another payment booked: another batch, so another
// batch request id at QuickBooks and Idempotency-Key at Xero, neither deduplicating the two). The retry takes
// the lease, so the straggler can mark nothing more, and waits for the straggler's write still in flight
// (PUSH_IN_FLIGHT_WAIT_SECONDS) before looking its entries up: one document per entry at every target.
// Looked up before that write landed, the entries were absent and created a second time.
//
// The real push activity (MockActivityEnvironment, one per attempt), the real adapters against the QuickBooks
// and Xero doubles, a real Tryton 8.2 on PostgreSQL and the ledger mirror, the real emulator
// (test/support/open-amounts-world.ts).

/** The first write of one target, held on its way (as a request in flight is) until released. */
class HeldWrite {
  armed = false;
  #reached: () => void = () => {};
  #release: () => void = () => {};
  readonly reached = new Promise<void>((resolve) => {
    this.#reached = resolve;
  });
  readonly released = new Promise<void>((resolve) => {
    this.#release = resolve;
  });

  release(): void {
    this.#release();
  }

  /** Once armed, the first write waits until release(), then goes to the target. */
  async #hold(): Promise<void> {
    if (!this.armed) return;
    this.armed = false;
    this.#reached();
    await this.released;
  }

  /** The same target, its first write held while armed. */
  around(target: AccountingTarget): AccountingTarget {
    const hold = () => this.#hold();
    return {
      name: target.name,
      batches: target.batches,
      verify: () => target.verify(),
      async push(document: TargetDocument, context: PushContext) {
        await hold();
        return target.push(document, context);
      },
      async pushMany(documents: TargetDocument[], context: PushContext) {
        await hold();
        return target.pushMany(documents, context);
      },
      find: (key) => target.find(key),
      lockedThrough: () => target.lockedThrough(),
      warning: () => target.warning(),
      close: () => target.close(),
    };
  }
}

const double = {
  qbo: new QuickBooksDouble(),
  xero: new XeroDouble({ limits: { concurrent: 5, perMinute: 6_000, perDay: 100_000, windowMs: 1_000 } }),
};
const cipher = new TokenCipher('test-secret-for-overlapping-push-attempts');
let harness: Harness;
let tryton: TrytonServer;

beforeAll(async () => {
  harness = await startHarness();
  await double.qbo.start();
  await double.xero.start();
  tryton = await startTryton();
}, 180_000);
afterAll(async () => {
  await double.qbo.stop();
  await double.xero.stop();
  await tryton?.stop();
  await harness?.close();
});

/** The booksync entry keys each document at the target carries, one per document (several on none). */
function keysAtTarget(world: OpenAmountsWorld, target: string): Promise<string[]> | string[] {
  if (target === 'quickbooks') {
    const entities = [
      'Invoice',
      'Payment',
      'SalesReceipt',
      'JournalEntry',
      'CreditMemo',
      'Deposit',
      'Purchase',
    ];
    return entities.flatMap((entity) =>
      double.qbo
        .all(world.qbo.realmId, entity)
        .flatMap((doc) => markersIn(doc.PrivateNote).map((m) => m.key)),
    );
  }
  if (target === 'xero')
    return double.xero
      .booked(world.xero.tenantId)
      .flatMap((doc) => markersIn(markerTextOf(doc)).map((m) => m.key));
  if (target === 'tryton') return trytonKeys(world);
  return world.mirror.allEntries().then((entries) => entries.map((e) => e.key));
}

/** The entry key of each Tryton move and invoice booksync made for this world's entries (its description's marker). */
async function trytonKeys(world: OpenAmountsWorld): Promise<string[]> {
  const mine = new Set((await world.ledger.allEntries()).map((e) => e.key));
  const described = async (model: string) =>
    tryton.rpc.searchRead<{ description: string | null }>(
      model,
      [['description', 'like', 'booksync:%']],
      ['description'],
    );
  return [...(await described('account.move')), ...(await described('account.invoice'))]
    .map((r) => (r.description as string).slice('booksync:'.length).split(' ')[0] as string)
    .filter((key) => mine.has(key));
}

describe('a push attempt that timed out with its write on the way, and the retry beside it', () => {
  it.each(['quickbooks', 'xero', 'tryton', 'ledger-mirror'])(
    '%s: the retry waits for the write in flight, then every entry is in the target once',
    async (name) => {
      const held = new HeldWrite();
      const world = await OpenAmountsWorld.open(harness, double, cipher, {
        targets: (target) => (target.name === name ? held.around(target) : target),
        // Tryton takes seconds a document: only in its own case.
        more: name === 'tryton' ? [trytonTarget(tryton)] : [],
      });
      try {
        for (const [cents, customer] of [
          [10_00, 0],
          [20_00, 1],
        ] as const)
          await world.createLink(cents, customer);
        await world.pay(world.links[0]!, 'Card', undefined, true);

        // Attempt 1 marks the slice attempted and sends it; its write is on its way when Temporal gives up
        // on it (a lost heartbeat) and starts attempt 2. A payment is booked meanwhile: attempt 2's slice is
        // larger, so its requests are no replay of attempt 1's.
        held.armed = true;
        const first = runActivity(
          quietActivityEnvironment({ activityType: 'pushToTarget', attempt: 1 }),
          world.activities.pushToTarget,
          { target: name, limit: 100 },
        );
        await held.reached;
        await world.pay(world.links[1]!, 'Card', undefined, true);
        let secondDone = false;
        const second = runActivity(
          quietActivityEnvironment({ activityType: 'pushToTarget', attempt: 2 }),
          world.activities.pushToTarget,
          { target: name, limit: 100 },
        ).finally(() => {
          secondDone = true;
        });

        // Attempt 2 waits while attempt 1's write is in flight: nothing of its own reaches the target.
        await sleep(1_500);
        expect(secondDone).toBe(false);
        expect(await keysAtTarget(world, name)).toEqual([]);

        // The write lands; attempt 1 records it and ends, which ends attempt 2's wait.
        held.release();
        const outcomes = await Promise.allSettled([first, second]);
        for (const outcome of outcomes) {
          if (outcome.status === 'fulfilled') expect(outcome.value.failed).toEqual([]);
        }
        expect(outcomes[1]?.status).toBe('fulfilled');
        expect((outcomes[1] as PromiseFulfilledResult<PushToTargetResult>).value.summary.pending).toBe(0);

        // Anything left for a next slice goes too; then one document per ledger entry, none twice.
        await world.push();
        const booked = (await world.ledger.allEntries()).map((e) => e.key).sort();
        expect(booked.length).toBeGreaterThanOrEqual(6);
        expect((await keysAtTarget(world, name)).sort()).toEqual(booked);
      } finally {
        await world.close();
      }
    },
    120_000,
  );
});
