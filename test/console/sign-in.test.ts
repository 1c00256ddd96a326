import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/console/audit-log.js';
import { openConsoleDb } from '../../src/console/console-db.js';
import type { ConsoleOptions } from '../../src/console/options.js';
import { SignInThrottle } from '../../src/console/sign-in-throttle.js';
import { SqliteTargetIndex } from '../../src/flows/push/target-index.js';
import type { IngressApp } from '../../src/ingress/ingress-app.js';
import { createIngress, type IngressOptions } from '../../src/ingress/server.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { consoleTemporalFake } from './console-fakes.js';
import { cookieOf, postSignIn, session, signIn, signInForm } from './console-inject.js';

// Signing in under attack, through inject on the real ingress app: an unauthenticated flood neither fills the
// audit log nor locks the bookkeeper out; form tokens are single-use and expire; the command API key is not a
// console password; a session ends with its password and when left idle; the address and the Secure cookie
// follow a trusted proxy only.

const apiKey = 'sign-in-test-command-key-0123456789';
const password = 'correct horse battery staple';
const readonlyPassword = 'reader-only-password';
const apps: IngressApp[] = [];
const scratch = mkdtempSync(path.join(tmpdir(), 'booksync-sign-in-test-'));
let ledger: EmbeddedLedger;
let index: SqliteTargetIndex;

beforeAll(() => {
  ledger = EmbeddedLedger.open();
  index = new SqliteTargetIndex(ledger.database);
});
afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  ledger?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** A console on an ingress, with a clock the test moves. */
function consoleApp(
  overrides: Partial<ConsoleOptions> = {},
  ingress: Partial<IngressOptions> = {},
): { app: IngressApp; clock: { now: number } } {
  const clock = { now: Date.parse('2026-03-15T12:00:00Z') };
  const app = createIngress({
    temporalClient: consoleTemporalFake().client,
    taskQueue: 'sign-in-test',
    webhookSecrets: ['whsec_sign_in_test'],
    commandApiKey: apiKey,
    ...ingress,
    console: {
      ledger,
      targetIndex: index,
      targets: ['ledger-mirror'],
      credentials: { password, readonlyPassword },
      timeZone: 'UTC',
      secureCookie: false,
      now: () => new Date(clock.now),
      ...overrides,
    },
  });
  apps.push(app);
  return { app, clock };
}

const minutes = (n: number) => n * 60 * 1000;

/** Stops an app before the test ends (a restart). */
async function stop(app: IngressApp) {
  apps.splice(apps.indexOf(app), 1);
  await app.close();
}

/** The audit page's rows as [who, role, action, detail, outcome, from]. */
async function auditRows(app: IngressApp, url = '/console/audit') {
  const { cookie } = await session(app, password);
  const page = await app.inject({ method: 'GET', url, headers: { cookie } });
  expect(page.statusCode).toBe(200);
  const rows = [...page.body.matchAll(/<tr data-action="[^"]*" data-id="(\d+)">([\s\S]*?)<\/tr>/g)].map((m) =>
    [...(m[2] as string).matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => c[1] as string),
  );
  return { rows: rows.map((cells) => cells.slice(2)), body: page.body };
}

