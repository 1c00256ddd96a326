import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountName, Accounts } from '../../../src/accounting/chart-of-accounts.js';
import { EmbeddedLedger } from '../../../src/accounting/embedded-ledger.js';
import { type AccountRole, defaultAccountCodes } from '../../../src/accounting/targets/account-mapping.js';
import { markersIn } from '../../../src/accounting/targets/markers.js';
import { LastError, NeedsAttention } from '../../../src/temporal/search-attributes.js';
import { BooksyncProcess } from '../../support/booksync-process.js';
import { freePort } from '../../support/free-port.js';
import { XeroDouble } from '../../support/xero/double.js';

// booksync's demo business day pushed by the real `booksync start` (ACCOUNTING_TARGET=xero) to the Xero test
// double, a stateful loopback Xero held to Xero's OpenAPI document (test/support/xero): the organisation is
// connected with `booksync targets connect xero` (the test plays the browser), access tokens die every 20 s so
// refreshes happen mid-run. The double's own account balances must equal the ledger through the account
// mapping, paid invoices show AmountDue 0, the returned check's invoice is owed again, and every ledger entry
// is one Xero document (a reversal: its original DELETED or VOIDED): through a SIGKILL between a create and
// its index write, every event delivered twice more, a 429 storm, a 60 s outage and a revoked connection,
// never more than 5 requests in flight or 60 a minute (counted by the double).

const roles = Object.keys(defaultAccountCodes) as AccountRole[];
const collections = [
  'Invoices',
  'Payments',
  'BankTransactions',
  'BankTransfers',
  'ManualJournals',
  'CreditNotes',
] as const;

const double = new XeroDouble({ accessTokenTtlMs: 20_000, latencyMs: 2 });
const booksync = new BooksyncProcess();
let tenantId: string;

/** `booksync targets connect xero`, the test playing the operator's browser on the consent page. */
async function connect(how: 'listener' | 'paste' = 'listener'): Promise<string> {
  const args = ['targets', 'connect', 'xero', ...(how === 'paste' ? ['--paste'] : [])];
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
  while (!out.includes(how === 'paste' ? 'Paste the address' : 'Waiting for Xero')) {
    if (Date.now() > deadline) throw new Error(`no consent URL:\n${out}`);
    await sleep(100);
  }
  const consent = new URL(/https?:\/\/\S+connect\/authorize\S*/.exec(out)?.[0] ?? '');
  expect(consent.searchParams.get('client_id')).toBe(double.clientId);
  expect(consent.searchParams.get('scope')).toContain('offline_access');
  expect(consent.searchParams.get('scope')).toContain('accounting.transactions');
  const redirect = new URL(consent.searchParams.get('redirect_uri') as string);
  const forged = new URLSearchParams({ code: 'forged', state: 'not-ours' }).toString();
  const answer = new URLSearchParams({
    code: double.authorize(tenantId),
    state: consent.searchParams.get('state') as string,
  }).toString();
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
  expect(out).toContain(`connected to Xero organisation ${tenantId}`);
  if (how === 'paste') expect(out).toContain('not that one: the redirect is not the answer to this connect');
  // No token in what the operator sees.
  expect(out).not.toMatch(/\b(rt|at)-[0-9a-f]{24}\b/);
  return out;
}

function markerText(doc: Record<string, unknown>): string {
  const first = (doc.LineItems as { Description?: string }[] | undefined)?.[0]?.Description ?? '';
  return `${String(doc.Reference ?? '')} ${String(doc.Narration ?? '')} ${doc.Type === 'ACCPAY' ? first : ''}`;
}

/** Every booksync marker in the organisation, and the keys of the documents cancelled (DELETED / VOIDED). */
function markers(): { keys: string[]; cancelled: string[] } {
  const docs = collections.flatMap((c) => double.all(tenantId, c));
  const keys = docs.flatMap((doc) => markersIn(markerText(doc)).map((m) => m.key));
  const cancelled = docs
    .filter((doc) => ['DELETED', 'VOIDED'].includes(String(doc.Status)))
    .flatMap((doc) => markersIn(markerText(doc)).map((m) => m.key));
  return { keys, cancelled };
}

