import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PostgresTargetIndex } from '../../src/flows/push/postgres-target-index.js';
import {
  PushLeaseLostError,
  SqliteTargetIndex,
  TargetCompanyMismatchError,
  type TargetIndexStore,
} from '../../src/flows/push/target-index.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { PostgresLedger } from '../../src/ledger/postgres-ledger.js';
import { twoLine } from '../ledger/fixtures.js';
import { postgresStore, type TestLedger } from '../ledger/ledger-stores.js';

// The target index answers the same in the ledger's SQLite file and in its PostgreSQL database.

const postgres = postgresStore();
const now = () => new Date('2026-03-01T10:00:00.000Z');

const stores: {
  name: string;
  open(): Promise<{ ledger: TestLedger; index: TargetIndexStore }>;
}[] = [
  {
    name: 'sqlite',
    async open() {
      const ledger = EmbeddedLedger.open();
      return { ledger, index: new SqliteTargetIndex(ledger.database, { now }) };
    },
  },
  {
    name: 'postgres',
    async open() {
      const ledger = await PostgresLedger.open({ url: (await postgres.freshDatabase()).url });
      return { ledger, index: new PostgresTargetIndex(ledger.pool, { now }) };
    },
  },
];

describe.each(stores)('$name target index', (store) => {
  let ledger: TestLedger;
  let index: TargetIndexStore;
  beforeEach(async () => {
    ({ ledger, index } = await store.open());
    for (const key of ['payment:p1', 'payment:p2', 'payment:p3', 'payment:p4'])
      await ledger.post(twoLine(key, 100));
  });
  afterEach(() => ledger.close());

  const entry = async (key: string) => {
    const found = await ledger.get(key);
    if (!found) throw new Error(key);
    return found;
  };

  it('hands out entries in posting order until each is PUSHED, FAILED or SKIPPED', async () => {
    expect((await index.next('mirror', 2)).map((e) => e.key)).toEqual(['payment:p1', 'payment:p2']);
    await index.record('mirror', await entry('payment:p1'), { status: 'PUSHED', remoteIds: ['r1'] });
    await index.record('mirror', await entry('payment:p2'), { status: 'FAILED', reason: 'no account' });
    await index.record('mirror', await entry('payment:p3'), { status: 'SKIPPED', reason: 'nothing to push' });
    expect((await index.next('mirror', 10)).map((e) => e.key)).toEqual(['payment:p4']);
    // Another target has its own index.
    expect(await index.next('other', 10)).toHaveLength(4);
    const next = await index.next('mirror', 10);
    expect(next[0]?.id).toBe((await entry('payment:p4')).id);
  });

  it('keeps what became of each entry, counting attempts', async () => {
    const p1 = await entry('payment:p1');
    await index.record('mirror', p1, { status: 'FAILED', reason: 'down' });
    await index.record('mirror', p1, { status: 'PUSHED', remoteIds: ['inv-1', 'pay-1'] });
    expect(await index.get('mirror', 'payment:p1')).toEqual({
      entryId: p1.id,
      key: 'payment:p1',
      status: 'PUSHED',
      remoteIds: ['inv-1', 'pay-1'],
      contentHash: p1.contentHash,
      reason: null,
      attempts: 2,
      updatedAt: '2026-03-01T10:00:00.000Z',
      attemptedBy: null,
    });
    expect(await index.get('mirror', 'payment:p2')).toBeNull();
    expect(await index.get('other', 'payment:p1')).toBeNull();
  });

  it('counts the refusals of an entry a person queued again, so its retry is a request of its own', async () => {
    const refusalsOf = async (key: string) =>
      (await index.next('mirror', 10)).find((e) => e.key === key)?.refusals;
    expect(await refusalsOf('payment:p1')).toBe(0);
    // Marked before a write (the write-ahead record) is no refusal.
    await index.writeAhead('mirror', await index.lease('mirror'), [await entry('payment:p1')]);
    expect(await refusalsOf('payment:p1')).toBe(0);
    await index.record('mirror', await entry('payment:p1'), { status: 'FAILED', reason: 'account archived' });
    expect(await refusalsOf('payment:p1')).toBeUndefined();
    await index.requeue('mirror', ['payment:p1']);
    expect(await refusalsOf('payment:p1')).toBe(1);
    await index.record('mirror', await entry('payment:p1'), { status: 'FAILED', reason: 'still archived' });
    await index.requeue('mirror', 'failed');
    expect(await refusalsOf('payment:p1')).toBe(2);
    expect(await refusalsOf('payment:p2')).toBe(0);
  });

  it('writes ahead: only an entry an attempt marked before writing may exist at the target', async () => {
    const mayExist = async (target: string) =>
      (await index.next(target, 10)).filter((e) => e.mayExist).map((e) => e.key);
    // A ledger made with the marks: nothing was ever attempted, nothing is looked up.
    expect(await mayExist('mirror')).toEqual([]);
    const lease = await index.lease('mirror');
    const [p1, p2] = [await entry('payment:p1'), await entry('payment:p2')];
    await index.writeAhead('mirror', lease, [p1, p2]);
    expect(await mayExist('mirror')).toEqual(['payment:p1', 'payment:p2']);
    expect(await index.get('mirror', 'payment:p2')).toMatchObject({ status: 'PENDING', attemptedBy: lease });
    expect(await index.summary('mirror')).toMatchObject({ pending: 4, inFlight: 2 });
    // Marked entries are still the next to push, in posting order; another target knows nothing of them.
    expect((await index.next('mirror', 10)).map((e) => e.key)).toEqual([
      'payment:p1',
      'payment:p2',
      'payment:p3',
      'payment:p4',
    ]);
    expect(await mayExist('other')).toEqual([]);
    // The outcome settles it; a later mark leaves a PUSHED entry PUSHED.
    await index.record('mirror', p1, { status: 'PUSHED', remoteIds: ['r1'] });
    await index.record('mirror', p2, { status: 'FAILED', reason: 'refused at posting' });
    await index.writeAhead('mirror', lease, [p1]);
    expect(await index.get('mirror', 'payment:p1')).toMatchObject({ status: 'PUSHED', remoteIds: ['r1'] });
    // A refused entry queued again keeps its mark: the refused attempt may have left a draft at the target.
    expect(await index.summary('mirror')).toMatchObject({ pending: 2, inFlight: 0, pushed: 1, failed: 1 });
    expect(await index.requeue('mirror', 'failed')).toBe(1);
    expect(await mayExist('mirror')).toEqual(['payment:p2']);
    expect(await index.summary('mirror')).toMatchObject({ pending: 3, inFlight: 1 });
  });

  it('a later lease fences the earlier attempt: it marks nothing, so it writes nothing', async () => {
    const first = await index.lease('mirror');
    const second = await index.lease('mirror');
    expect(second).toBeGreaterThan(first);
    // Another target's leases are its own.
    expect(await index.lease('other')).toBe(1);
    const p3 = await entry('payment:p3');
    const lost = await index.writeAhead('mirror', first, [p3]).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(PushLeaseLostError);
    expect(await index.get('mirror', 'payment:p3')).toBeNull();
    await index.writeAhead('mirror', second, [p3]);
    expect(await index.get('mirror', 'payment:p3')).toMatchObject({ attemptedBy: second });
    await expect(index.writeAhead('mirror', second + 1, [p3])).rejects.toThrow(PushLeaseLostError);
  });

  it('a mark is in flight until its attempt ends; the entry may still exist after', async () => {
    const inFlight = async () =>
      Object.fromEntries((await index.next('mirror', 10)).map((e) => [e.key, e.inFlight]));
    const first = await index.lease('mirror');
    await index.writeAhead('mirror', first, [await entry('payment:p1'), await entry('payment:p2')]);
    const marked = await inFlight();
    expect(marked['payment:p1']).toMatchObject({ lease: first });
    // When it was marked, by the index's clock.
    expect(Number.isNaN(Date.parse(marked['payment:p1']?.since ?? ''))).toBe(false);
    expect(marked['payment:p3']).toBeNull();
    // A later attempt marks p2 again: its own mark, in flight under its own lease.
    const second = await index.lease('mirror');
    await index.writeAhead('mirror', second, [await entry('payment:p2')]);
    expect((await inFlight())['payment:p2']).toMatchObject({ lease: second });
    // The first attempt ends: its marks are no longer in flight (p1), the second's still are (p2).
    await index.endAttempt('mirror', first);
    expect(await inFlight()).toMatchObject({ 'payment:p1': null, 'payment:p2': { lease: second } });
    await index.endAttempt('mirror', second);
    expect(Object.values(await inFlight())).toEqual([null, null, null, null]);
    // Still marked: the target may hold them.
    expect((await index.next('mirror', 10)).filter((e) => e.mayExist).map((e) => e.key)).toEqual([
      'payment:p1',
      'payment:p2',
    ]);
  });

  it('is one company’s: a push to another company is refused, whatever the index records', async () => {
    // The first push to the QuickBooks company 111 records it as the index's company.
    const lease = await index.lease('quickbooks', '111');
    await index.writeAhead('quickbooks', lease, [await entry('payment:p1')]);
    await index.record('quickbooks', await entry('payment:p1'), { status: 'PUSHED', remoteIds: ['r1'] });
    expect(await index.company('quickbooks')).toEqual({
      companyId: '111',
      since: now().toISOString(),
      previousCompanyId: null,
    });
    // A worker connected to company 222 may not push with it: p1 is not in 222.
    const refused = await index.lease('quickbooks', '222').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TargetCompanyMismatchError);
    expect(refused).toMatchObject({ indexCompany: '111', company: '222' });
    expect(String(refused)).toContain('--switch-company');
    await expect(index.claimCompany('quickbooks', '222')).rejects.toThrow(TargetCompanyMismatchError);
    // The refused lease took nothing: the attempt of company 111 still holds the latest.
    await index.writeAhead('quickbooks', lease, [await entry('payment:p2')]);
    expect(await index.claimCompany('quickbooks', '111')).toMatchObject({ companyId: '111' });
    // A target without companies (Tryton, the mirror) leases without one; another target has its own.
    expect(await index.company('mirror')).toBeNull();
    await index.lease('mirror');
    await index.lease('xero', 'tenant-a');
    expect(await index.company('xero')).toMatchObject({ companyId: 'tenant-a' });
  });

  it('a switch of company starts a fresh index, keeps the old rows aside and fences the old attempt', async () => {
    const lease = await index.lease('quickbooks', '111');
    await index.record('quickbooks', await entry('payment:p1'), { status: 'PUSHED', remoteIds: ['r1'] });
    await index.record('quickbooks', await entry('payment:p2'), { status: 'FAILED', reason: 'x' });
    const switched = await index.switchCompany('quickbooks', '222');
    const keptAs = `quickbooks@111@${now().toISOString()}`;
    expect(switched).toEqual({ previous: '111', keptAs, moved: 2 });
    expect(await index.company('quickbooks')).toEqual({
      companyId: '222',
      since: now().toISOString(),
      previousCompanyId: '111',
    });
    // Nothing is believed pushed to 222: every entry is next, none looked up.
    expect((await index.next('quickbooks', 10)).map((e) => [e.key, e.mayExist])).toEqual([
      ['payment:p1', false],
      ['payment:p2', false],
      ['payment:p3', false],
      ['payment:p4', false],
    ]);
    expect(await index.get('quickbooks', 'payment:p1')).toBeNull();
    expect(await index.summary('quickbooks')).toMatchObject({ pending: 4, pushed: 0, failed: 0 });
    // 111's rows are kept, under their own name.
    expect(await index.get(keptAs, 'payment:p1')).toMatchObject({ status: 'PUSHED', remoteIds: ['r1'] });
    // The attempt of company 111 writes nothing more; 111 is refused, 222 pushes.
    await expect(index.writeAhead('quickbooks', lease, [await entry('payment:p3')])).rejects.toThrow(
      PushLeaseLostError,
    );
    await expect(index.lease('quickbooks', '111')).rejects.toThrow(TargetCompanyMismatchError);
    expect(await index.lease('quickbooks', '222')).toBeGreaterThan(lease);
    // Switching to the company already recorded changes nothing.
    expect(await index.switchCompany('quickbooks', '222')).toEqual({
      previous: '222',
      keptAs: null,
      moved: 0,
    });
  });

  it('a switch of an index with rows but no company recorded keeps them under the company assumed', async () => {
    await index.record('xero', await entry('payment:p1'), { status: 'PUSHED', remoteIds: ['r1'] });
    const switched = await index.switchCompany('xero', 'tenant-b', 'tenant-a');
    expect(switched).toMatchObject({
      previous: null,
      moved: 1,
      keptAs: expect.stringMatching(/^xero@tenant-a@/),
    });
    expect(await index.company('xero')).toMatchObject({
      companyId: 'tenant-b',
      previousCompanyId: 'tenant-a',
    });
    expect(await index.get('xero', 'payment:p1')).toBeNull();
  });

  it('remoteMany answers the PUSHED records among the keys asked', async () => {
    await index.record('mirror', await entry('payment:p1'), { status: 'PUSHED', remoteIds: ['r1'] });
    await index.record('mirror', await entry('payment:p2'), { status: 'FAILED', reason: 'x' });
    const found = await index.remoteMany('mirror', ['payment:p1', 'payment:p2', 'payment:p9', 'payment:p1']);
    expect([...found.entries()]).toEqual([
      [
        'payment:p1',
        { key: 'payment:p1', remoteIds: ['r1'], contentHash: (await entry('payment:p1')).contentHash },
      ],
    ]);
    expect((await index.remoteMany('mirror', [])).size).toBe(0);
  });

  it('summarizes a target and queues refused entries again', async () => {
    await index.record('mirror', await entry('payment:p1'), { status: 'PUSHED', remoteIds: ['r1'] });
    await index.record('mirror', await entry('payment:p2'), { status: 'FAILED', reason: 'no account' });
    await index.record('mirror', await entry('payment:p3'), { status: 'FAILED', reason: 'closed period' });
    await index.record('mirror', await entry('payment:p4'), { status: 'SKIPPED', reason: 'nothing' });
    const summary = await index.summary('mirror');
    expect({ ...summary, failures: summary.failures.map((f) => [f.key, f.reason]) }).toEqual({
      target: 'mirror',
      pending: 0,
      inFlight: 0,
      pushed: 1,
      failed: 2,
      skipped: 1,
      failures: [
        ['payment:p2', 'no account'],
        ['payment:p3', 'closed period'],
      ],
    });
    expect((await index.summary('other')).pending).toBe(4);

    expect(await index.requeue('mirror', ['payment:p4', 'payment:p1', 'payment:p4'])).toBe(1);
    expect(await index.requeue('mirror', 'failed')).toBe(2);
    expect(await index.requeue('mirror', 'failed')).toBe(0);
    expect((await index.next('mirror', 10)).map((e) => e.key)).toEqual([
      'payment:p2',
      'payment:p3',
      'payment:p4',
    ]);
    expect(await index.summary('mirror')).toMatchObject({ pending: 3, pushed: 1, failed: 0, skipped: 0 });
  });
});
