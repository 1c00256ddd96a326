import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodCloseWorkflowId, requestPeriodClose } from '../../src/cli/commands/close.js';
import type { CloseCertificate } from '../../src/close/certificate.js';
import { fullCertificate } from '../../src/close/certificate-summary.js';
import { syncPaymentLinkSignal } from '../../src/flows/payment-link/contract.js';
import { paymentLink } from '../../src/flows/payment-link/workflow.js';
import { monthBefore, periodCloseViewQuery } from '../../src/flows/period-close/workflow.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { SqliteReportStore } from '../../src/ledger/report-store.js';
import {
  ensurePeriodCloseSchedule,
  periodCloseScheduleId,
} from '../../src/runtime/temporal/period-close-schedule.js';
import { workflowIdFor } from '../../src/workflow-safe/workflow-ids.js';
import { booksyncCli } from '../support/booksync-cli.js';
import { type E2EStack, startE2EStack } from '../support/e2e-stack.js';
import { chromiumAvailable, launchHeadlessChromium } from '../support/headless-chromium.js';
import { fixturesDir, startDevServer } from '../support/temporal.js';
import { waitFor } from '../support/wait-for.js';

// The period close over the whole path on a real Temporal dev server: the emulator records its events and
// this test delivers them itself (signalWithStart, as the ingress does), so it can drop some on purpose. The
// workflows fetch state over HTTP and write a ledger file; the periodClose workflow's activity reads both.
// Every expected figure is worked out by hand below (card fee decision “Fees”: round(2.9%) + 30 cents, absorbed).

const root = path.resolve(import.meta.dirname, '../..');
let env: TestWorkflowEnvironment;
let stack: E2EStack;
let day: string;
const delivered = new Set<string>();
const failingIds = { payment: '', externalPayment: '' };
const htmlDir = mkdtempSync(path.join(tmpdir(), 'booksync-close-'));

/** Delivers every recorded event not yet delivered, except those routed to a workflow in `drop`. */
async function deliverEvents(drop: ReadonlySet<string> = new Set()): Promise<number> {
  let count = 0;
  for (const { event } of await stack.events()) {
    if (delivered.has(event.id)) continue;
    delivered.add(event.id);
    const workflowId = stack.workflowIdOf(event);
    if (!workflowId || drop.has(workflowId)) continue;
    await stack.signalEvent(event);
    count++;
  }
  return count;
}

async function hasKeys(...keys: string[]): Promise<void> {
  try {
    await stack.waitForBooks(keys.join(', '), (b) => keys.every((k) => k in b.entries), 30_000);
  } catch (error) {
    const books = await stack.books();
    const events = (await stack.events()).map((e) => `${e.event.category} ${e.event.associated_object_id}`);
    throw new Error(
      `${String(error)}; missing ${keys.filter((k) => !(k in books.entries)).join(' ')}; events ${events.join(', ')}`,
    );
  }
}

/**
 * What `POST /commands/paymentLinks/{id}/sync` does: records made at the service directly (the business's
 * dashboard; this test's API calls) have no webhook, so the link's workflow is told to look.
 */
async function syncLink(paymentLinkId: string): Promise<void> {
  await stack.client.workflow.signalWithStart(paymentLink, {
    workflowId: workflowIdFor('paymentLink', paymentLinkId),
    taskQueue: stack.taskQueue,
    args: [{ paymentLinkId }],
    signal: syncPaymentLinkSignal,
    signalArgs: [{ reason: 'test: records made at the service', commandId: `test-${Date.now()}` }],
  });
}

async function reconcileAll(): Promise<void> {
  await stack.client.workflow.execute('reconciliation', {
    workflowId: `test-reconcile-${Date.now()}`,
    taskQueue: stack.taskQueue,
    args: [{ scope: { kind: 'all' } }],
  });
}

const close = () =>
  requestPeriodClose(stack.client, {
    period: { from: day, to: day },
    taskQueue: stack.taskQueue,
    reports: new SqliteReportStore(stack.ledger.database),
  });