async function expectXeroEqualsLedger(): Promise<number> {
  const ledger = EmbeddedLedger.open({ path: path.join(booksync.dataDir, 'ledger.db') });
  try {
    const ours = await ledger.balances();
    const byRole = (role: AccountRole) =>
      ours.find((b) => b.account === (Accounts[role] as AccountName))?.balanceCents ?? 0;
    expect(
      Object.fromEntries(roles.map((r) => [r, double.balanceOf(tenantId, defaultAccountCodes[r])])),
    ).toEqual(Object.fromEntries(roles.map((r) => [r, byRole(r)])));

    // Each link's invoices in Xero (its own, and the charge invoices of a debit memo or a refund's reopened
    // amount): their AmountDue is what the service says is still owed. (An amount changed later is a credit
    // note or a charge invoice of its own: such links are left out.)
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
      const invoices = double
        .all(tenantId, 'Invoices')
        .filter((inv) => markersIn(markerText(inv)).some((m) => keys.has(m.key)));
      expect(invoices.length).toBe(keys.size);
      checked++;
      const balance = invoices.reduce((sum, inv) => sum + Math.round(Number(inv.AmountDue) * 100), 0);
      expect([link.name, balance]).toEqual([
        link.name,
        link.requestedAmountCents - link.completedAmountCents,
      ]);
    }
    expect(checked).toBeGreaterThan(5);

    // Exactly one Xero record per ledger entry (a reversal: its original cancelled): nothing lost, nothing twice.
    const { keys: marked, cancelled } = markers();
    expect(marked.sort()).toEqual(
      entries
        .filter((e) => !e.reverses)
        .map((e) => e.key)
        .sort(),
    );
    expect(cancelled.sort()).toEqual(entries.flatMap((e) => (e.reverses ? [e.reverses] : [])).sort());
    // A paid invoice shows AmountDue 0 (PAID); a returned check's invoice is owed again (AUTHORISED).
    const paid = double.all(tenantId, 'Invoices').filter((i) => i.Status === 'PAID');
    expect(paid.length).toBeGreaterThan(0);
    expect(paid.every((i) => i.AmountDue === 0)).toBe(true);
    expect(double.violations).toEqual([]);
    const stats = double.stats(tenantId);
    expect([stats.maxInFlight <= 5, stats.maxPerMinute <= 60, stats.breaches]).toEqual([true, true, []]);
    return entries.length;
  } finally {
    ledger.close();
  }
}

async function workflowAttention(): Promise<{ flagged: boolean | undefined; lastError: string | undefined }> {
  const connection = await Connection.connect({ address: `127.0.0.1:${booksync.env.TEMPORAL_DEV_PORT}` });
  try {
    const described = await new Client({ connection }).workflow
      .getHandle('accounting-target-xero')
      .describe();
    return {
      flagged: described.typedSearchAttributes.get(NeedsAttention),
      lastError: described.typedSearchAttributes.get(LastError),
    };
  } finally {
    await connection.close();
  }
}

beforeAll(async () => {
  await double.start();
  tenantId = double.createTenant('booksync e2e');
  await booksync.prepare({
    ACCOUNTING_TARGET: 'xero',
    XERO_CLIENT_ID: double.clientId,
    XERO_CLIENT_SECRET: double.clientSecret,
    XERO_TOKEN_KEY: 'e2e-secret-the-refresh-token-is-sealed-with',
    XERO_BASE_URL: double.url,
    XERO_TOKEN_URL: `${double.url}/connect/token`,
    XERO_CONSENT_URL: 'https://login.xero.com/identity/connect/authorize',
    XERO_REDIRECT_URI: `http://127.0.0.1:${await freePort()}/xero/callback`,
  });
}, 120_000);

afterAll(async () => {
  await booksync.stop('xero-books');
  await double.stop();
});

