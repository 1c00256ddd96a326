import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SandboxClient } from '@booksync/emulator/sandbox-client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodCloseWorkflowId } from '../../src/cli/commands/close.js';
import { fullCertificate } from '../../src/close/certificate-summary.js';
import {
  accountingTargetWorkflowId,
  accountingTargetWorkflowType,
  entriesPostedSignal,
} from '../../src/flows/push/contract.js';
import { SqliteTargetIndex } from '../../src/flows/push/target-index.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { dayAfter, dayInZone } from '../../src/ledger/mapping/dates.js';
import { SqliteReportStore } from '../../src/ledger/report-store.js';
import { TargetRefusedError } from '../../src/targets/errors.js';
import { LedgerMirrorTarget } from '../../src/targets/ledger-mirror-target.js';
import { pushOneByOne } from '../../src/targets/push-one-by-one.js';
import { serviceReferences } from '../../src/targets/service-references.js';
import type { AccountingTarget, PushContext, TargetDocument } from '../../src/targets/target-port.js';
import { chromiumAvailable, launchHeadlessChromium } from '../support/headless-chromium.js';
import type { EmulatorPart } from '../support/stack/emulator.js';
import { type Stack, startStack } from '../support/stack/stack.js';
import { waitFor } from '../support/wait-for.js';

// The console in headless Chromium through a real stack: a Temporal dev server, booksync's worker with the
// real activities pushing to an accounting target (the ledger mirror behind a switch this test flips), the
// ingress serving the console, and the emulator delivering webhooks over HTTP. A bookkeeper signs in, finds
// the entry the target refused, presses Retry once the cause is gone and sees it pushed; the receivables
// page shows what the service says each invoice still owes.

const password = 'console-browser-password';
const hostileName = '<script>window.owned = true</script> Bakery';

/** The mirror ledger, refusing payment documents while `refusing` is set. */
class Switch implements AccountingTarget {
  readonly name = 'mirror';
  refusing = true;
  readonly inner: AccountingTarget;
  constructor(inner: AccountingTarget) {
    this.inner = inner;
  }
  verify = () => this.inner.verify();
  find = (key: string) => this.inner.find(key);
  lockedThrough = () => this.inner.lockedThrough();
  close = () => this.inner.close();
  warning = () => null;
  readonly batches = false;
  pushMany = (documents: TargetDocument[], context: PushContext) => pushOneByOne(this, documents, context);
  async push(document: TargetDocument, context: PushContext) {
    if (this.refusing && document.key.startsWith('payment:')) {
      throw new TargetRefusedError(this.name, 'Account 1020 is archived <b>(test)</b>');
    }
    return this.inner.push(document, context);
  }
}

let env: TestWorkflowEnvironment;
/** Temporal and the emulator; the books side (ledger, worker pushing to the target, ingress) over them. */
let serviceSide: Stack;
let emulator: EmulatorPart;
let books: Stack;
let ingressUrl: string;
let ledger: EmbeddedLedger;
let mirror: EmbeddedLedger;
let index: SqliteTargetIndex;
let target: Switch;
let browser: Browser;
let dir: string;
let sandbox: SandboxClient;
const ids = { link: '', payment: '', customer: '', other: '', otherPayment: '' };

