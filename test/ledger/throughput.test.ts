// test tier: integration (it measures posts to SQLite files with full fsync: tens of seconds on a busy machine)
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger, type EmbeddedLedgerOptions } from '../../src/ledger/embedded-ledger.js';
import { tempDir, twoLine } from './fixtures.js';

// A quick measurement, not a benchmark: prints posts/s and guards against an order-of-magnitude regression
// (a lost prepared-statement cache, a transaction per line...). The floor is far below what the code does.

const COUNT = 2_000;

async function measure(options: EmbeddedLedgerOptions): Promise<Record<string, number>> {
  const ledger = EmbeddedLedger.open(options);
  try {
    let started = performance.now();
    for (let i = 0; i < COUNT; i++) {
      await ledger.post(
        twoLine(`payment:p${i}`, 100 + i, { links: { paymentId: `p${i}`, paymentLinkId: 'pl_1' } }),
      );
    }
    const posts = COUNT / ((performance.now() - started) / 1000);
    started = performance.now();
    for (let i = 0; i < COUNT; i++) {
      await ledger.post(
        twoLine(`payment:p${i}`, 100 + i, { links: { paymentId: `p${i}`, paymentLinkId: 'pl_1' } }),
      );
    }
    const replays = COUNT / ((performance.now() - started) / 1000);
    started = performance.now();
    for (let batch = 0; batch < COUNT / 100; batch++) {
      await ledger.postMany(
        Array.from({ length: 100 }, (_, j) =>
          twoLine(`batch:b${batch * 100 + j}`, 1, { debit: Accounts.OperatingBank }),
        ),
      );
    }
    const batched = COUNT / ((performance.now() - started) / 1000);
    expect((await ledger.trialBalance()).balanced).toBe(true);
    expect(await ledger.balanceOf(Accounts.ProcessorClearing)).toBe(COUNT * 100 + (COUNT * (COUNT - 1)) / 2);
    expect(await ledger.balanceOf(Accounts.OperatingBank)).toBe(COUNT);
    return { posts: Math.round(posts), replays: Math.round(replays), batchedBy100: Math.round(batched) };
  } finally {
    ledger.close();
  }
}

describe('throughput', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  it(`posts ${COUNT} entries, then replays them as no-ops`, async () => {
    const results = {
      memory: await measure({}),
      fileFull: await measure({ path: join(dir.dir, 'full.sqlite'), synchronous: 'full' }),
      fileNormal: await measure({ path: join(dir.dir, 'normal.sqlite'), synchronous: 'normal' }),
    };
    console.log('ledger posts/s:', JSON.stringify(results));
    expect(results.fileNormal?.posts).toBeGreaterThan(300);
    expect(results.memory?.posts).toBeGreaterThan(300);
    expect(results.fileFull?.batchedBy100).toBeGreaterThan(300);
  });
});
