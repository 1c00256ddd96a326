import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTarget } from '../../src/cli/commands/targets-connect.js';
import { loadSettings, type Settings } from '../../src/config/settings.js';
import { TargetCompanyMismatchError } from '../../src/flows/push/target-index.js';
import { silentLogger } from '../../src/logging/logger.js';
import { openLedgerStore } from '../../src/runtime/ledger-store.js';
import { quickBooksSettings } from '../../src/runtime/targets/quickbooks-connection.js';
import { TokenCipher } from '../../src/targets/oauth/token-cipher.js';
import { QuickBooksConnectionFile } from '../../src/targets/quickbooks/index.js';
import { twoLine } from '../ledger/fixtures.js';
import { freePort } from '../support/free-port.js';
import type { PostgresCluster } from '../support/postgres.js';
import { sharedPostgres } from '../support/shared-postgres.js';

// `booksync targets connect quickbooks` for another company than QBO_REALM_ID pins must not
// touch the pinned company's connection (before, it saved the other company's token first, then refused).

const key = 'connect-test-key-0123456789';
let double: QuickBooksDouble;
let dir: string;
let postgres: PostgresCluster;

beforeAll(async () => {
  double = await new QuickBooksDouble().start();
  dir = mkdtempSync(path.join(tmpdir(), 'booksync-connect-'));
  postgres = await sharedPostgres({ name: 'connect-company' });
});
afterAll(async () => {
  await double?.stop();
  await postgres?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function settingsFor(extra: Record<string, string>): Promise<Settings> {
  return loadSettings({
    BOOKSYNC_DATA_DIR: dir,
    QBO_CLIENT_ID: double.clientId,
    QBO_CLIENT_SECRET: double.clientSecret,
    QBO_TOKEN_KEY: key,
    QBO_BASE_URL: double.url,
    QBO_OAUTH_URL: double.url,
    QBO_REDIRECT_URI: `http://127.0.0.1:${await freePort()}/quickbooks/callback`,
    ...extra,
  });
}

describe('booksync targets connect quickbooks with another company than QBO_REALM_ID', () => {
  it('refuses before saving anything: the pinned connection and its token keep working', async () => {
    const pinned = double.createRealm();
    const other = double.createRealm();
    const settings = await settingsFor({ QBO_REALM_ID: pinned });
    const file = new QuickBooksConnectionFile(quickBooksSettings(settings).file.file);
    const connectedAt = '2026-01-02T03:04:05.000Z';
    const sealed = new TokenCipher(key).seal(double.connect(pinned));
    await file.write({ realmId: pinned, refreshToken: sealed, connectedAt });

    // The consent page sends the browser back with a code for the company chosen there: the other one.
    const { code, lines } = await connectChoosing(settings, other);

    expect(code).toBe(1);
    // The pinned company's connection is untouched, and its refresh token still refreshes.
    expect(await file.read()).toEqual({
      realmId: pinned,
      companyId: pinned,
      refreshToken: sealed,
      connectedAt,
    });
    expect(lines.join('\n')).toContain(`QBO_REALM_ID is ${pinned}`);
    expect(lines.join('\n')).not.toContain(`connected to QuickBooks company ${other}`);
    const grants = double.refreshGrants;
    await quickBooksSettings(settings).tokenStore(pinned).accessToken();
    expect(double.refreshGrants).toBe(grants + 1);
  });

  it('with LEDGER_URL saves the connection sealed in PostgreSQL, where another company cannot replace it', async () => {
    const realm = double.createRealm();
    const other = double.createRealm();
    const ledger = {
      LEDGER_URL: await postgres.createDatabase('connect_company'),
      BOOKSYNC_DATA_DIR: path.join(dir, 'on-postgres'),
    };
    const row = async () =>
      (
        await postgres.psql(
          "SELECT company_id || ' ' || refresh_token FROM oauth_connections",
          'connect_company',
        )
      ).trim();

    const first = await connectChoosing(await settingsFor(ledger), realm);
    expect(first.lines.join('\n')).toContain(`connected to QuickBooks company ${realm}`);
    expect(first.lines.join('\n')).toContain('table oauth_connections');
    const [company, sealed] = (await row()).split(' ');
    expect(company).toBe(realm);
    expect(new TokenCipher(key).open(sealed as string)).toMatch(/^rt-/);

    const wrong = await connectChoosing(await settingsFor({ ...ledger, QBO_REALM_ID: realm }), other);
    expect(wrong.code).toBe(1);
    expect(await row()).toBe(`${realm} ${sealed}`);
    expect(await quickBooksSettings(await settingsFor(ledger)).file.readConnection()).toBeNull();
  });
});

describe('booksync targets connect quickbooks to another company than the one connected', () => {
  it('is refused without --switch-company; with it the new company is connected and its index starts fresh', async () => {
    const first = double.createRealm();
    const second = double.createRealm();
    // Each connect listens on a redirect address of its own, as a run in another terminal would.
    const folder = { BOOKSYNC_DATA_DIR: path.join(dir, 'switch') };
    const settings = await settingsFor(folder);
    const connection = quickBooksSettings(settings).connection;
    // The ledger exists, as after booksync's first start: the connect records the company in its index.
    mkdirSync(path.dirname(settings.ledgerDb), { recursive: true, mode: 0o700 });
    await (await openLedgerStore(settings)).close();
    expect((await connectChoosing(await settingsFor(folder), first)).lines.join('\n')).toContain(
      `connected to QuickBooks company ${first}`,
    );
    // Two entries pushed to the first company.
    const store = await openLedgerStore(settings);
    for (const key of ['payment:s1', 'payment:s2']) {
      await store.ledger.post(twoLine(key, 100));
      const entry = await store.ledger.get(key);
      if (!entry) throw new Error(key);
      await store.targetIndex.record('quickbooks', entry, { status: 'PUSHED', remoteIds: [`${key}-r`] });
    }
    expect(await store.targetIndex.company('quickbooks')).toMatchObject({ companyId: first });
    await store.close();

    // Without QBO_REALM_ID, the consent's company would have been taken: refused, naming both companies.
    const refused = await connectChoosing(await settingsFor(folder), second);
    expect(refused.code).toBe(1);
    const said = refused.lines.join('\n');
    expect(said).toContain(`connected to QuickBooks company ${first}`);
    expect(said).toContain(`not the QuickBooks company chosen (${second})`);
    expect(said).toContain('--switch-company');
    expect((await connection.readConnection())?.companyId).toBe(first);
    const unchanged = await openLedgerStore(settings);
    expect(await unchanged.targetIndex.company('quickbooks')).toMatchObject({ companyId: first });
    expect(await unchanged.targetIndex.summary('quickbooks')).toMatchObject({ pushed: 2, pending: 0 });
    await unchanged.close();

    const switched = await connectChoosing(await settingsFor(folder), second, ['--switch-company']);
    const told = switched.lines.join('\n');
    expect(told).toContain(`connected to QuickBooks company ${second}`);
    expect(told).toContain(`switched quickbooks from QuickBooks company ${first} to ${second}`);
    expect((await connection.readConnection())?.companyId).toBe(second);
    const after = await openLedgerStore(settings);
    expect(await after.targetIndex.company('quickbooks')).toMatchObject({
      companyId: second,
      previousCompanyId: first,
    });
    // Nothing is believed pushed to the second company; the first company's rows are kept aside.
    expect(await after.targetIndex.summary('quickbooks')).toMatchObject({ pushed: 0, pending: 2 });
    const keptAs = /kept aside as target (\S+),/.exec(told)?.[1] as string;
    expect(keptAs).toMatch(new RegExp(`^quickbooks@${first}@`));
    expect(await after.targetIndex.get(keptAs, 'payment:s1')).toMatchObject({ status: 'PUSHED' });
    await expect(after.targetIndex.lease('quickbooks', first)).rejects.toThrow(TargetCompanyMismatchError);
    await after.close();
  });
});

describe('booksync targets connect quickbooks to a company that is throttling', () => {
  it('waits as QuickBooks asks and checks the accounts again, saying so, instead of failing the connect', async () => {
    const realm = double.createRealm();
    const settings = await settingsFor({ BOOKSYNC_DATA_DIR: path.join(dir, 'throttled') });
    // The company's next API requests answer 429 ThrottleExceeded: the accounts check meets them.
    double.throttle(2);
    const { code, lines } = await connectChoosing(settings, realm);
    const said = lines.join('\n');
    expect(code, said).toBe(0);
    expect(said).toContain(`connected to QuickBooks company ${realm}`);
    expect(
      lines.filter((line) => /throttled: .*ThrottleExceeded.*; asking again in \d+ s$/.test(line)),
    ).toHaveLength(2);
    // The check then read the company's chart: a new company lacks booksync's accounts, set-up comes next.
    expect(said).toContain('next, before starting booksync: booksync targets setup quickbooks');
    expect(lines.filter((line) => line.includes('unavailable') && !line.includes('asking again'))).toEqual(
      [],
    );
  });
});

describe('a connection file of before LEDGER_URL', () => {
  it('is moved into PostgreSQL once, and the workers use it from there', async () => {
    const realm = double.createRealm();
    const folder = { BOOKSYNC_DATA_DIR: path.join(dir, 'upgrade') };
    const before = quickBooksSettings(await settingsFor(folder));
    const sealed = new TokenCipher(key).seal(double.connect(realm));
    const connectedAt = '2026-03-04T05:06:07.000Z';
    await before.file.writeConnection({ companyId: realm, refreshToken: sealed, connectedAt });

    const settings = await settingsFor({ ...folder, LEDGER_URL: await postgres.createDatabase('upgrade') });
    const after = quickBooksSettings(settings);
    expect(await after.connection.readConnection()).toEqual({
      companyId: realm,
      refreshToken: sealed,
      connectedAt,
    });
    await after.tokenStore(realm).accessToken();
    const moved = (await after.connection.readConnection())?.refreshToken;
    expect(moved).not.toBe(sealed);
    // The file is left as it was and unused: the rotation is in the database only.
    expect((await before.file.readConnection())?.refreshToken).toBe(sealed);
    await after.connection.close?.();
  });
});

/** Runs `targets connect quickbooks` and answers its consent with a code for `realmId`, as Intuit's page would. */
async function connectChoosing(
  settings: Settings,
  realmId: string,
  flags: string[] = [],
): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const running = connectTarget({
    args: ['quickbooks', '--timeout', '20', ...flags],
    settings,
    logger: silentLogger,
    out: (line) => lines.push(line),
  });
  const consent = await waitForConsentUrl(lines);
  const state = consent.searchParams.get('state') as string;
  const redirect = new URL(settings.QBO_REDIRECT_URI);
  redirect.search = new URLSearchParams({ code: double.authorize(realmId), state, realmId }).toString();
  await fetch(redirect);
  return { code: await running, lines };
}

async function waitForConsentUrl(lines: string[]): Promise<URL> {
  for (let i = 0; i < 200; i++) {
    const line = lines.find((l) => /^\s+https?:\/\//.test(l));
    // The listener is up once the "Waiting for" line is out.
    if (line && lines.some((l) => l.startsWith('Waiting for'))) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      return new URL(line.trim());
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no consent URL printed: ${lines.join(' | ')}`);
}