const booksync = (args: string[]) =>
  booksyncCli(args, {
    TEMPORAL_ADDRESS: env.address,
    TEMPORAL_NAMESPACE: env.namespace ?? 'default',
    TEMPORAL_TASK_QUEUE: stack.taskQueue,
    // The CLI reads the certificate back from the ledger the worker stores it in.
    LEDGER_DB: stack.ledger.database.name,
  });

beforeAll(async () => {
  env = await startDevServer();
  stack = await startE2EStack({ temporal: env, dispatcher: 'none' });
  day = (await stack.clock()).now.slice(0, 10);
  // The seeded organization's links were made before booksync listened: the books start in step with the
  // service once a reconciliation has booked their invoices.
  await reconcileAll();
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  await env?.teardown();
  rmSync(htmlDir, { recursive: true, force: true });
});

describe('period close: the completeness certificate', { timeout: 180_000 }, () => {
  const ids: Record<string, string> = {};
  let failing: CloseCertificate;

  it('a clean period passes: every object booked once, clearing and in transit agree, receivables per invoice agree', async () => {
    const a = await stack.service.createPaymentLink({ name: 'CLOSE-A', requestedAmountCents: 100_00 });
    const b = await stack.service.createPaymentLink({ name: 'CLOSE-B', requestedAmountCents: 80_00 });
    const c = await stack.service.createPaymentLink({ name: 'CLOSE-C', requestedAmountCents: 50_00 });
    const pa = await stack.pay(a.id, 'Card'); // fee 290 + 30 = 320, absorbed (the org passes 0% through)
    await stack.settle(pa.id);
    const pb = await stack.pay(b.id, 'ACH'); // PENDING: counted from the start (decision “completedAmountCents”), not batched
    const refunded = await stack.refund(pa.id, 25_00);
    const ep = await stack.service.recordExternalPayment(c.id, { amountCents: 50_00, paidAt: day });
    const memo = await stack.service.recordDebitMemo(c.id, { amountCents: 10_00, description: 'late fee' });
    const payout = await stack.batchDisbursement();
    expect(payout.amountInCents).toBe(100_00 - 320 - 25_00); // 7180
    await stack.succeedDisbursement(payout.id);
    Object.assign(ids, { a: a.id, b: b.id, c: c.id, pa: pa.id, pb: pb.id, payout: payout.id });
    const refundId = refunded.refunds[0]!.id;
    const epId = ep.externalPayment.id;
    const memoId = memo.debitMemo.id;

    expect(await deliverEvents()).toBeGreaterThan(0);
    await syncLink(c.id);
    await hasKeys(
      `payment:${pa.id}`,
      `payment-fee:${pa.id}`,
      `payment:${pb.id}`,
      `refund:${refundId}`,
      `external-payment:${epId}`,
      `debit-memo:${memoId}`,
      `disbursement-paid:${payout.id}`,
    );

    const cert = await close();
    expect(cert.problems).toEqual([]);
    expect(cert.passes).toBe(true);
    const objects = cert.objects.map((o) => [o.kind, o.id, o.amountCents, o.status, o.entryKey]);
    expect(objects).toEqual(
      expect.arrayContaining([
        ['payment', pa.id, 100_00, 'BOOKED', `payment:${pa.id}`],
        ['payment', pb.id, 80_00, 'BOOKED', `payment:${pb.id}`],
        ['refund', refundId, 25_00, 'BOOKED', `refund:${refundId}`],
        ['externalPayment', epId, 50_00, 'BOOKED', `external-payment:${epId}`],
        ['debitMemo', memoId, 10_00, 'BOOKED', `debit-memo:${memoId}`],
        ['disbursement', payout.id, 71_80, 'BOOKED', `disbursement-pending:${payout.id}`],
      ]),
    );
    expect(cert.counts).toMatchObject({ objects: 6, BOOKED: 6, SKIPPED: 0, MISSING: 0, orphans: 0 });
    // Clearing: +10000 - 320 - 2500 + 8000 - 7180 = 8000. In transit: the payout succeeded, 0.
    expect(cert.balances.map((x) => [x.check, x.booksCents, x.serviceCents, x.ok])).toEqual([
      ['ProcessorClearing', 80_00, 80_00, true],
      ['PayoutsInTransit', 0, 0, true],
    ]);
    // A: 10000 asked, 7500 completed after the refund reopened it: 2500. B: paid. C: 6000 asked with the memo, 5000 paid.
    const receivable = (id: string) => cert.receivables.find((r) => r.documentId === id);
    expect(receivable(a.id)).toEqual({ documentId: a.id, booksCents: 25_00, serviceCents: 25_00, ok: true });
    expect(receivable(b.id)).toEqual({ documentId: b.id, booksCents: 0, serviceCents: 0, ok: true });
    expect(receivable(c.id)).toEqual({ documentId: c.id, booksCents: 10_00, serviceCents: 10_00, ok: true });
    expect(cert.flow).toEqual({
      receivedCents: 180_00,
      feesCents: 320,
      refundsCents: 25_00,
      disbursedCents: 71_80,
      reachedBankCents: 71_80,
    });
    expect(cert.targets).toBeNull();
    // The workflow's result and view query are the certificate's summary, the whole one stored by its id.
    const handle = stack.client.workflow.getHandle(periodCloseWorkflowId({ from: day, to: day }));
    const summary = await handle.result();
    expect(summary).toMatchObject({ passes: true, problemCount: 0, problems: [], counts: cert.counts });
    const view = await handle.query(periodCloseViewQuery);
    expect(view).toEqual({ state: 'DONE', period: { from: day, to: day }, certificate: summary });
    if (process.env.BOOKSYNC_RECORD_HISTORIES) {
      const handle = stack.client.workflow.getHandle(periodCloseWorkflowId({ from: day, to: day }));
      writeFileSync(
        path.join(fixturesDir, 'histories', 'period-close-clean.json'),
        `${historyToJSON(await handle.fetchHistory())}\n`,
      );
    }
  });

  it('dropped webhooks fail the certificate with the missing objects listed; after reconciliation it passes', async () => {
    const d = await stack.service.createPaymentLink({ name: 'CLOSE-D', requestedAmountCents: 30_00 });
    const pd = await stack.pay(d.id, 'Card'); // fee 87 + 30 = 117
    await stack.settle(pd.id);
    const ep2 = await stack.service.recordExternalPayment(ids.c!, { amountCents: 10_00, paidAt: day });
    const epId = ep2.externalPayment.id;
    Object.assign(failingIds, { payment: pd.id, externalPayment: epId });
    // Nothing about link D, its payment or the new record on C reaches booksync.
    const dropped = new Set([
      workflowIdFor('paymentLink', d.id),
      workflowIdFor('payment', pd.id),
      workflowIdFor('paymentLink', ids.c!),
    ]);
    await deliverEvents(dropped);

    failing = await close();
    expect(failing.passes).toBe(false);
    expect(
      failing.objects
        .filter((o) => o.status !== 'BOOKED')
        .map((o) => [o.kind, o.id, o.amountCents, o.status]),
    ).toEqual(
      expect.arrayContaining([
        ['payment', pd.id, 30_00, 'MISSING'],
        ['externalPayment', epId, 10_00, 'MISSING'],
      ]),
    );
    expect(failing.counts).toMatchObject({ objects: 8, BOOKED: 6, MISSING: 2 });
    // The service holds 3000 - 117 more than the books know of: 8000 + 2883.
    expect(failing.balances[0]).toMatchObject({ booksCents: 80_00, serviceCents: 108_83, ok: false });
    // C's record paid the rest of it at the service; the books still see 1000 owed.
    expect(failing.receivables.find((r) => r.documentId === ids.c)).toMatchObject({
      booksCents: 10_00,
      serviceCents: 0,
      ok: false,
    });
    expect(failing.problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`payment ${pd.id}`),
        expect.stringContaining(`externalPayment ${epId}`),
        `Processor Clearing as of ${day}: books 8000 cents, service 10883 cents`,
      ]),
    );

    const cli = await booksync([
      'close',
      '--from',
      day,
      '--to',
      day,
      '--html',
      path.join(htmlDir, 'failing.html'),
    ]);
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(2);
    const lines = cli.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^period close ${day} to ${day}: FAILS \\(as of `));
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^\\s+payment\\s+${pd.id}\\s+${day}\\s+\\$30\\.00\\s+MISSING`)),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^\s+Processor Clearing\s+\$80\.00\s+\$108\.83\s+DIFFERS$/),
    );
    expect(lines.at(-1)).toBe(`written: ${path.join(htmlDir, 'failing.html')}`);

    await reconcileAll();
    const fixed = await close();
    expect(fixed.problems).toEqual([]);
    expect(fixed.passes).toBe(true);
    expect(fixed.counts).toMatchObject({ objects: 8, BOOKED: 8, MISSING: 0 });
    expect(fixed.balances[0]).toMatchObject({ booksCents: 108_83, serviceCents: 108_83, ok: true });
    const books = await stack.ledger.trialBalance();
    expect(books.balanced).toBe(true);
    expect(await stack.ledger.balanceOf(Accounts.ProcessorClearing)).toBe(108_83);

    const json = await booksync(['close', '--from', day, '--to', day, '--json']);
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout) as CloseCertificate;
    expect(parsed.passes).toBe(true);
    expect(parsed.counts.BOOKED).toBe(8);
    // The whole certificate, read back from the ledger's reports: the workflow's result is its summary.
    expect(parsed.objects).toHaveLength(8);
    const result = await stack.client.workflow
      .getHandle(periodCloseWorkflowId({ from: day, to: day }))
      .result();
    expect(result).toMatchObject({ passes: true, problemCount: 0, reportId: expect.any(String) });
    expect(result).not.toHaveProperty('objects');
    const bad = await booksync(['close', '--from', '2026-03-31', '--to', '2026-03-01']);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe('booksync: close: --from 2026-03-31 is after --to 2026-03-01');
  });

  it.runIf(chromiumAvailable)(
    'the HTML page, in headless Chromium, shows the verdict, the missing objects, the balances and the money flow',
    async () => {
      const file = path.join(htmlDir, 'failing.html');
      const html = readFileSync(file, 'utf8');
      expect(html).toMatch(/^<!doctype html>/);
      // Self-contained: no script, no stylesheet or image fetched from anywhere.
      expect(html).not.toMatch(/<script|<link|<img|src=|url\((?!#)/i);
      const browser = await launchHeadlessChromium();
      try {
        const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
        const requests: string[] = [];
        page.on('request', (request) => requests.push(request.url()));
        await page.goto(pathToFileURL(file).href);
        expect(requests).toEqual([pathToFileURL(file).href]);
        expect(await page.title()).toBe(`Period close ${day} to ${day}: FAILS`);
        expect(await page.locator('#verdict').textContent()).toBe('FAILS');
        expect(await page.locator('#verdict').isVisible()).toBe(true);
        const missing = page.locator('#objects tbody tr.bad');
        expect(await missing.count()).toBe(2);
        const missingRows = await missing.allInnerTexts();
        expect(missingRows.some((row) => row.includes(failingIds.payment) && row.includes('MISSING'))).toBe(
          true,
        );
        expect(
          missingRows.some((row) => row.includes(failingIds.externalPayment) && row.includes('$10.00')),
        ).toBe(true);
        expect(await page.locator('#objects tbody tr.ok').count()).toBe(6);
        const clearing = await page.locator('#balances tbody tr').first().locator('td').allTextContents();
        expect(clearing.slice(0, 4)).toEqual(['Processor Clearing', '$80.00', '$108.83', 'DIFFERS']);
        // The basis: as of the end of the period's last day, from the service's own dates.
        expect(clearing[4]).toMatch(new RegExp(`^as of the end of ${day} \\(`));
        expect(await page.locator('#problems li').count()).toBe(failing.problems.length);
        // The chart: five bars, each as tall as its share of the largest (received, $180.00), and drawn.
        const bars = await page.locator('#flow g.step').evaluateAll((groups) =>
          groups.map((g) => {
            const rect = g.querySelector('rect')!.getBoundingClientRect();
            return {
              step: g.getAttribute('data-step'),
              cents: Number(g.getAttribute('data-cents')),
              label: g.querySelector('text.amount')!.textContent,
              height: Math.round(rect.height),
            };
          }),
        );
        expect(bars.map(({ step, cents, label }) => [step, cents, label])).toEqual([
          ['received', 180_00, '$180.00'],
          ['fees', 320, '$3.20'],
          ['refunds', 25_00, '$25.00'],
          ['disbursed', 71_80, '$71.80'],
          ['bank', 71_80, '$71.80'],
        ]);
        // 200 px for the largest bar (viewBox 760 wide shown at 760 px): the others in proportion.
        expect(bars.map((b) => b.height)).toEqual([200, 4, 28, 80, 80]);
        const shot = path.join(root, 'test', '.artifacts', 'period-close.png');
        mkdirSync(path.dirname(shot), { recursive: true });
        await page.screenshot({ path: shot, fullPage: true });
      } finally {
        await browser.close();
      }
    },
    60_000,
  );

  it('the monthly Schedule is created at start-up (twice is fine) and its run closes the month just ended', async () => {
    const options = { taskQueue: stack.taskQueue, timeZone: 'America/Los_Angeles', closeBooks: true };
    const first = await ensurePeriodCloseSchedule(stack.client, options);
    const again = await ensurePeriodCloseSchedule(stack.client, options);
    expect([first.created, again.created]).toEqual([true, false]);
    const schedule = stack.client.schedule.getHandle(periodCloseScheduleId);
    const described = await schedule.describe();
    expect(described.spec.calendars?.[0]).toMatchObject({
      dayOfMonth: [{ start: 1, end: 1, step: 1 }],
      hour: [{ start: 2, end: 2, step: 1 }],
    });
    expect(described.spec.timezone).toBe('America/Los_Angeles');
    expect(described.action).toMatchObject({
      workflowType: 'periodClose',
      taskQueue: stack.taskQueue,
      args: [{ lastMonth: true, timeZone: 'America/Los_Angeles', closeBooks: true }],
    });
    expect(await stack.ledger.booksClosedThrough()).toBeNull();
    await schedule.trigger();
    const workflowId = await waitFor('the schedule started a run', async () => {
      const recent = (await schedule.describe()).info.recentActions;
      return recent[0]?.action.workflow.workflowId;
    });
    expect(workflowId.startsWith('scheduled-period-close-')).toBe(true);
    const cert = await fullCertificate(
      await stack.client.workflow.getHandle(workflowId).result(),
      new SqliteReportStore(stack.ledger.database),
    );
    // Nothing of this test is dated last month; the balances (as of the month's end) and receivables (as of
    // now) agree since the reconciliation above.
    expect({ from: cert.from, to: cert.to }).toEqual(monthBefore(Date.now(), 'America/Los_Angeles'));
    expect(cert.counts.objects).toBe(0);
    expect(cert.problems).toEqual([]);
    expect(cert.passes).toBe(true);
    // PERIOD_CLOSE_CLOSES_BOOKS: the passing certificate closed the ledger through the month's last day.
    expect(await stack.ledger.booksClosedThrough()).toBe(cert.to);
    expect((await stack.ledger.booksClosings())[0]?.reason).toMatch(/passed \(monthly Schedule\)/);
    await schedule.delete();
  });
});
