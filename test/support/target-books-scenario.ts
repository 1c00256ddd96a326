import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { CloseCertificate } from '../../src/close/certificate.js';
import { loadEnvFile } from '../../src/config/env-file.js';
import { accountingTargetViewQuery } from '../../src/flows/push/contract.js';
import { type AccountName, Accounts } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import type { BookedEntry } from '../../src/ledger/entry.js';
import {
  type AccountMapping,
  type AccountRole,
  defaultAccountCodes,
  parseAccountMapping,
} from '../../src/targets/account-mapping.js';
import { LastError, NeedsAttention } from '../../src/workflow-safe/search-attributes.js';
import type { BooksyncProcess } from './booksync-start.js';

// The steps of the end-to-end books scenario every OAuth accounting target (QuickBooks Online, Xero) runs
// against its test double with the real `booksync start`: connect by consent (the test playing the
// operator's browser) to a company that starts as the vendor's fresh one, `booksync targets setup` (the plan,
// then --apply, then --apply again changing nothing), a SIGKILL between a create and its index write and
// every event twice more, a 429 storm and a 60 s outage, a revoked connection; and, on a company of its own,
// the newcomer's way: connect, set up, `booksync start` booking the demo day and closing its month. Each target's test gives what is its own (the consent
// page's address and scope, the answer's fields, how its double counts creates and what it holds).

/** An access or refresh token as the doubles issue them: never in what the operator or the logs see. */
export const issuedToken = /\b(rt|at)-[0-9a-f]{24}\b/;

/** What the consent steps need to know of a target. */
export interface ConsentPage {
  /** `booksync targets connect <target>`. */
  target: 'quickbooks' | 'xero';
  /** The line the command prints while it waits for the browser (listener mode). */
  waiting: string;
  /** The consent address in the command's output. */
  address: RegExp;
  /** The target's checks of the consent address (client id, scope). */
  expectConsent(consent: URL): void;
  /** The redirect's query: the double's authorization code and `state` (a forged one has another). */
  answer(code: 'forged' | 'granted', state: string): Record<string, string>;
  /** What the command prints once connected. */
  connected: string;
}