async function signedIn(url: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${ingressUrl}${url}`);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  expect(new URL(page.url()).pathname).toBe(url.split('?')[0]);
  return page;
}

/** Each page as seen, in test/.artifacts; `scripts/console-screenshots.sh` also keeps them for docs/bookkeeping.md. */
const shot = async (page: Page, name: string) => {
  const dirs = [path.join('test', '.artifacts'), process.env.BOOKSYNC_SCREENSHOTS_DIR].filter(
    (d): d is string => Boolean(d),
  );
  for (const dir of dirs) {
    mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: path.join(dir, `console-${name}.png`), fullPage: true });
  }
};

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'booksync-console-'));
  serviceSide = await startStack({
    name: 'console',
    temporal: 'dev-server',
    emulator: {
      adminToken: 'console-browser-admin-token',
      dispatch: 'direct',
      backoffMs: [200, 500, 1_000],
      closeWithinMs: 5_000,
    },
  });
  env = serviceSide.temporal.env!;
  emulator = serviceSide.emulator!;
  ledger = EmbeddedLedger.open({ path: path.join(dir, 'ledger.db') });
  mirror = EmbeddedLedger.open();
  index = new SqliteTargetIndex(ledger.database);
  target = new Switch(new LedgerMirrorTarget(mirror));
  const references = serviceReferences(emulator.service);
  books = await startStack({
    temporal: env,
    emulator: emulator.service,
    ledger,
    worker: { run: 'in-process' },
    taskQueuePrefix: 'console',
    targets: { targets: new Map([[target.name, target]]), index, references, inFlightWaitMs: 90_000 },
    ingress: {
      commandApiKey: 'console-browser-command-key-0123456789',
      console: {
        ledger,
        targetIndex: index,
        // The certificates the worker keeps whole beside the entries, read back by the close page.
        reports: new SqliteReportStore(ledger.database),
        targets: [target.name],
        credentials: { password },
        storeFile: path.join(dir, 'console.db'),
        timeZone: 'UTC',
        secureCookie: false,
        references,
      },
    },
  });
  ingressUrl = books.ingress!.url;

  // The business: a customer with a hostile name owing 800.00 and paying 300.00 of it by card; another
  // invoice paid in part too.
  const { service } = emulator;
  const customer = await service.createCustomer({ name: hostileName, emails: ['owner@bakery.example'] });
  const link = await service.createPaymentLink({
    name: 'INV-2001',
    requestedAmountCents: 80_000,
    customerId: customer.id,
    amountEditable: true,
  });
  const other = await service.createPaymentLink({
    name: 'INV-2002',
    requestedAmountCents: 12_345,
    customerId: customer.id,
    amountEditable: true,
  });
  sandbox = new SandboxClient({ baseUrl: emulator.serviceUrl, apiKey: emulator.apiKey });
  const payment = await sandbox.payLink(link.id, 'Card', 30_000);
  const otherPayment = await sandbox.payLink(other.id, 'Card', 2_345);
  Object.assign(ids, {
    link: link.id,
    payment: payment.id,
    customer: customer.id,
    other: other.id,
    otherPayment: otherPayment.id,
  });
  await waitFor(
    'both payments booked',
    async () =>
      (await ledger.entriesFor({ paymentLinkId: link.id })).some((e) => e.key.startsWith('payment:')) &&
      (await ledger.entriesFor({ paymentLinkId: other.id })).some((e) => e.key.startsWith('payment:')),
    120_000,
  );
  // The push flow, woken as the worker's notifying ledger would.
  await env.client.workflow.signalWithStart(accountingTargetWorkflowType, {
    workflowId: accountingTargetWorkflowId(target.name),
    taskQueue: books.taskQueue,
    args: [{ target: target.name }],
    signal: entriesPostedSignal,
    signalArgs: [],
  });
  // Both payments refused: the first test retries one by its row, then the other with Retry all.
  await waitFor(
    'both refusals in the index',
    async () =>
      (await index.get(target.name, `payment:${payment.id}`))?.status === 'FAILED' &&
      (await index.get(target.name, `payment:${otherPayment.id}`))?.status === 'FAILED',
    120_000,
  );
  if (chromiumAvailable) browser = await launchHeadlessChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await books?.close();
  await serviceSide?.close();
  ledger?.close();
  mirror?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the console through the real stack', () => {
  it('answers 401 to an API-style request without a session', async () => {
    const response = await fetch(`${ingressUrl}/console/sync-errors`, {
      headers: { accept: 'application/json' },
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: 'unauthorized' });
  });

  it.runIf(chromiumAvailable)(
    'signs in, shows the refused entry with the target message, retries it and shows it pushed',
    async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${ingressUrl}/console/sync-errors`);
      expect(new URL(page.url()).pathname).toBe('/console/sign-in');
      await page.getByLabel('Password').fill(password);
      // The account the form offers first is the bookkeeper's.
      expect(await page.getByLabel('Account').inputValue()).toBe('bookkeeper');
      await shot(page, 'sign-in');
      await page.getByRole('button', { name: 'Sign in' }).click();
      expect(new URL(page.url()).pathname).toBe('/console/sync-errors');

      const key = `payment:${ids.payment}`;
      const row = page.locator(`tr[data-key="${key}"]`);
      expect(await row.locator('td.reason').textContent()).toBe('Account 1020 is archived <b>(test)</b>');
      expect(await row.textContent()).toContain(ids.link);
      await shot(page, 'sync-errors');

      target.refusing = false; // the bookkeeper fixed the account at the target
      await page.getByRole('button', { name: `Retry ${key}` }).click();
      expect(await page.locator('#notice').textContent()).toBe('Queued 1 entry of mirror for another push.');
      await waitFor(
        'the retried entry pushed',
        async () => (await index.get(target.name, key))?.status === 'PUSHED',
        60_000,
      );
      await page.goto(`${ingressUrl}/console/sync-errors`);
      expect(await page.locator(`tr[data-key="${key}"]`).count()).toBe(0);
      // The other invoice's payment was refused too: Retry all takes what is left.
      const otherKey = (await ledger.entriesFor({ paymentLinkId: ids.other })).find((e) =>
        e.key.startsWith('payment:'),
      )?.key as string;
      expect(
        await page.locator('tr[data-key]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key'))),
      ).toEqual([otherKey]);
      await page.getByRole('button', { name: 'Retry all 1 at mirror' }).click();
      expect(await page.locator('#notice').textContent()).toBe('Queued 1 entry of mirror for another push.');
      // Retry all queues the entry again (PENDING, no longer FAILED) before the push takes it: wait for PUSHED.
      await waitFor(
        'every entry pushed',
        async () =>
          (await index.summary(target.name)).failed === 0 &&
          (await index.get(target.name, otherKey))?.status === 'PUSHED',
        60_000,
      );
      await page.goto(`${ingressUrl}/console/sync-errors`);
      expect(await page.getByText('Nothing failed at mirror.').isVisible()).toBe(true);
      expect((await index.get(target.name, otherKey))?.status).toBe('PUSHED');

      await page.getByRole('link', { name: 'Overview' }).click();
      const summary = await index.summary(target.name);
      const cells = await page.locator('tr[data-target="mirror"] td').allTextContents();
      expect(cells.slice(0, 4)).toEqual([
        String(summary.pushed),
        String(summary.pending),
        '0',
        String(summary.skipped),
      ]);
      expect(await page.locator('#books-balanced').getAttribute('class')).toBe('ok');
      await shot(page, 'overview');

      await page.getByRole('link', { name: 'Audit log' }).click();
      const audit = await page.locator('#audit tbody tr').allTextContents();
      expect(
        audit.some(
          (r) => r.includes('bookkeeper (console password)') && r.includes(`retry ${key} at mirror`),
        ),
      ).toBe(true);
      expect(
        audit.some((r) => r.includes('retry every failed entry at mirror') && r.includes('queued 1')),
      ).toBe(true);
      await page.close();
    },
    120_000,
  );

  it.runIf(chromiumAvailable)(
    "shows each invoice's open amount equal to the service's remainder, the customer's name as text",
    async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${ingressUrl}/console/receivables`);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      expect(new URL(page.url()).pathname).toBe('/console/receivables');
      for (const id of [ids.link, ids.other]) {
        const link = await emulator.service.getPaymentLink(id);
        const row = page.locator(`#receivables tr[data-document="${id}"]`);
        expect(Number(await row.getAttribute('data-open-cents')), id).toBe(
          link.requestedAmountCents - link.completedAmountCents,
        );
        expect(await row.textContent()).toContain(hostileName);
        expect(await row.textContent()).toContain(link.name);
      }
      expect(await page.evaluate('typeof window.owned')).toBe('undefined');
      await shot(page, 'receivables');

      await page.getByLabel(/Search by invoice/).fill('INV-2002');
      await page.getByRole('button', { name: 'Search' }).click();
      expect(await page.locator('#receivables tbody tr').count()).toBe(1);
      expect(await page.locator(`#receivables tr[data-document="${ids.other}"]`).count()).toBe(1);
      await page.close();
    },
    120_000,
  );

  it.runIf(chromiumAvailable)(
    "shows a payout's payments, makes the day's certificate and closes the books through yesterday",
    async () => {
      await sandbox.settlePayment(ids.payment);
      await sandbox.settlePayment(ids.otherPayment);
      const payout = await sandbox.batchDisbursement();
      await sandbox.succeedDisbursement(payout.id);
      await waitFor(
        'the payout booked',
        async () => (await ledger.entriesFor({ disbursementId: payout.id })).length >= 2,
        120_000,
      );
      // The list of recent payouts, from the books: the demo's payout, paid, its link opening its report.
      const page = await signedIn('/console/payouts');
      const row = page.locator(`#recent-payouts tr[data-disbursement="${payout.id}"]`);
      expect(await row.locator('td').nth(3).textContent()).toMatch(/^paid/);
      await row.getByRole('link', { name: payout.id }).click();
      await page.waitForURL(`**/console/payouts?disbursement=${payout.id}`);
      const payments = await page.locator('#payout-payments tbody tr td:first-child').allTextContents();
      expect(payments.sort()).toEqual([ids.payment, ids.otherPayment].sort());
      expect(await page.locator('#payout').getAttribute('data-reconciles')).toBe('true');
      await shot(page, 'payouts');

      const today = dayInZone(Date.now(), 'UTC');
      await page.getByRole('link', { name: 'Close' }).click();
      await page.getByLabel('From').fill(today);
      await page.getByLabel('To', { exact: true }).fill(today);
      await page.getByRole('button', { name: 'Make the certificate' }).click();
      const certificate = await fullCertificate(
        await env.client.workflow.getHandle(periodCloseWorkflowId({ from: today, to: today })).result(),
        new SqliteReportStore(ledger.database),
      );
      expect(await page.locator('#verdict').textContent()).toBe(certificate.passes ? 'PASSES' : 'FAILS');
      expect(await page.title()).toBe(
        `Period close ${today} to ${today}: ${certificate.passes ? 'PASSES' : 'FAILS'}`,
      );
      // The reconciliation's sections, as the stored certificate has them: the period's figures against the
      // service, each document as of the period's end, what it proves and what it cannot.
      const figures = certificate.periodFigures ?? [];
      expect(figures.length).toBeGreaterThan(0);
      expect(await page.locator('#period-figures tbody td:first-child').allTextContents()).toEqual(
        figures.map((f) => f.title),
      );
      const atEnd = certificate.documentsAtEnd;
      expect(atEnd).toBeDefined();
      const { agree, differ } = atEnd!.counts.receivables;
      expect(await page.locator('#receivables-at-end-counts').textContent()).toBe(
        `${agree} of ${agree + differ} agree.`,
      );
      expect(await page.locator('#proves li').allTextContents()).toEqual(certificate.proves ?? []);
      expect(await page.locator('#cannot-prove li').count()).toBe(certificate.cannotProve?.length ?? 0);
      expect(certificate.proves?.length).toBeGreaterThan(0);
      await shot(page, 'certificate');

      // Closing through yesterday: the month's certificate fails (the demo organization's seeded invoices,
      // never announced by a webhook, are not in the books), so the books stay open; forced, with the
      // reason, they close.
      const yesterday = [...Array(40).keys()]
        .map((n) => dayInZone(Date.now() - n * 86_400_000, 'UTC'))
        .find((d) => dayAfter(d) === today) as string;
      await page.goto(`${ingressUrl}/console/close`);
      await page.getByLabel("Through (the period's last day)").fill(yesterday);
      await page.getByRole('button', { name: 'Close the books' }).click();
      const refused = (await page.locator('#outcome').textContent()) as string;
      expect(refused).toContain('fails');
      expect(refused).toContain('the books stay open');
      expect(await ledger.booksClosedThrough()).toBeNull();
      await page.getByLabel("Through (the period's last day)").fill(yesterday);
      await page.getByLabel('Reason (recorded; needed to force)').fill('seeded demo invoices');
      await page.getByLabel('Close even if the certificate fails').check();
      await page.getByRole('button', { name: 'Close the books' }).click();
      expect(await page.locator('#outcome').textContent()).toContain(
        `the books are closed through ${yesterday}`,
      );
      expect(await ledger.booksClosedThrough()).toBe(yesterday);
      const closing = await page.locator('#closings tbody tr').first().textContent();
      expect(closing).toContain(yesterday);
      expect(closing).toContain('FORCED');
      expect(closing).toContain('seeded demo invoices');
      await shot(page, 'close');
      await page.close();
    },
    240_000,
  );
});