describe('the demo business day in Xero (the double)', { timeout: 900_000 }, () => {
  it('connects by consent, survives a SIGKILL between a create and its index write and every event twice more: one Xero document per entry', async () => {
    await connect();
    const first = booksync.start({ BOOKSYNC_FAILPOINT_KILL_AFTER_TARGET_CREATE: 'xero' });
    expect(await booksync.exited(first)).toBe('SIGKILL');
    const createsBeforeCrash = double.stats(tenantId).creates;
    expect(createsBeforeCrash).toBeGreaterThan(0);
    expect(await booksync.restartAndReconcile()).toBe(0);
    const demo = await booksync.cli(['demo']);
    expect(demo.stdout, demo.stderr).toContain('each flow in the Temporal UI');
    const pushed = await booksync.untilPushed();
    expect(pushed.failed).toBe(0);
    const entries = await expectXeroEqualsLedger();
    expect(pushed.pushed).toBe(entries);
    // Access tokens lived 20 s: refreshed mid-run, invisibly.
    expect(double.refreshGrants).toBeGreaterThan(1);
    // Secrets stay secret: no access or refresh token in booksync's logs, and the refresh token at rest is
    // sealed (the connection file holds the tenant and a v1.… sealed token, mode 0600).
    const token = /\b(rt|at)-[0-9a-f]{24}\b/;
    expect(booksync.output).not.toMatch(token);
    const file = path.join(booksync.dataDir, 'xero-connection.json');
    const saved = readFileSync(file, 'utf8');
    expect(saved).not.toMatch(token);
    expect(JSON.parse(saved)).toMatchObject({ tenantId, refreshToken: expect.stringMatching(/^v1\./) });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const creates = double.stats(tenantId).creates;

    expect(await booksync.redeliverEverythingTwice(20_261_123)).toBeGreaterThan(10);
    await sleep(10_000);
    expect((await booksync.untilPushed()).pushed).toBe(entries);
    expect(await expectXeroEqualsLedger()).toBe(entries);
    expect(double.stats(tenantId).creates).toBe(creates);
    expect(double.stats(tenantId).maxInFlight).toBeLessThanOrEqual(5);
  });

  it('rides out a 429 storm and a 60 s outage while a business day goes on: nothing lost, nothing twice', async () => {
    double.throttle(40);
    double.outage(60_000);
    const started = Date.now();
    const demo = await booksync.cli(['demo']);
    expect(demo.code, demo.stderr).toBe(0);
    expect((await booksync.targetStatus()).pending).toBeGreaterThan(0);
    await sleep(Math.max(0, 60_000 - (Date.now() - started)));
    const pushed = await booksync.untilPushed();
    expect(pushed.failed).toBe(0);
    expect(pushed.pushed).toBe(await expectXeroEqualsLedger());
    expect(double.stats(tenantId).maxInFlight).toBeLessThanOrEqual(5);
  });

  it('a revoked connection stops the push with one flagged reason; reconnecting resumes it', async () => {
    double.revoke(tenantId);
    const link = await booksync
      .service()
      .createPaymentLink({ name: 'INV-AFTER-REVOKE', requestedAmountCents: 42_00 });
    const today = new Date().toISOString().slice(0, 10);
    expect(
      (await booksync.cli(['link', 'record-payment', link.id, '--amount', '4200', '--paid-at', today])).code,
    ).toBe(0);
    const deadline = Date.now() + 120_000;
    let attention = await workflowAttention();
    while (!attention.flagged && Date.now() < deadline) {
      await sleep(1_000);
      attention = await workflowAttention();
    }
    expect(attention.flagged).toBe(true);
    expect(attention.lastError).toMatch(/invalid_grant.*booksync targets connect xero/);
    const stuck = await booksync.targetStatus();
    // Nothing FAILED one by one: the entries wait for the connection.
    expect([stuck.failed, stuck.pending > 0]).toEqual([0, true]);

    await connect('paste');
    // Any signal wakes the push at once (else its one-minute poll would).
    expect((await booksync.cli(['targets', 'retry', '--failed', '--wait', '1'])).code).toBe(0);
    const pushed = await booksync.untilPushed(120_000);
    expect(pushed.failed).toBe(0);
    expect(pushed.pushed).toBe(await expectXeroEqualsLedger());
    const deadlineClear = Date.now() + 90_000;
    while ((await workflowAttention()).flagged && Date.now() < deadlineClear) await sleep(1_000);
    expect((await workflowAttention()).flagged).toBe(false);
  });
});
