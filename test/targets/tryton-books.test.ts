import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountName, Accounts } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { type AccountRole, defaultAccountCodes } from '../../src/targets/account-mapping.js';
import { NeedsAttention } from '../../src/workflow-safe/search-attributes.js';
import { BooksyncProcess } from '../support/booksync-start.js';
import { startTryton, type TrytonServer } from '../support/tryton.js';

// booksync's demo business day pushed to a real Tryton on PostgreSQL by the real `booksync start`, as a
// business would run it (ACCOUNTING_TARGET=tryton). Tryton's own figures, read through its API, must equal
// booksync's ledger account by account, and each invoice's amount to pay the service's remainder. On the way:
// the worker SIGKILLed between a Tryton create and its index write (a failpoint), Tryton down for a while
// a business day goes on, and a push Tryton refuses (a closed period) retried by `booksync targets retry`.

const roles = Object.keys(defaultAccountCodes) as AccountRole[];
/** Four times the stack's longest wait between push attempts (PUSH_RETRY_MAX_INTERVAL, 5 s in these tests). */
const outageMs = 20_000;

let tryton: TrytonServer;
const booksync = new BooksyncProcess();

/** Tryton against the ledger: every account, every invoice, every reversal, one record per entry. */
async function expectTrytonEqualsLedger() {
  const ledger = EmbeddedLedger.open({ path: path.join(booksync.dataDir, 'ledger.db') });
  try {
    const ours = await ledger.balances();
    const theirs = await tryton.balances(Object.values(defaultAccountCodes));
    const byRole = (role: AccountRole) =>
      ours.find((b) => b.account === (Accounts[role] as AccountName))?.balanceCents ?? 0;
    expect(Object.fromEntries(roles.map((r) => [r, theirs[defaultAccountCodes[r]] ?? 0]))).toEqual(
      Object.fromEntries(roles.map((r) => [r, byRole(r)])),
    );

    // Every invoice booksync knows of (a link it has booked): Tryton's amount to pay, the ledger's open
    // receivable and the service's remainder agree. (A link nothing happened to yet is not in the books.)
    const client = booksync.service();
    const open = new Map((await ledger.openItems('receivable')).map((i) => [i.documentId, i.openCents]));
    let links = 0;
    for await (const link of client.paymentLinks()) {
      if (link.reusable || !open.has(link.id)) continue;
      links++;
      const remainder = link.requestedAmountCents - link.completedAmountCents;
      expect([link.name, await tryton.amountToPay(link.id), open.get(link.id)]).toEqual([
        link.name,
        remainder,
        remainder,
      ]);
    }
    expect(links).toBeGreaterThan(5);

    const entries = await ledger.allEntries();
    const described = await tryton.rpc.searchRead<{ description: string | null }>(
      'account.move',
      [['description', 'like', 'booksync:%']],
      ['description'],
    );
    const invoices = await tryton.rpc.searchRead<{ description: string | null }>(
      'account.invoice',
      [['description', 'like', 'booksync:%']],
      ['description'],
    );
    const keys = [...described, ...invoices].map(
      (r) => (r.description as string).slice('booksync:'.length).split(' ')[0],
    );
    // Exactly one Tryton record per ledger entry: nothing lost, nothing twice.
    expect(keys.sort()).toEqual(entries.map((e) => e.key).sort());

    for (const entry of entries.filter((e) => e.reverses !== null)) {
      const [reversal] = await tryton.rpc.searchRead<{ origin: string | null }>(
        'account.move',
        [['description', 'like', `booksync:${entry.key} %`]],
        ['origin'],
      );
      const original = await tryton.rpc.searchRead<{ id: number; move?: number }>(
        'account.move',
        [['description', 'like', `booksync:${entry.reverses} %`]],
        ['id'],
      );
      const invoice = await tryton.rpc.searchRead<{ move: number }>(
        'account.invoice',
        [['description', 'like', `booksync:${entry.reverses} %`]],
        ['move'],
      );
      const originalMove = original[0]?.id ?? invoice[0]?.move;
      expect(reversal?.origin, entry.key).toBe(`account.move,${originalMove}`);
    }
    return entries.length;
  } finally {
    ledger.close();
  }
}

/** The push workflow's NeedsAttention search attribute, as the Temporal UI lists it. */
async function needsAttention(): Promise<boolean> {
  const { client, connection } = await booksync.temporal();
  try {
    const described = await client.workflow.getHandle('accounting-target-tryton').describe();
    return described.typedSearchAttributes.get(NeedsAttention) === true;
  } finally {
    await connection.close();
  }
}

beforeAll(async () => {
  tryton = await startTryton();
  await booksync.prepare({
    ACCOUNTING_TARGET: 'tryton',
    TRYTON_URL: tryton.url,
    TRYTON_DATABASE: tryton.database,
    TRYTON_USER: tryton.username,
    TRYTON_PASSWORD: tryton.password,
  });
}, 300_000);

afterAll(async () => {
  await booksync.stop('tryton-books');
  await tryton?.close();
});

