import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SandboxClient } from '@booksync/emulator/sandbox-client';
import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { markerTextOf, XeroDouble } from '@booksync/vendor-doubles/xero/double';
import type { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandApiTarget } from '../../src/cli/command-api-client.js';
import { closeBooks } from '../../src/cli/commands/books.js';
import { requestPeriodClose } from '../../src/cli/commands/close.js';
import type { CloseCertificate } from '../../src/close/certificate.js';
import type { ClosePeriod } from '../../src/close/close-input.js';
import { CommandApiClient } from '../../src/command-api/client.js';
import { loadSettings } from '../../src/config/settings.js';
import { runBusinessDay } from '../../src/demo/business-day.js';
import { readTargetFigures } from '../../src/flows/period-close/activities.js';
import type { TargetSummary } from '../../src/flows/push/target-index.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import type { BookedEntry } from '../../src/ledger/entry.js';
import { isReversalKey } from '../../src/ledger/entry-key.js';
import { dayInZone } from '../../src/ledger/mapping/dates.js';
import { SqliteReportStore } from '../../src/ledger/report-store.js';
import { openQuickBooksTarget } from '../../src/runtime/targets/quickbooks-connection.js';
import { openXeroTarget } from '../../src/runtime/targets/xero-connection.js';
import { defaultAccountCodes, parseAccountMapping } from '../../src/targets/account-mapping.js';
import { markersIn } from '../../src/targets/markers.js';
import type { TargetFigures, TargetFiguresReader } from '../../src/targets/target-figures.js';
import { createTrytonTarget } from '../../src/targets/tryton/index.js';
import { isoDateOf } from '../../src/targets/tryton/json-rpc.js';
import { quickBooksBooksyncChart, xeroBooksyncChart } from '../support/booksync-charts.js';
import { BooksyncProcess } from '../support/booksync-start.js';
import { LogCapture } from '../support/stack/log-capture.js';
import { connectByConsent } from '../support/target-books-scenario.js';
import {
  quickbooksConsentPage,
  quickbooksEntities,
  threeTargetsSettings,
  xeroConsentPage,
} from '../support/three-targets.js';
import { startTryton, type TrytonServer } from '../support/tryton.js';
import { shortMinuteLimits } from '../support/xero/short-minute.js';

// The two-month scenario against the QuickBooks Online and Xero doubles and a real Tryton 8.2 on
// PostgreSQL: the real `booksync start` (real Temporal, the embedded emulator, booksync's workflows and
// activities) pushing to all three targets at once, BOOKS_TIME_ZONE=America/Los_Angeles.
// The real clock is late November and the emulator's clock only moves forward, so "January" is the current
// month (November 2026) and "February" the next: the emulator's clock is advanced to 3 December.
// Month 1: the demo's business day (runBusinessDay, with `booksync start --no-demo`: start's demo would close
// the month right after it) and our own links: an ACH payment, a card payment, a check deposit applied to a
// link, an external payment, a part-paid invoice, a bill paid by ACH and a payout. Then the ledger is closed
// through 30 November (closeBooks of `booksync books close`, its certificate gate through the real
// periodClose workflow, with `today` the emulator's day: the real day is still November), QuickBooks'
// BookCloseDate, Xero's period lock date and Tryton's November period through 30 November.
// Month 2: an ACH return, a returned check, a refund, a voided external payment, a lowered invoice and a late
// month-1 event (an external payment paid 28 November recorded in December). Then: each target's own figures
// as of 30 November are unchanged to the cent; reversals are documents dated in December; every invoice's
// open amount at each target equals the service's remainder; the ledger's month 1 is unchanged and the late
// event is booked on 1 December with its economic date; the certificate passes for both months, and fails
// naming the document a bookkeeper edited by hand in each target.

const zone = 'America/Los_Angeles';
const month1End = '2026-11-30';
const month2Start = '2026-12-01';

const qbo = new QuickBooksDouble({ latencyMs: 2 });
const xero = new XeroDouble({ latencyMs: 2, limits: shortMinuteLimits });
const booksync = new BooksyncProcess();
const adminToken = `admin-${Math.random().toString(36).slice(2)}-two-months`;
let realmId: string;
let tenantId: string;