/** `booksync targets connect <target>`, the test playing the operator's browser on the consent page. */
export async function connectByConsent(
  booksync: BooksyncProcess,
  page: ConsentPage,
  how: 'listener' | 'paste' = 'listener',
): Promise<string> {
  const args = ['targets', 'connect', page.target, ...(how === 'paste' ? ['--paste'] : [])];
  const child = spawn(process.execPath, [path.resolve('bin/booksync.js'), ...args], {
    env: booksync.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  while (!out.includes(how === 'paste' ? 'Paste the address' : page.waiting)) {
    if (Date.now() > deadline) throw new Error(`no consent URL:\n${out}`);
    await sleep(100);
  }
  const consent = new URL(page.address.exec(out)?.[0] ?? '');
  page.expectConsent(consent);
  const redirect = new URL(consent.searchParams.get('redirect_uri') as string);
  const forged = new URLSearchParams(page.answer('forged', 'not-ours')).toString();
  const answer = new URLSearchParams(
    page.answer('granted', consent.searchParams.get('state') as string),
  ).toString();
  if (how === 'paste') {
    // The operator pastes what the browser shows: a wrong one is refused, the command keeps reading.
    child.stdin.write(`${redirect.origin}${redirect.pathname}?${forged}\n`);
    child.stdin.write(`${redirect.origin}${redirect.pathname}?${answer}\n`);
  } else {
    // A forged redirect (another state) is refused and the command keeps waiting.
    redirect.search = forged;
    expect((await fetch(redirect)).status).toBe(400);
    redirect.search = answer;
    expect((await fetch(redirect)).status).toBe(200);
  }
  expect(await exit, out).toBe(0);
  expect(out).toContain(page.connected);
  if (how === 'paste') expect(out).toContain('not that one: the redirect is not the answer to this connect');
  // No token in what the operator sees.
  expect(out).not.toMatch(issuedToken);
  return out;
}

/** The settings file of the booksync under test, as its commands read it. */
function settingsFile(booksync: BooksyncProcess): string {
  return path.join(booksync.dataDir, 'booksync.env');
}

/** TARGET_ACCOUNTS as booksync's commands read it: the environment over the settings file. */
export function targetAccounts(booksync: BooksyncProcess): AccountMapping {
  const env: NodeJS.ProcessEnv = { BOOKSYNC_DATA_DIR: booksync.dataDir, ...booksync.env };
  loadEnvFile(env);
  return parseAccountMapping(env.TARGET_ACCOUNTS);
}

/** What set-up asks of a target's double. */
export interface TargetChart {
  /** The accounts in the company's chart now. */
  accounts(): number;
}

/**
 * `booksync targets setup <target>` on the company just connected, which holds none of booksync's accounts:
 * the plan (each role matched or to create, nothing created), then `--apply` (the accounts created at the
 * target, TARGET_ACCOUNTS written to the settings file), then `--apply` again (nothing to change). Answers
 * the mapping written.
 */
export async function setUpAccounts(
  booksync: BooksyncProcess,
  target: 'quickbooks' | 'xero',
  chart: TargetChart,
): Promise<AccountMapping> {
  const before = chart.accounts();
  const plan = await booksync.cli(['targets', 'setup', target]);
  expect(plan.code, plan.stderr).toBe(0);
  expect(plan.stdout).toMatch(/^ {2}OperatingBank +to create Operating Bank /m);
  expect(plan.stdout).toMatch(/^ {2}AccountsReceivable +matched /m);
  const planned = Number(/(\d+) accounts to create: run again with --apply/.exec(plan.stdout)?.[1]);
  expect(planned, plan.stdout).toBeGreaterThan(0);
  expect(chart.accounts()).toBe(before);

  const applied = await booksync.cli(['targets', 'setup', target, '--apply']);
  expect(applied.code, `${applied.stdout}${applied.stderr}`).toBe(0);
  expect(applied.stdout).toContain('every role maps to an account of the type it needs');
  expect(chart.accounts()).toBe(before + planned);
  const written = readFileSync(settingsFile(booksync), 'utf8');
  expect(written).toMatch(/^TARGET_ACCOUNTS=/m);
  const mapping = targetAccounts(booksync);
  expect(Object.keys(mapping).sort()).toEqual(Object.keys(defaultAccountCodes).sort());

  const again = await booksync.cli(['targets', 'setup', target, '--apply']);
  expect(again.code, `${again.stdout}${again.stderr}`).toBe(0);
  expect(again.stdout).toContain('nothing to change');
  expect(chart.accounts()).toBe(before + planned);
  expect(readFileSync(settingsFile(booksync), 'utf8')).toBe(written);
  return mapping;
}

/** An invoice at the target: the ledger entry keys its markers carry and what is still due on it, in cents. */
export interface TargetInvoice {
  keys: string[];
  dueCents: number;
}

/** What the books checks ask of the target's double. */
export interface TargetBooks {
  /** The balance at the target, in cents, of the account TARGET_ACCOUNTS names (by code, or QBO's Id). */
  balanceOf(code: string): number;
  /** Every invoice at the target. */
  invoices(): TargetInvoice[];
  /** The target's own checks of its documents against the ledger's entries (one document per entry). */
  expectOneDocumentPerEntry(entries: BookedEntry[]): void;
}

/**
 * The target's books equal the ledger's: every mapped account's balance, and each payment link's invoices
 * (its own, and the charge invoices of a debit memo or a refund's reopened amount) owe what the service
 * says is still owed (a link whose amount was changed later is left out); then the target's own
 * one-document-per-entry checks. Answers the number of ledger entries.
 */
export async function expectTargetEqualsLedger(
  booksync: BooksyncProcess,
  target: TargetBooks,
): Promise<number> {
  const ledger = EmbeddedLedger.open({ path: path.join(booksync.dataDir, 'ledger.db') });
  try {
    const mapping = targetAccounts(booksync);
    const roles = Object.keys(defaultAccountCodes) as AccountRole[];
    const ours = await ledger.balances();
    const byRole = (role: AccountRole) =>
      ours.find((b) => b.account === (Accounts[role] as AccountName))?.balanceCents ?? 0;
    expect(Object.fromEntries(roles.map((r) => [r, target.balanceOf(mapping[r])]))).toEqual(
      Object.fromEntries(roles.map((r) => [r, byRole(r)])),
    );

    const entries = await ledger.allEntries();
    const invoiceKinds = ['invoice', 'debit-memo', 'refund-reopen'];
    const reversed = new Set(entries.flatMap((e) => (e.reverses ? [e.reverses] : [])));
    const client = booksync.service();
    let checked = 0;
    for await (const link of client.paymentLinks()) {
      const mine = entries.filter((e) => e.links.paymentLinkId === link.id);
      if (link.reusable || mine.length === 0 || mine.some((e) => e.key.startsWith('invoice-adjustment:')))
        continue;
      const keys = new Set(
        mine
          .filter((e) => invoiceKinds.includes(e.key.split(':')[0] ?? '') && !reversed.has(e.key))
          .map((e) => e.key),
      );
      const invoices = target.invoices().filter((inv) => inv.keys.some((key) => keys.has(key)));
      expect(invoices.length).toBe(keys.size);
      checked++;
      const balance = invoices.reduce((sum, inv) => sum + inv.dueCents, 0);
      expect([link.name, balance]).toEqual([
        link.name,
        link.requestedAmountCents - link.completedAmountCents,
      ]);
    }
    expect(checked).toBeGreaterThan(5);

    target.expectOneDocumentPerEntry(entries);
    return entries.length;
  } finally {
    ledger.close();
  }
}

/**
 * The target's push workflow's search attributes (flagged for attention, and the reason code) and its query
 * view's last error (the text, with the command that mends it).
 */
export async function workflowAttention(
  booksync: BooksyncProcess,
  target: 'quickbooks' | 'xero',
): Promise<{ flagged: boolean | undefined; lastError: string | undefined; viewError: string | null }> {
  const { client, connection } = await booksync.temporal();
  try {
    const handle = client.workflow.getHandle(`accounting-target-${target}`);
    const described = await handle.describe();
    return {
      flagged: described.typedSearchAttributes.get(NeedsAttention),
      lastError: described.typedSearchAttributes.get(LastError),
      viewError: (await handle.query(accountingTargetViewQuery)).lastError,
    };
  } finally {
    await connection.close();
  }
}

/**
 * Every search attribute and memo field of every workflow on booksync's Temporal server, as text. Both are
 * stored and shown in plain (a search attribute never passes the payload codec), so they must hold ids,
 * states, dates and amounts only. A memo is read from its raw payload: encrypted or not, what the
 * server stores.
 */
export async function searchableFields(
  booksync: BooksyncProcess,
): Promise<{ workflowId: string; field: string; text: string }[]> {
  const { client, connection } = await booksync.temporal();
  const fields: { workflowId: string; field: string; text: string }[] = [];
  try {
    for await (const info of client.workflow.list()) {
      for (const pair of info.typedSearchAttributes.getAll())
        fields.push({ workflowId: info.workflowId, field: pair.key.name, text: JSON.stringify(pair.value) });
      for (const [name, payload] of Object.entries(info.raw.memo?.fields ?? {}))
        fields.push({
          workflowId: info.workflowId,
          field: `memo ${name}`,
          text: Buffer.from(payload.data ?? new Uint8Array()).toString('utf8'),
        });
    }
  } finally {
    await connection.close();
  }
  return fields;
}

/** No search attribute or memo names a customer, an email or an invoice (a payment link's name) of the service. */
export async function expectNoPersonalDataSearchable(booksync: BooksyncProcess): Promise<void> {
  const service = booksync.service();
  const personal = new Set<string>();
  for await (const customer of service.customers()) {
    personal.add(customer.name);
    for (const email of customer.emails) personal.add(email);
  }
  for await (const link of service.paymentLinks()) personal.add(link.name);
  expect(personal.size).toBeGreaterThan(3);
  const fields = await searchableFields(booksync);
  // The demo day's flows carry their attributes (NeedsAttention, PaymentState, ...): the scan read them.
  expect(fields.length).toBeGreaterThan(20);
  const naming = fields.filter((f) => [...personal].some((p) => p.length > 2 && f.text.includes(p)));
  expect(naming).toEqual([]);
}

/** One run of the scenario: the booksync under test, its target, and the target's double as the steps see it. */
export interface TargetBooksRun {
  booksync: BooksyncProcess;
  consent: ConsentPage;
  books: TargetBooks;
  chart: TargetChart;
  /** Documents the double has created so far. */
  creates(): number;
  /** The most requests the double has seen in flight at once. */
  maxInFlight(): number;
  /** The most in flight the target allows. */
  inFlightLimit: number;
  /** Double's refresh-token grants so far. */
  refreshGrants(): number;
}

/**
 * Connects by consent, runs `booksync start` into a SIGKILL between marking a slice attempted and writing it,
 * then into one between a create and its index write, restarts,
 * pushes the demo day, then every event twice more: one document per entry and no create more. `afterPush`
 * holds the target's own checks after the first full push. Answers the number of ledger entries.
 */
export async function crashThenEverythingTwice(
  run: TargetBooksRun,
  afterPush: () => void | Promise<void> = () => {},
): Promise<number> {
  const { booksync } = run;
  await connectByConsent(booksync, run.consent);
  await setUpAccounts(booksync, run.consent.target, run.chart);
  // Set-up's accounts are the only creates so far.
  const setUp = run.creates();
  // Killed between marking the first slice attempted and writing it: nothing reached the target, and the
  // next start looks those entries up (finding nothing) before creating them.
  const ahead = booksync.start({ BOOKSYNC_FAILPOINT_KILL_AFTER_WRITE_AHEAD: run.consent.target });
  expect(await booksync.exited(ahead)).toBe('SIGKILL');
  expect(run.creates()).toBe(setUp);
  const first = booksync.start({ BOOKSYNC_FAILPOINT_KILL_AFTER_TARGET_CREATE: run.consent.target });
  expect(await booksync.exited(first)).toBe('SIGKILL');
  const createsBeforeCrash = run.creates();
  expect(createsBeforeCrash).toBeGreaterThan(setUp);
  expect(await booksync.restartAndReconcile()).toBe(0);
  const demo = await booksync.cli(['demo']);
  expect(demo.stdout, demo.stderr).toContain('each flow in the Temporal UI');
  // Given a Temporal server and its Web UI (TEMPORAL_UI_URL), the links are to this stack's namespace there.
  expect(demo.stdout).toContain(
    `${booksync.env.TEMPORAL_UI_URL}/namespaces/${booksync.namespace}/workflows/`,
  );
  // Settled, not only pushed: an activity the killed workers left is retried once its timeout passed.
  const pushed = await booksync.untilSettled();
  expect(pushed.failed).toBe(0);
  const entries = await expectTargetEqualsLedger(booksync, run.books);
  expect(pushed.pushed).toBe(entries);
  // Access tokens lived 20 s: refreshed mid-run, invisibly.
  expect(run.refreshGrants()).toBeGreaterThan(1);
  await afterPush();
  const creates = run.creates();

  // Delivered: each signal is in its workflow's history; settled once every workflow handled its signals.
  expect(await booksync.redeliverEverythingTwice(20_261_123)).toBeGreaterThan(10);
  expect((await booksync.untilSettled()).pushed).toBe(entries);
  expect(await expectTargetEqualsLedger(booksync, run.books)).toBe(entries);
  expect(run.creates()).toBe(creates);
  expect(run.maxInFlight()).toBeLessThanOrEqual(run.inFlightLimit);
  await expectNoPersonalDataSearchable(booksync);
  return entries;
}

/**
 * A business day goes on through a 429 storm and an outage of `outageMs` (both begun by `disturb`): nothing
 * lost, nothing twice.
 */
export async function rideOutStormAndOutage(
  run: TargetBooksRun,
  outageMs: number,
  disturb: () => void,
): Promise<void> {
  const { booksync } = run;
  disturb();
  const started = Date.now();
  const demo = await booksync.cli(['demo']);
  expect(demo.code, demo.stderr).toBe(0);
  expect((await booksync.targetStatus()).pending).toBeGreaterThan(0);
  await sleep(Math.max(0, outageMs - (Date.now() - started)));
  const pushed = await booksync.untilPushed();
  expect(pushed.failed).toBe(0);
  expect(pushed.pushed).toBe(await expectTargetEqualsLedger(booksync, run.books));
  expect(run.maxInFlight()).toBeLessThanOrEqual(run.inFlightLimit);
}

/**
 * The connection is revoked (by `revoke`) and the worker restarted: it starts all the same (a revoked
 * connection is no configuration problem), the push stops with one flagged reason; reconnecting resumes it.
 */
export async function revokeThenReconnect(run: TargetBooksRun, revoke: () => void): Promise<void> {
  const { booksync } = run;
  const target = run.consent.target;
  revoke();
  // Before, start-up verified the target and stopped: no worker, nothing reached even the ledger.
  await booksync.halt();
  const from = booksync.output.length;
  expect(await booksync.restartAndReconcile()).toBe(0);
  expect(booksync.output.slice(from)).toContain('accounting target not reachable at start');
  const link = await booksync
    .service()
    .createPaymentLink({ name: 'INV-AFTER-REVOKE', requestedAmountCents: 42_00 });
  const today = new Date().toISOString().slice(0, 10);
  expect(
    (await booksync.cli(['link', 'record-payment', link.id, '--amount', '4200', '--paid-at', today])).code,
  ).toBe(0);
  const deadline = Date.now() + 120_000;
  let attention = await workflowAttention(booksync, target);
  while (!attention.flagged && Date.now() < deadline) {
    await sleep(1_000);
    attention = await workflowAttention(booksync, target);
  }
  expect(attention.flagged).toBe(true);
  // The search attribute names the reason only; the view says what happened and the command that mends it.
  expect(attention.lastError).toBe('CONNECTION_LOST');
  expect(attention.viewError).toMatch(new RegExp(`invalid_grant.*booksync targets connect ${target}`));
  const stuck = await booksync.targetStatus();
  // Nothing FAILED one by one: the entries wait for the connection.
  expect([stuck.failed, stuck.pending > 0]).toEqual([0, true]);

  await connectByConsent(booksync, run.consent, 'paste');
  // Any signal wakes the push at once (else its one-minute poll would).
  expect((await booksync.cli(['targets', 'retry', '--failed', '--wait', '1'])).code).toBe(0);
  const pushed = await booksync.untilPushed(120_000);
  expect(pushed.failed).toBe(0);
  expect(pushed.pushed).toBe(await expectTargetEqualsLedger(booksync, run.books));
  const deadlineClear = Date.now() + 90_000;
  while ((await workflowAttention(booksync, target)).flagged && Date.now() < deadlineClear)
    await sleep(1_000);
  expect((await workflowAttention(booksync, target)).flagged).toBe(false);
}

/** The newcomer's way at one target: what it asks of the target beyond the consent and the chart. */
export interface NewcomerRun {
  consent: ConsentPage;
  chart: TargetChart;
  /** The target's checks that the certificate read the vendor's own reports (at its double). */
  expectReportsRead(): void;
}

/**
 * The newcomer's way on a company that starts as the vendor's fresh one: `booksync targets connect`, `booksync
 * targets setup` (plan, --apply), then `booksync start` on the fresh data folder, which books the demo's day and
 * closes its month (`booksync` prepared with DEMO_CLOSES_MONTH and EMULATOR_ADMIN_TOKEN). The month's
 * certificate passes, the target's own figures (its trial balance and aged reports) agreeing with the ledger.
 * Answers the certificate, as the worker stored it.
 */
export async function freshCompanyToClosedMonth(
  booksync: BooksyncProcess,
  run: NewcomerRun,
): Promise<CloseCertificate> {
  const target = run.consent.target;
  await connectByConsent(booksync, run.consent);
  await setUpAccounts(booksync, target, run.chart);
  const from = booksync.output.length;
  booksync.start();
  // The demo's last line, after its month close.
  await booksync.untilOutput('each flow in the Temporal UI', from, 600_000);
  const out = booksync.output.slice(from);
  expect(out).toContain(
    `Temporal UI           ${booksync.env.TEMPORAL_UI_URL}/namespaces/${booksync.namespace}/workflows`,
  );
  expect(out).toMatch(/certificate \d{4}-\d{2}-01 to \d{4}-\d{2}-\d{2}: PASSES/);
  expect(out).toMatch(/books closed through \d{4}-\d{2}-\d{2}/);
  expect(out).toContain(`every entry pushed to ${target}`);

  const ledger = EmbeddedLedger.open({ path: path.join(booksync.dataDir, 'ledger.db') });
  let certificate: CloseCertificate;
  try {
    const row = ledger.database
      .prepare(
        "SELECT document FROM reports WHERE kind = 'close-certificate' ORDER BY created_at DESC LIMIT 1",
      )
      .get() as { document: string } | undefined;
    expect(row, "the worker stored the month's certificate").toBeDefined();
    certificate = JSON.parse(String(row?.document)) as CloseCertificate;
    expect(await ledger.booksClosedThrough()).toBe(certificate.to);
  } finally {
    ledger.close();
  }
  expect(certificate.problems).toEqual([]);
  expect(certificate.passes).toBe(true);
  expect(certificate.counts.entries).toBeGreaterThan(10);
  expect(certificate.targetFigures?.map((t) => [t.target, t.ok])).toEqual([[target, true]]);
  run.expectReportsRead();
  return certificate;
}
