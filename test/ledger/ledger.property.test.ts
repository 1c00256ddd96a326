import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AccountName, chartOfAccounts } from '../../src/ledger/chart-of-accounts.js';
import { canonicalContents, type LedgerEntryInput } from '../../src/ledger/entry.js';
import { baseKey } from '../../src/ledger/entry-key.js';
import { diffEntries } from '../../src/ledger/mapping/entry-diff.js';
import { type PaymentForBooks, paymentEntries, paymentEntryKinds } from '../../src/ledger/mapping/payment.js';
import { applyEntryDiff, syncEntries } from '../../src/ledger/sync.js';
import { sumOfLines } from './fixtures.js';
import { ledgerStores, type TestLedger } from './ledger-stores.js';

// A payment's life seen through fetched snapshots: statuses change, refunds appear, are voided (the charge
// cancelled, decision “Settlement and voids”) or returned (decision “Returned ACH refund credit”, the refund leaves refunds[]), the payment fails (an ACH return).
// Snapshots arrive in any order, duplicated, some applied from a stale plan; the books must end up exactly
// as if only the last snapshot had been applied.

interface Snapshot {
  status: 'PENDING' | 'SUCCEEDED' | 'REFUNDED' | 'FAILED';
  cancelled: boolean;
  refunds: number[];
}

interface Facts {
  amountInCents: number;
  platformFeeInCents: number;
  refunds: { id: string; amountCents: number; refundDate: string }[];
}

const factsArb: fc.Arbitrary<Facts> = fc
  .record({
    amountInCents: fc.integer({ min: 1, max: 10_000_000 }),
    feePermille: fc.integer({ min: 0, max: 60 }),
    refundAmounts: fc.array(fc.integer({ min: 1, max: 5_000_000 }), { minLength: 0, maxLength: 4 }),
  })
  .map(({ amountInCents, feePermille, refundAmounts }) => ({
    amountInCents,
    platformFeeInCents: Math.floor((amountInCents * feePermille) / 1000),
    refunds: refundAmounts.map((amountCents, i) => ({
      id: `re_${i}`,
      amountCents,
      refundDate: `2026-01-${String(10 + i).padStart(2, '0')}T12:00:00.000Z`,
    })),
  }));

const snapshotArb: fc.Arbitrary<Snapshot> = fc.record({
  status: fc.constantFrom('PENDING', 'SUCCEEDED', 'REFUNDED', 'FAILED'),
  cancelled: fc.oneof(
    { arbitrary: fc.constant(false), weight: 4 },
    { arbitrary: fc.constant(true), weight: 1 },
  ),
  refunds: fc.uniqueArray(fc.nat({ max: 3 }), { maxLength: 4 }),
});

interface Op {
  snapshot: number;
  /** Plan computed before the next snapshot is synced, then applied late. */
  stale: boolean;
}
const opArb: fc.Arbitrary<Op> = fc.record({ snapshot: fc.nat(), stale: fc.boolean() });

function toPayment(facts: Facts, s: Snapshot): PaymentForBooks {
  const base = {
    id: 'pay_1',
    amountInCents: facts.amountInCents,
    paymentLinkId: 'pl_1',
    createdAt: Date.UTC(2026, 0, 2),
  };
  if (s.cancelled) {
    return {
      ...base,
      status: 'REFUNDED',
      platformFeeInCents: 0,
      refunds: [
        {
          id: 're_void',
          amountCents: facts.amountInCents,
          refundDate: '2026-01-03T00:00:00.000Z',
          voided: true,
        },
      ],
    };
  }
  return {
    ...base,
    status: s.status,
    platformFeeInCents: facts.platformFeeInCents,
    refunds: s.refunds.flatMap((i) => {
      const r = facts.refunds[i];
      return r ? [{ ...r, voided: false }] : [];
    }),
  };
}

const scope = { paymentId: 'pay_1' };
const options = { kinds: paymentEntryKinds, date: '2026-02-01' };

async function balancesOf(ledger: TestLedger): Promise<Record<string, number>> {
  return Object.fromEntries((await ledger.balances()).map((b) => [b.account, b.balanceCents]));
}

/** Live entries, compared by contents under their base key (versions are an implementation detail). */
async function liveContents(ledger: TestLedger): Promise<string[]> {
  return (await ledger.allEntries())
    .filter((e) => e.reverses === null && e.reversedBy === null)
    .map((e) => `${baseKey(e.key)} ${canonicalContents(e)}`)
    .sort();
}