/**
 * Every target's status: nothing PENDING and nothing FAILED at any of them. Read in this process, as `booksync
 * targets status --json` reads it (a CLI start a second would take a core from the stack under test).
 */
async function untilAllPushed(ms = 300_000): Promise<TargetSummary[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    // A read that failed (the ledger busy under the worker's writes) is asked again.
    const targets = await booksync.targetStatuses().catch((error: unknown) => {
      if (Date.now() > deadline) throw error;
      return [] as TargetSummary[];
    });
    if (targets.length === 3 && targets.every((t) => t.pending === 0)) {
      expect(targets.map((t) => [t.target, t.failed])).toEqual(targets.map((t) => [t.target, 0]));
      return targets;
    }
    if (Date.now() > deadline) throw new Error(`still pending: ${JSON.stringify(targets)}`);
    await sleep(1_000);
  }
}

function openLedger(): EmbeddedLedger {
  return EmbeddedLedger.open({ path: path.join(booksync.dataDir, 'ledger.db') });
}

async function entries(): Promise<BookedEntry[]> {
  const ledger = openLedger();
  try {
    return await ledger.allEntries();
  } finally {
    ledger.close();
  }
}

/** Every webhook since `since` acknowledged, and no new ledger entry for 5 s. */
async function untilBooksQuiet(sandbox: SandboxClient, since: number, ms = 240_000): Promise<void> {
  const deadline = Date.now() + ms;
  let last = -1;
  let quietSince = Date.now();
  for (;;) {
    let acked = true;
    for await (const { event, attempts } of sandbox.allEvents()) {
      if (Date.parse(event.created_at) < since) continue;
      if (!attempts.some((a) => a.statusCode !== null && a.statusCode < 300)) acked = false;
    }
    const count = (await entries()).length;
    if (count !== last) {
      last = count;
      quietSince = Date.now();
    }
    if (acked && Date.now() - quietSince >= 5_000) return;
    if (Date.now() > deadline) throw new Error('the books did not settle');
    await sleep(500);
  }
}

/** Until `probe` answers something. */
async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 90_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(250);
  }
}