describe('the demo business day in Tryton', { timeout: 900_000 }, () => {
  it('survives a SIGKILL between marking a document attempted and creating it, one between a Tryton create and its index write, and every event delivered twice more, shuffled: one Tryton record per entry', async () => {
    // Killed after marking the first document attempted, before writing it: the next start looks it up.
    const ahead = booksync.start({ BOOKSYNC_FAILPOINT_KILL_AFTER_WRITE_AHEAD: 'tryton' });
    expect(await booksync.exited(ahead)).toBe('SIGKILL');
    // The failpoint kills the whole worker right after Tryton created the first document.
    const first = booksync.start({ BOOKSYNC_FAILPOINT_KILL_AFTER_TARGET_CREATE: 'tryton' });
    expect(await booksync.exited(first)).toBe('SIGKILL');
    expect(await booksync.restartAndReconcile()).toBe(0);
    const demo = await booksync.cli(['demo']);
    expect(demo.stdout, demo.stderr).toContain('each flow in the Temporal UI');
    // Settled, not only pushed: an activity the killed workers left is retried once its timeout passed.
    const pushed = await booksync.untilSettled();
    expect(pushed.failed).toBe(0);
    const entries = await expectTrytonEqualsLedger();
    expect(pushed.pushed).toBe(entries);

    // Every event of the day delivered again, twice each, shuffled: state is fetched, so nothing new is
    // booked, and nothing reaches Tryton twice.
    // Delivered: each signal is in its workflow's history; settled once every workflow handled its signals.
    expect(await booksync.redeliverEverythingTwice(20_261_123)).toBeGreaterThan(10);
    const again = await booksync.untilSettled();
    expect(again.pushed).toBe(entries);
    expect(await expectTrytonEqualsLedger()).toBe(entries);
  });

  it('waits out Tryton down for several of its push attempts while a business day goes on, then pushes it all once', async () => {
    await tryton.stop();
    const started = Date.now();
    const demo = await booksync.cli(['demo']);
    expect(demo.code, demo.stderr).toBe(0);
    expect((await booksync.targetStatus()).pending).toBeGreaterThan(0);
    await sleep(Math.max(0, outageMs - (Date.now() - started)));
    await tryton.start();
    const pushed = await booksync.untilPushed().catch(async (error) => {
      // What the push workflow was doing, for the post-mortem.
      const { client, connection } = await booksync.temporal();
      const handle = client.workflow.getHandle('accounting-target-tryton');
      const described = await handle.describe();
      const history = await handle.fetchHistory();
      console.error('push workflow:', described.status.name, JSON.stringify(described.raw.pendingActivities));
      console.error(
        'last events:',
        (history.events ?? []).slice(-12).map((e) => `${e.eventId} ${e.eventType} ${e.eventTime?.seconds}`),
      );
      await connection.close();
      throw error;
    });
    expect(pushed.failed).toBe(0);
    expect(pushed.pushed).toBe(await expectTrytonEqualsLedger());
  });

  it('starts while Tryton is down: the day reaches the ledger, the push is flagged, and once Tryton is back every entry is in it once', async () => {
    await booksync.halt();
    await tryton.stop();
    const before = (await booksync.targetStatus()).pushed;
    // Before, start-up awaited Tryton's login and exited 1 ("tryton unavailable: common.db.login: fetch failed").
    expect(await booksync.restartAndReconcile()).toBe(0);
    expect(booksync.output).toContain('accounting target not reachable at start');
    const demo = await booksync.cli(['demo']);
    expect(demo.code, demo.stderr).toBe(0);
    const waiting = await booksync.targetStatus();
    expect(waiting.pending).toBeGreaterThan(0);
    expect(waiting.pushed).toBe(before);
    const deadline = Date.now() + 120_000;
    while (!(await needsAttention()) && Date.now() < deadline) await sleep(1_000);
    expect(await needsAttention()).toBe(true);

    await tryton.start();
    const pushed = await booksync.untilPushed();
    expect(pushed.failed).toBe(0);
    expect(pushed.pushed).toBe(await expectTrytonEqualsLedger());
    const cleared = Date.now() + 120_000;
    while ((await needsAttention()) && Date.now() < cleared) await sleep(1_000);
    expect(await needsAttention()).toBe(false);
  });

  it('a period closed in Tryton: what booksync pushes is dated after it, never refused, and still owed as at the service', async () => {
    // Booksync reads Tryton's closed periods and dates documents after the last one (their own
    // date kept in their description), never refusing the push and never confirming Tryton's warning.
    const today = new Date().toISOString().slice(0, 10);
    const link = await booksync.service().createPaymentLink({
      name: 'INV-CLOSED-PERIOD',
      requestedAmountCents: 55_00,
    });
    await tryton.setPeriodState(today, 'close');
    try {
      const recorded = await booksync.cli([
        'link',
        'record-payment',
        link.id,
        '--amount',
        '2500',
        '--paid-at',
        today,
      ]);
      expect(recorded.code).toBe(0);
      const after = await booksync.untilPushed();
      expect(after.failed).toBe(0);
      expect(after.pushed).toBe(await expectTrytonEqualsLedger());
      expect(await tryton.amountToPay(link.id)).toBe(30_00);
    } finally {
      await tryton.setPeriodState(today, 'reopen');
    }
  });
});