describe('an unauthenticated flood of sign-ins', () => {
  it('leaves one summary row with its count, no name the client typed, and the bookkeeper at that address signs in', async () => {
    const { app } = consoleApp();
    const typed = 'Alice (console password)';
    const statuses: number[] = [];
    for (let i = 0; i < 230; i++) {
      const refused = await signIn(app, `guess-${i}`, { account: typed, extra: { name: typed } });
      statuses.push(refused.statusCode);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(new Set(statuses.slice(10))).toEqual(new Set([429]));

    // The bookkeeper, from the same address: the flood was against no account of theirs.
    const bookkeeper = await signIn(app, password);
    expect(bookkeeper.statusCode).toBe(303);

    const { rows, body } = await auditRows(app);
    expect(body).not.toContain('Alice');
    const throttled = rows.filter((r) => r[4] === 'throttled');
    expect(throttled).toHaveLength(1);
    expect(throttled[0]).toEqual([
      'unknown account',
      '',
      'sign-in',
      expect.stringMatching(/^220 sign-ins refused while throttled, /),
      'throttled',
      '127.0.0.1',
    ]);
    const refused = rows.filter((r) => r[4] === 'refused');
    expect(refused).toHaveLength(10);
    expect(new Set(refused.map((r) => `${r[0]}|${r[3]}`))).toEqual(
      new Set(['unknown account|no such account']),
    );
    // 10 refusals, the summary, and the two sign-ins: the bookkeeper's is on the first page.
    expect(rows).toHaveLength(13);
    expect(rows.filter((r) => r[2] === 'sign-in' && r[4] === 'done')).toHaveLength(2);
  });

  it('limits wrong passwords for the bookkeeper account at one address, not the bookkeeper at another', async () => {
    const { app } = consoleApp();
    for (let i = 0; i < 10; i++) {
      expect((await signIn(app, `guess-${i}`, { remoteAddress: '203.0.113.7' })).statusCode).toBe(401);
    }
    const blocked = await signIn(app, password, { remoteAddress: '203.0.113.7' });
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(cookieOf(blocked.headers['set-cookie'], 'booksync_console')).toBe('');
    // The reader's account at that address, and the bookkeeper elsewhere, are not.
    expect(
      (await signIn(app, readonlyPassword, { account: 'reader', remoteAddress: '203.0.113.7' })).statusCode,
    ).toBe(303);
    expect((await signIn(app, password, { remoteAddress: '198.51.100.20' })).statusCode).toBe(303);
  });
});

describe('the sign-in throttle', () => {
  it('stays bounded in memory under many distinct addresses', () => {
    const throttle = new SignInThrottle(new AuditLog(openConsoleDb()), { maxKeys: 500 });
    for (let i = 0; i < 20_000; i++) throttle.failed(`2001:db8::${i.toString(16)}`, 'bookkeeper');
    expect(throttle.size).toBe(500);
  });
});

describe("the sign-in form's token", () => {
  it('is refused the second time', async () => {
    const { app } = consoleApp();
    const once = await signInForm(app);
    expect((await postSignIn(app, once, { password })).statusCode).toBe(303);
    const again = await postSignIn(app, once, { password });
    expect(again.statusCode).toBe(403);
    expect(again.body).toContain('id="sign-in-error"');
    expect(cookieOf(again.headers['set-cookie'], 'booksync_console')).toBe('');
  });

  it('is refused once it has expired', async () => {
    const { app, clock } = consoleApp();
    const old = await signInForm(app);
    clock.now += minutes(16);
    const late = await postSignIn(app, old, { password });
    expect(late.statusCode).toBe(403);
    expect(cookieOf(late.headers['set-cookie'], 'booksync_console')).toBe('');
    // The form it answered with is a fresh one, which works.
    expect((await signIn(app, password)).statusCode).toBe(303);
  });
});

describe('the command API key', () => {
  it('does not open the console, for any account', async () => {
    const { app } = consoleApp();
    for (const account of ['bookkeeper', 'reader']) {
      const byKey = await signIn(app, apiKey, { account });
      expect(byKey.statusCode, account).toBe(401);
      expect(cookieOf(byKey.headers['set-cookie'], 'booksync_console'), account).toBe('');
    }
    const { rows } = await auditRows(app);
    expect(rows.filter((r) => r[3] === 'wrong password').map((r) => r[0])).toEqual(['reader', 'bookkeeper']);
  });
});

describe('a session', () => {
  it('made before a password change is refused after it (a restart with the new password)', async () => {
    const storeFile = path.join(scratch, 'password-change.db');
    const before = consoleApp({ storeFile }).app;
    const { cookie } = await session(before, password);
    await stop(before);
    // Restarted with the same password: the session holds.
    const same = consoleApp({ storeFile }).app;
    expect((await same.inject({ method: 'GET', url: '/console', headers: { cookie } })).statusCode).toBe(200);
    await stop(same);
    const changed = consoleApp({
      storeFile,
      credentials: { password: 'a new and different password', readonlyPassword },
    }).app;
    const refused = await changed.inject({ method: 'GET', url: '/console', headers: { cookie } });
    expect(refused.statusCode).toBe(401);
    // The new password signs in.
    expect((await session(changed, 'a new and different password')).overview.statusCode).toBe(200);
  });

  it('left idle is refused after the idle timeout; one in use lasts to twelve hours', async () => {
    const { app, clock } = consoleApp({ sessionIdleMs: minutes(30) });
    const get = (cookie: string) => app.inject({ method: 'GET', url: '/console', headers: { cookie } });
    const idle = await session(app, password);
    clock.now += minutes(20);
    expect((await get(idle.cookie)).statusCode).toBe(200);
    clock.now += minutes(29);
    expect((await get(idle.cookie)).statusCode).toBe(200);
    clock.now += minutes(31);
    expect((await get(idle.cookie)).statusCode).toBe(401);

    const busy = await session(app, password);
    const started = clock.now;
    while (clock.now - started < minutes(11 * 60 + 40)) {
      clock.now += minutes(20);
      expect((await get(busy.cookie)).statusCode).toBe(200);
    }
    clock.now += minutes(20);
    expect((await get(busy.cookie)).statusCode).toBe(401);
  });
});

describe('behind a proxy', () => {
  it('takes the forwarded address and https from a trusted proxy only', async () => {
    const headers = { 'x-forwarded-for': '192.0.2.44', 'x-forwarded-proto': 'https' };
    const trusting = consoleApp({}, { trustProxy: ['127.0.0.1'] }).app;
    const viaProxy = await signIn(trusting, 'wrong password', { headers });
    expect(viaProxy.statusCode).toBe(401);
    const signedIn = await signIn(trusting, password, { headers });
    expect(cookieOf(signedIn.headers['set-cookie'], 'booksync_console')).toMatch(/; Secure/);
    expect((await auditRows(trusting)).rows.find((r) => r[4] === 'refused')?.[5]).toBe('192.0.2.44');

    const direct = consoleApp().app;
    await signIn(direct, 'wrong password', { headers });
    const plain = await signIn(direct, password, { headers });
    expect(cookieOf(plain.headers['set-cookie'], 'booksync_console')).not.toMatch(/Secure/);
    expect((await auditRows(direct)).rows.find((r) => r[4] === 'refused')?.[5]).toBe('127.0.0.1');
  });
});

describe('the audit page', () => {
  it('shows 50 rows and links to the older ones', async () => {
    const { app } = consoleApp();
    // 60 refusals (10 from each of six addresses), then the sign-in that reads the page.
    for (let a = 1; a <= 6; a++) {
      for (let i = 0; i < 10; i++) {
        expect((await signIn(app, 'wrong', { remoteAddress: `192.0.2.${a}` })).statusCode).toBe(401);
      }
    }
    const first = await auditRows(app);
    expect(first.rows).toHaveLength(50);
    expect(first.rows[0]?.[3]).toBe('signed in as bookkeeper');
    const older = /<a href="(\/console\/audit\?before=\d+)" id="older-audit">/.exec(first.body)?.[1];
    expect(older).toBe('/console/audit?before=12');
    const second = await auditRows(app, older);
    // The 11 oldest refusals; this page's own sign-in is newer than the link.
    expect(second.rows).toHaveLength(11);
    expect(second.rows.every((r) => r[3] === 'wrong password')).toBe(true);
    expect(second.body).toContain('<a href="/console/audit" id="newest-audit">');
    expect(second.body).not.toContain('id="older-audit"');
  });
});
