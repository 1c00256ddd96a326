import { type Harness, newLink, startHarness } from '@booksync/emulator/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CloseCertificate } from '../../src/close/certificate.js';
import { createActivities } from '../../src/flows/activities.js';
import type { TargetPushDependencies } from '../../src/flows/in-activity/context.js';
import { PostgresTargetIndex } from '../../src/flows/push/postgres-target-index.js';
import { SqliteTargetIndex, type TargetIndexStore } from '../../src/flows/push/target-index.js';
import { notifyingLedger } from '../../src/flows/push/wake-up.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import type { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { PostgresLedger } from '../../src/ledger/postgres-ledger.js';
import { PostgresReportStore } from '../../src/ledger/postgres-report-store.js';
import { type ReportStore, readReport, SqliteReportStore } from '../../src/ledger/report-store.js';
import { silentLogger } from '../../src/logging/logger.js';
import { ServiceClient } from '../../src/service/client.js';
import type { AccountingTarget } from '../../src/targets/target-port.js';
import { ledgerStores, type TestLedger } from '../ledger/ledger-stores.js';

// The period close's and the resync's activities on both ledger stores (SQLite, PostgreSQL) with the target
// index in the same store: no Temporal here, the activities are called directly, the emulator over HTTP.
// Card fee decision “Fees”: round(2.9%) + 30 cents, absorbed.

describe.each(ledgerStores())('period close and resync on the $name ledger', (store) => {
  let emulator: Harness;
  let ledger: TestLedger;
  let service: ServiceClient;
  let index: TargetIndexStore;
  let reports: ReportStore;
  let day: string;
  let epId: string;
  const target = 'mirror';

  const activities = (account: 'checks-to-deposit' | 'operating-bank', withTargets = true) =>
    createActivities({
      service,
      // With targets configured, production's activities write through the notifying ledger
      // (src/runtime/targets/accounting-targets.ts): the close and the resync must work through it.
      ledger: withTargets ? notifyingLedger(ledger, () => {}) : ledger,
      reports,
      logger: silentLogger,
      timeZone: 'UTC',
      externalPaymentAccount: account,
      ...(withTargets
        ? {
            targets: {
              targets: new Map([[target, {} as AccountingTarget]]),
              index,
              references: {} as TargetPushDependencies['references'],
              inFlightWaitMs: 90_000,
            },
          }
        : {}),
    });

  async function reconcileAll(account: 'checks-to-deposit' | 'operating-bank') {
    const a = activities(account, false);
    let pageToken: string | null = null;
    do {
      const page = await a.reconcilePage({ scope: { kind: 'all' }, pageToken, pageSize: 50, runId: 'test' });
      pageToken = page.nextPageToken;
    } while (pageToken !== null);
  }

  beforeAll(async () => {
    emulator = await startHarness();
    ledger = await store.open();
    index =
      ledger instanceof PostgresLedger
        ? new PostgresTargetIndex(ledger.pool)
        : new SqliteTargetIndex((ledger as EmbeddedLedger).database);
    reports =
      ledger instanceof PostgresLedger
        ? new PostgresReportStore(ledger.pool)
        : new SqliteReportStore((ledger as EmbeddedLedger).database);
    service = new ServiceClient({
      baseUrl: emulator.baseUrl,
      apiKey: emulator.keys.full,
      retry: { baseDelayMs: 20, maxDelayMs: 100 },
    });
  }, 120_000);

  afterAll(async () => {
    await ledger?.close();
    await emulator?.close();
  });

  it('a booked day passes; an entry the target has not taken fails it until the index says SKIPPED', async () => {
    const sold = await newLink(emulator.api, 100_00);
    const invoice = await newLink(emulator.api, 300_00);
    const paid = await emulator.api<{ id: string }>('POST', `/sandbox/paymentLinks/${sold.id}/pay`, {
      method: 'Card',
    });
    await emulator.api('POST', `/sandbox/payments/${paid.body.id}/settle`);
    day = new Date().toISOString().slice(0, 10);
    const recorded = await service.recordExternalPayment(invoice.id, { amountCents: 120_00, paidAt: day });
    epId = recorded.externalPayment.id;
    await reconcileAll('checks-to-deposit');

    const entries = await ledger.allEntries();
    // invoice x2, payment, payment-fee, external-payment
    expect(entries.map((e) => e.key.split(':')[0]).sort()).toEqual([
      'external-payment',
      'invoice',
      'invoice',
      'payment',
      'payment-fee',
    ]);
    for (const entry of entries.slice(1)) {
      await index.record(target, entry, { status: 'PUSHED', remoteIds: [`r${entry.id}`] });
    }
    const a = activities('checks-to-deposit');
    // The activity stores the certificate whole in the same store and returns its summary.
    const certify = async () => {
      const summary = await a.buildCloseCertificate({ from: day, to: day });
      const whole = await readReport<CloseCertificate>(reports, summary.reportId, 'close-certificate');
      expect(summary).toMatchObject({ passes: whole.passes, problemCount: whole.problems.length });
      expect(summary.bytes).toBe(Buffer.byteLength(JSON.stringify(whole)));
      return whole;
    };
    const failing = await certify();
    expect(failing.counts).toMatchObject({ objects: 2, BOOKED: 2, MISSING: 0, orphans: 0 });
    // Clearing: 10000 - 320 at the service and in the books.
    expect(failing.balances[0]).toMatchObject({ booksCents: 96_80, serviceCents: 96_80, ok: true });
    expect(failing.receivables.find((r) => r.documentId === invoice.id)).toMatchObject({
      booksCents: 180_00,
      serviceCents: 180_00,
      ok: true,
    });
    expect(failing.targets).toEqual([
      {
        target,
        entries: 5,
        pushed: 4,
        skipped: 0,
        notPushed: [{ key: entries[0]!.key, status: 'NOT_INDEXED', reason: null }],
        ok: false,
      },
    ]);
    expect(failing.passes).toBe(false);

    await index.record(target, entries[0]!, { status: 'SKIPPED', reason: 'nothing to push' });
    const passing = await certify();
    expect(passing.targets?.[0]).toMatchObject({ pushed: 4, skipped: 1, notPushed: [], ok: true });
    expect(passing.problems).toEqual([]);
    expect(passing.passes).toBe(true);
  });

  it('resync after EXTERNAL_PAYMENTS_ACCOUNT changes: one reversal, one #2, then nothing; balanced', async () => {
    const a = activities('operating-bank');
    const dry = await a.resyncBooks({ since: null, apply: false });
    expect(dry.diff.toReverse.map((r) => r.key)).toEqual([`external-payment:${epId}`]);
    expect(dry.diff.toPost.map((p) => [p.key, p.lines])).toEqual([
      [
        `external-payment:${epId}#2`,
        [
          { account: Accounts.OperatingBank, amountCents: 120_00 },
          { account: Accounts.AccountsReceivable, amountCents: -120_00 },
        ],
      ],
    ]);
    const applied = await a.resyncBooks({ since: null, apply: true });
    expect([applied.reversed, applied.posted]).toEqual([
      [`external-payment:${epId}`],
      [`external-payment:${epId}#2`],
    ]);
    const again = await a.resyncBooks({ since: null, apply: true });
    expect([again.diff.toReverse, again.diff.toPost, again.reversed, again.posted]).toEqual([[], [], [], []]);
    expect(await ledger.balanceOf(Accounts.OperatingBank)).toBe(120_00);
    expect(await ledger.balanceOf(Accounts.ChecksToDeposit)).toBe(0);
    expect((await ledger.trialBalance()).balanced).toBe(true);
  });
});