function desiredContents(entries: LedgerEntryInput[]): string[] {
  return entries.map((e) => `${e.key} ${canonicalContents(e)}`).sort();
}

// Both stores; fewer runs on PostgreSQL, where every run is a fresh database.
const stores = ledgerStores().map((store) => ({
  ...store,
  runs: (n: number) => (store.name === 'sqlite' ? n : Math.ceil(n / 10)),
}));

describe.each(stores)('$name ledger', (store) => {
  describe('property: payment snapshots in any order converge to the final state', () => {
    it('balances, live entries, balance of every entry and reversals at most once', async () => {
      await fc.assert(
        fc.asyncProperty(
          factsArb,
          fc.array(snapshotArb, { minLength: 1, maxLength: 6 }),
          fc.array(opArb, { minLength: 1, maxLength: 14 }),
          async (facts, snapshots, ops) => {
            const at = (i: number) => toPayment(facts, snapshots[i % snapshots.length] as Snapshot);
            const ledger = await store.open();
            const reference = await store.open();
            try {
              for (const [n, op] of ops.entries()) {
                const payment = at(op.snapshot);
                if (op.stale && n < ops.length - 1) {
                  const plan = diffEntries(
                    paymentEntries(payment, 'UTC', 'invoice'),
                    await ledger.entriesFor(scope),
                    options,
                  );
                  await syncEntries(
                    ledger,
                    paymentEntries(at(op.snapshot + 1), 'UTC', 'invoice'),
                    scope,
                    options,
                  );
                  await applyEntryDiff(ledger, plan, options);
                } else {
                  await syncEntries(ledger, paymentEntries(payment, 'UTC', 'invoice'), scope, options);
                }
              }
              // The last op decides the final state; a stale last op is applied fresh (see the loop).
              const final = at((ops.at(-1) as Op).snapshot);
              await syncEntries(reference, paymentEntries(final, 'UTC', 'invoice'), scope, options);

              expect(await balancesOf(ledger)).toEqual(await balancesOf(reference));
              expect(await liveContents(ledger)).toEqual(
                desiredContents(paymentEntries(final, 'UTC', 'invoice')),
              );

              const all = await ledger.allEntries();
              for (const entry of all) expect(sumOfLines(entry)).toBe(0);
              const reversed = all.filter((e) => e.reverses !== null).map((e) => e.reverses);
              expect(new Set(reversed).size).toBe(reversed.length);
              expect((await ledger.trialBalance()).balanced).toBe(true);
              // Re-applying the final state is a no-op.
              const again = await syncEntries(
                ledger,
                paymentEntries(final, 'UTC', 'invoice'),
                scope,
                options,
              );
              expect(again.posted).toEqual([]);
              expect(again.reversed).toEqual([]);
            } finally {
              await ledger.close();
              await reference.close();
            }
          },
        ),
        { numRuns: store.runs(150) },
      );
    });
  });

  describe('property: any balanced entries keep the books balanced and the reports exact', () => {
    const accounts = chartOfAccounts.map((a) => a.name);
    const entryArb = fc
      .array(
        fc.record({
          account: fc.constantFrom(...accounts),
          amountCents: fc.integer({ min: -1e12, max: 1e12 }),
        }),
        { minLength: 1, maxLength: 5 },
      )
      .map((lines) => lines.filter((l) => l.amountCents !== 0))
      .filter((lines) => lines.length > 0)
      .map((lines) => {
        const sum = lines.reduce((s, l) => s + l.amountCents, 0);
        return sum === 0 ? lines : [...lines, { account: accounts[0] as AccountName, amountCents: -sum }];
      })
      .filter((lines) => lines.length >= 2);

    it('trial balance totals equal; each account equals the sum of its lines', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(entryArb, { maxLength: 20 }), async (entries) => {
          const ledger = await store.open();
          try {
            const expected = new Map<string, number>();
            for (const [i, lines] of entries.entries()) {
              await ledger.post({ key: `test:${i}`, date: '2026-01-01', description: `entry ${i}`, lines });
              for (const l of lines) expected.set(l.account, (expected.get(l.account) ?? 0) + l.amountCents);
            }
            const tb = await ledger.trialBalance();
            expect(tb.balanced).toBe(true);
            expect(tb.totalDebitCents).toBe(tb.totalCreditCents);
            for (const a of tb.accounts) expect(a.balanceCents).toBe(expected.get(a.account) ?? 0);
          } finally {
            await ledger.close();
          }
        }),
        { numRuns: store.runs(100) },
      );
    });
  });
});