/** A Xero document's day (the double answers Xero's /Date(ms+0000)/ or a day). */
function xeroDay(doc: Record<string, unknown>): string {
  const raw = String(doc.DateString ?? doc.Date ?? '');
  const ms = /\/Date\((-?\d+)/.exec(raw);
  return ms ? new Date(Number(ms[1])).toISOString().slice(0, 10) : raw.slice(0, 10);
}

let tryton: TrytonServer;

/** The days of the Tryton records (moves, invoices) booksync made for these keys. */
async function trytonDaysOf(keys: readonly string[]): Promise<string[]> {
  const days: string[] = [];
  for (const key of keys) {
    for (const model of ['account.move', 'account.invoice'] as const) {
      const rows = await tryton.rpc.searchRead<{ date?: unknown; accounting_date?: unknown }>(
        model,
        [['description', 'like', `booksync:${key} %`]],
        model === 'account.move' ? ['date'] : ['accounting_date'],
      );
      for (const row of rows) days.push(isoDateOf(row.date ?? row.accounting_date) ?? '');
    }
  }
  return days;
}

/** A receipt a bookkeeper records by hand in Tryton on a link's invoice: a posted move, its receivable line paying the invoice. */
async function trytonHandPayment(paymentLinkId: string, cents: number, day: string): Promise<void> {
  const [invoice] = await tryton.rpc.searchRead<{ id: number; party: number; account: number }>(
    'account.invoice',
    [
      ['comment', '=', `booksync-link:${paymentLinkId}`],
      ['description', 'like', 'booksync:invoice:%'],
    ],
    ['party', 'account'],
  );
  if (!invoice) throw new Error(`no Tryton invoice of ${paymentLinkId}`);
  const [bank] = await tryton.rpc.searchRead<{ id: number }>(
    'account.account',
    [['code', '=', defaultAccountCodes.OperatingBank]],
    [],
  );
  const [journal] = await tryton.rpc.searchRead<{ id: number }>(
    'account.journal',
    [['code', '=', 'MISC']],
    [],
  );
  const date = { __class__: 'date', year: +day.slice(0, 4), month: +day.slice(5, 7), day: +day.slice(8) };
  const [period] = await tryton.rpc.searchRead<{ id: number }>(
    'account.period',
    [
      ['start_date', '<=', date],
      ['end_date', '>=', date],
      ['type', '=', 'standard'],
    ],
    [],
  );
  const amount = { __class__: 'Decimal', decimal: (cents / 100).toFixed(2) };
  const zero = { __class__: 'Decimal', decimal: '0.00' };
  const [move] = await tryton.rpc.model<number[]>('account.move', 'create', [
    {
      journal: journal?.id,
      period: period?.id,
      date,
      description: 'Cheque received, entered by hand',
      lines: [
        [
          'create',
          [
            { account: bank?.id, debit: amount, credit: zero },
            {
              account: invoice.account,
              party: invoice.party,
              debit: zero,
              credit: amount,
              invoice_payment: invoice.id,
            },
          ],
        ],
      ],
    },
  ]);
  await tryton.rpc.model('account.move', 'post', [move]);
}

let temporal: Connection;
let client: Client;
// The test reads the targets' figures as the certificate does (readTargetFigures: a 429 is read again), in a
// process of its own beside the worker's: both spend the same company's rate limit.
let readers: (TargetFiguresReader & { close(): Promise<void> | void })[] = [];

async function certificate(period: ClosePeriod): Promise<CloseCertificate> {
  // The worker stores the certificate whole in its ledger file; read back from there by the summary's id.
  const ledger = openLedger();
  try {
    return await requestPeriodClose(client, {
      period,
      taskQueue: loadSettings(booksync.env).TEMPORAL_TASK_QUEUE,
      timeoutSeconds: 300,
      reports: new SqliteReportStore(ledger.database),
    });
  } finally {
    ledger.close();
  }
}

function figuresOf(cert: CloseCertificate, target: string) {
  const figures = cert.targetFigures?.find((t) => t.target === target);
  if (!figures)
    throw new Error(`no figures of ${target} in the certificate: ${JSON.stringify(cert.problems)}`);
  return figures;
}

beforeAll(async () => {
  [tryton] = await Promise.all([startTryton(), qbo.start(), xero.start()]);
  // booksync's accounts already in place: this test is about two months closed at three targets, not set-up
  // (test/targets/quickbooks-books.test.ts and xero-books.test.ts close a month after set-up).
  realmId = qbo.createRealm(undefined, { chart: quickBooksBooksyncChart });
  tenantId = xero.createTenant('booksync two months', { chart: xeroBooksyncChart });
  await booksync.prepare({
    ACCOUNTING_TARGET: 'quickbooks,xero,tryton',
    BOOKS_TIME_ZONE: zone,
    EMULATOR_ADMIN_TOKEN: adminToken,
    ...(await threeTargetsSettings(tryton, qbo, xero, 'e2e-secret')),
  });
}, 400_000);

afterAll(async () => {
  for (const reader of readers) await reader.close();
  await temporal?.close();
  await booksync.stop('two-month-close');
  await qbo.stop();
  await xero.stop();
  await tryton?.close();
});

describe('two months closed in QuickBooks and Xero (the doubles) and a real Tryton', {
  timeout: 1_500_000,
}, () => {
  it('month 1 never changes in the ledger or either target; month 2 carries the reversals; the certificate passes both months and names a hand edit', async () => {
    // ---- connect both targets, start, the demo's business day -------------------------------------------
    await connectByConsent(booksync, quickbooksConsentPage(qbo, realmId));
    await connectByConsent(booksync, xeroConsentPage(xero, tenantId));
    // The demo's business day, without the demo's own month close (start's demo ends by closing the month):
    // month 1 here goes on after the day, and this test closes it itself.
    booksync.start({}, ['--no-demo']);
    await booksync.untilOutput('Ctrl-C stops everything.', 0, 600_000);
    const settings = loadSettings(booksync.env);
    ({ client, connection: temporal } = await booksync.temporal());
    const service = booksync.service();
    const sandbox = new SandboxClient({
      baseUrl: `http://127.0.0.1:${booksync.env.EMULATOR_PORT}`,
      apiKey: (
        JSON.parse(readFileSync(path.join(booksync.dataDir, 'embedded-credentials.json'), 'utf8')) as {
          apiKey: string;
        }
      ).apiKey,
      adminToken,
    });
    const commands = new CommandApiClient(commandApiTarget(settings));
    const dayLedger = openLedger();
    try {
      await runBusinessDay({
        service,
        sandbox,
        commands,
        ledger: dayLedger,
        timeZone: zone,
        progress: () => undefined,
      });
    } finally {
      dayLedger.close();
    }
    const logs = new LogCapture();
    const accounts = parseAccountMapping(settings.TARGET_ACCOUNTS);
    const quickbooks = await openQuickBooksTarget({ settings, accounts, logger: logs.logger('qbo', 'warn') });
    const xeroTarget = await openXeroTarget({ settings, accounts, logger: logs.logger('xero', 'warn') });
    const trytonTarget = createTrytonTarget({
      url: tryton.url,
      database: tryton.database,
      username: tryton.username,
      password: tryton.password,
      accounts,
      matching: 'create',
    });
    readers = [quickbooks, xeroTarget, Object.assign(trytonTarget, { close: () => undefined })];

    // ---- month 1: November --------------------------------------------------------------------------------
    const month1Began = Date.parse((await sandbox.clock()).now);
    const today1 = dayInZone(month1Began, zone);
    expect(today1 <= month1End && today1 >= '2026-11-01', `the real day is ${today1}`).toBe(true);
    const customer = await service.createCustomer({ name: 'Harbor Cafe', emails: ['ap@harbor.example'] });
    const link = async (name: string, requestedAmountCents: number, amountEditable = false) =>
      (
        await service.createPaymentLink({
          name,
          requestedAmountCents,
          customerId: customer.id,
          amountEditable,
        })
      ).id;
    const links = {
      ach: await link('NOV-ACH', 300_00),
      card: await link('NOV-CARD', 500_00),
      check: await link('NOV-CHECK', 400_00),
      external: await link('NOV-EXT', 250_00),
      lowered: await link('NOV-LOWER', 900_00, true),
      late: await link('NOV-LATE', 200_00),
    };
    const achPayment = await sandbox.payLink(links.ach, 'ACH');
    const cardPayment = await sandbox.payLink(links.card, 'Card');
    await sandbox.settlePayment(cardPayment.id);
    const partPayment = await sandbox.payLink(links.lowered, 'Card', 300_00);
    await sandbox.settlePayment(partPayment.id);
    const check = await sandbox.depositCheck(400_00, 'Harbor check #77');
    await commands.call('applyDeposit', { checkDepositId: check.id }, { paymentLinkId: links.check });
    await until('the check applied', async () =>
      (await service.getCheckDeposit(check.id)).applications.length === 1 ? true : undefined,
    );
    await commands.call(
      'recordExternalPayment',
      { id: links.external },
      { amountCents: 100_00, paidAt: today1, externalReferenceId: 'wire-nov-1' },
    );
    const external = await until('the external payment recorded', async () =>
      (await service.getPaymentLink(links.external)).externalPayments.find((p) => p.amountCents === 100_00),
    );
    const vendor = await service.createVendor({ name: 'Cold Storage Co', email: 'ar@cold.example' });
    const method = await sandbox.submitVendorOnboardingForm(vendor.id, {
      type: 'ACH',
      routingNumber: '011000015',
      accountNumber: '000987654321',
      accountType: 'CHECKING',
    });
    const bill = await service.createBill({
      vendorId: vendor.id,
      amountCents: 350_00,
      invoiceNumber: 'CS-11',
    });
    const billPayment = await service.createBillPayment(bill.id, method.id);
    await sandbox.advanceBillAch(billPayment.id, 'sent');
    await sandbox.advanceBillAch(billPayment.id, 'succeeded');
    const payout = await sandbox.batchDisbursement();
    await sandbox.succeedDisbursement(payout.id);
    await untilBooksQuiet(sandbox, month1Began);
    // Before a close, as a bookkeeper would: books what booksync has not heard of by a webhook (a link with no
    // money yet has no event: NOV-LATE and the emulator's seeded INV-1001 and INV-1002), else the certificate
    // refuses the close (receivable of the link: books 0, service remainder ...).
    const reconcile = await booksync.cli(['reconcile', '--all']);
    expect(reconcile.code, reconcile.stdout + reconcile.stderr).toBe(0);
    await untilBooksQuiet(sandbox, month1Began);
    await untilAllPushed();

    // ---- into month 2; close month 1 ------------------------------------------------------------------------
    const clock = await sandbox.advanceClock({ days: 8 });
    const today2 = dayInZone(Date.parse(clock.now), zone);
    expect(today2 > month1End && today2 < '2026-12-31', today2).toBe(true);
    const ledger = openLedger();
    try {
      // `booksync books close --through 2026-11-30` as its command does it, but with today the emulator's day
      // (the real day is still November, and the command refuses a day that has not ended).
      const outcome = await closeBooks(
        ledger,
        { through: month1End, force: false, reason: null, timeoutSeconds: 300 },
        today2,
        certificate,
      );
      expect(outcome, outcome.lines.join('\n')).toMatchObject({ exitCode: 0 });
      expect(await ledger.booksClosedThrough()).toBe(month1End);
    } finally {
      ledger.close();
    }
    qbo.closeBooks(realmId, month1End);
    xero.lockDates(tenantId, { period: month1End });
    // Tryton: November's period closed through Tryton's own API, as its bookkeeper would.
    await tryton.setPeriodState('2026-11-15', 'close');
    const month1Entries = (await entries()).filter((e) => e.date <= month1End);
    expect(month1Entries.length).toBeGreaterThan(20);
    const month1Figures: Record<string, TargetFigures> = {};
    for (const reader of readers) month1Figures[reader.name] = await readTargetFigures(reader, month1End);
    for (const figures of Object.values(month1Figures)) {
      expect(Object.keys(figures.openInvoices).length).toBeGreaterThan(3);
    }

    // ---- month 2: December ----------------------------------------------------------------------------------
    const month2Began = Date.parse(clock.now);
    await sandbox.returnAchPayment(achPayment.id);
    await sandbox.settleCheckDeposit(check.id, 'return');
    await commands.call('refreshDeposit', { checkDepositId: check.id });
    await service.refundPayment(cardPayment.id, { amountCents: 200_00, reason: 'Order short' });
    await commands.call('voidExternalPayment', { id: links.external, externalPaymentId: external.id });
    // A month-1 event heard of in month 2: a check the customer paid on 28 November, recorded in December.
    await commands.call(
      'recordExternalPayment',
      { id: links.late },
      { amountCents: 200_00, paidAt: '2026-11-28', externalReferenceId: 'late-nov-check' },
    );
    await untilBooksQuiet(sandbox, month2Began);
    await untilAllPushed();

    // ---- month 1 never changed: the ledger ------------------------------------------------------------------
    const all = await entries();
    // Nothing dated in month 1 was added or changed (reversedBy aside: it points at month 2's reversal).
    const contents = (e: BookedEntry) => [e.key, e.date, e.contentHash, e.lines, e.economicDate ?? null];
    expect(all.filter((e) => e.date <= month1End).map(contents)).toEqual(month1Entries.map(contents));
    const late = all.filter((e) => e.links.paymentLinkId === links.late && e.economicDate);
    expect(late.map((e) => [e.date, e.economicDate])).toEqual([[month2Start, '2026-11-28']]);
    const reversals = all.filter((e) => e.reverses);
    expect(reversals.length).toBeGreaterThanOrEqual(3);
    expect(reversals.filter((e) => e.date <= month1End && e.date >= '2026-11-01').map((e) => e.key)).toEqual(
      // the demo's own returns (an ACH return, a returned check) are month 1's, booked before the close
      month1Entries.filter((e) => e.reverses).map((e) => e.key),
    );
    const month2Reversals = reversals.filter((e) => e.date >= month2Start);
    expect(month2Reversals.length).toBeGreaterThanOrEqual(3);

    // ---- month 1 never changed: each target's own figures ---------------------------------------------------
    for (const reader of readers) {
      expect([reader.name, await readTargetFigures(reader, month1End)]).toEqual([
        reader.name,
        month1Figures[reader.name],
      ]);
    }

    // ---- month 2 carries the reversals: documents dated in December at each target --------------------------
    const month2Keys = new Set(month2Reversals.map((e) => e.key));
    const qboReversalDays = quickbooksEntities.flatMap((entity) =>
      qbo
        .all(realmId, entity)
        .filter((doc) =>
          markersIn(doc.PrivateNote).some((m) => month2Keys.has(m.key) && isReversalKey(m.key)),
        )
        .map((doc) => String(doc.TxnDate)),
    );
    expect(qboReversalDays.length).toBeGreaterThanOrEqual(3);
    expect(qboReversalDays.every((day) => day >= month2Start)).toBe(true);
    const xeroReversalDays = xero
      .booked(tenantId)
      .filter((doc) =>
        markersIn(markerTextOf(doc)).some((m) => month2Keys.has(m.key) && isReversalKey(m.key)),
      )
      .map(xeroDay);
    expect(xeroReversalDays.length).toBeGreaterThanOrEqual(3);
    expect(xeroReversalDays.every((day) => day >= month2Start)).toBe(true);
    const trytonReversalDays = await trytonDaysOf([...month2Keys].filter(isReversalKey));
    expect(trytonReversalDays.length).toBeGreaterThanOrEqual(3);
    expect(trytonReversalDays.every((day) => day >= month2Start)).toBe(true);
    expect([qbo.violations, xero.violations]).toEqual([[], []]);

    // ---- every invoice's open amount at each target is the service's remainder ------------------------------
    const remainders: Record<string, number> = {};
    const booked = new Set(all.flatMap((e) => (e.links.paymentLinkId ? [e.links.paymentLinkId] : [])));
    for await (const l of service.paymentLinks()) {
      if (l.reusable || !booked.has(l.id)) continue;
      remainders[l.id] = l.requestedAmountCents - l.completedAmountCents;
    }
    expect(Object.keys(remainders).length).toBeGreaterThan(10);
    expect(remainders[links.lowered]).toBe(600_00);
    expect(remainders[links.ach]).toBe(300_00);
    expect(remainders[links.check]).toBe(400_00);
    for (const reader of readers) {
      const now = await readTargetFigures(reader, today2);
      const open = Object.fromEntries(Object.keys(remainders).map((id) => [id, now.openInvoices[id] ?? 0]));
      expect([reader.name, open]).toEqual([reader.name, remainders]);
    }

    // ---- the certificate passes for month 1 and for month 2 -------------------------------------------------
    const month1 = await certificate({ from: '2026-11-01', to: month1End });
    expect(month1.problems).toEqual([]);
    expect(month1.passes).toBe(true);
    expect(month1.targetFigures?.map((t) => [t.target, t.ok]).sort()).toEqual([
      ['quickbooks', true],
      ['tryton', true],
      ['xero', true],
    ]);
    const month2 = await certificate({ from: month2Start, to: today2 });
    expect(month2.problems).toEqual([]);
    expect(month2.passes).toBe(true);

    // ---- a bookkeeper edits one invoice by hand in each target: the certificate names it --------------------
    const qboInvoice = qbo
      .all(realmId, 'Invoice')
      .find((inv) => markersIn(inv.PrivateNote).some((m) => m.key === `invoice:${links.external}`));
    if (!qboInvoice) throw new Error('no QuickBooks invoice of NOV-EXT');
    qbo.editTransaction(realmId, 'Invoice', String(qboInvoice.Id), (invoice) => {
      const line = (invoice.Line as { Amount: number; SalesItemLineDetail?: { UnitPrice: number } }[]).find(
        (l) => l.SalesItemLineDetail,
      );
      if (!line?.SalesItemLineDetail) throw new Error('no sales line');
      line.Amount += 50;
      line.SalesItemLineDetail.UnitPrice = line.Amount;
    });
    const xeroInvoice = xero
      .all(tenantId, 'Invoices')
      .find((inv) => markersIn(markerTextOf(inv)).some((m) => m.key === `invoice:${links.card}`));
    if (!xeroInvoice) throw new Error('no Xero invoice of NOV-CARD');
    xero.editDocument(tenantId, 'Invoices', String(xeroInvoice.InvoiceID), (invoice) => {
      const [line] = invoice.LineItems as { UnitAmount: number }[];
      if (!line) throw new Error('no line');
      line.UnitAmount += 25;
    });
    // Tryton: a posted document cannot be edited; the bookkeeper records a 30.00 receipt by hand on NOV-EXT's
    // invoice (a move on the customer's receivable, added to the invoice's payment lines).
    await trytonHandPayment(links.external, 30_00, month2Start);
    const edited = await certificate({ from: month2Start, to: today2 });
    expect(edited.passes).toBe(false);
    const qboFigures = figuresOf(edited, 'quickbooks');
    expect(qboFigures.ok).toBe(false);
    expect(
      qboFigures.documents.filter((d) => !d.ok).map((d) => [d.id, d.targetCents - d.ledgerCents]),
    ).toEqual([[links.external, 50_00]]);
    const xeroFigures = figuresOf(edited, 'xero');
    expect(
      xeroFigures.documents.filter((d) => !d.ok).map((d) => [d.id, d.targetCents - d.ledgerCents]),
    ).toEqual([[links.card, 25_00]]);
    const trytonFigures = figuresOf(edited, 'tryton');
    expect(
      trytonFigures.documents.filter((d) => !d.ok).map((d) => [d.id, d.targetCents - d.ledgerCents]),
    ).toEqual([[links.external, -30_00]]);
    expect(edited.problems.join('\n')).toContain(links.external);
    expect(edited.problems.join('\n')).toContain(links.card);

    // ---- a lowered invoice (the requested amount reduced in month 2) ---------------------------------------
    await service.updatePaymentLink(links.lowered, { requestedAmountCents: 600_00 });
    await commands.call('syncLink', { id: links.lowered }, { reason: 'amount lowered to 600.00' });
    await until('the lowering booked', async () =>
      (await entries()).some((e) => e.key.startsWith(`invoice-adjustment:${links.lowered}`))
        ? true
        : undefined,
    );
    await untilAllPushed();
    const adjustment = (await entries()).find((e) => e.key.startsWith(`invoice-adjustment:${links.lowered}`));
    // Dated today, the worker's real day: still November, so booked on the first open day.
    expect(adjustment?.date.slice(0, 7)).toBe('2026-12');
    expect((await readTargetFigures(quickbooks, today2)).openInvoices[links.lowered]).toBe(300_00);
    // Xero: the lowering's credit note is allocated to the invoice, so Xero's own aged receivables say 300.00.
    expect((await readTargetFigures(xeroTarget, today2)).openInvoices[links.lowered]).toBe(300_00);
    // Tryton: the lowering's credit note is among the invoice's payment lines: Tryton's own figures say 300.00.
    expect((await readTargetFigures(trytonTarget, today2)).openInvoices[links.lowered]).toBe(300_00);
    // The 300.00 forgiven is on Discounts and Write-offs, in the ledger and in each target's own trial balance.
    expect(adjustment?.lines.map((l) => [l.account, l.amountCents])).toEqual([
      ['assets:receivable', -300_00],
      ['revenue:discounts-write-offs', 300_00],
    ]);
    for (const target of [quickbooks, xeroTarget, trytonTarget])
      expect((await readTargetFigures(target, today2)).balances.DiscountsAndWriteOffs).toBe(300_00);
  });
});
