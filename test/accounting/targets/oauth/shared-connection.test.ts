import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TargetDisconnectedError } from '../../../../src/accounting/targets/errors.js';
import { TokenCipher } from '../../../../src/accounting/targets/oauth/token-cipher.js';
import { loadSettings, type Settings } from '../../../../src/config/settings.js';
import { silentLogger } from '../../../../src/logging/logger.js';
import { quickBooksSettings } from '../../../../src/runtime/quickbooks-connection.js';
import { type PostgresCluster, startPostgres } from '../../../support/postgres.js';
import { QuickBooksDouble } from '../../../support/quickbooks/double.js';

// Issue 26 item 5: one QuickBooks connection shared by several workers. Three workers (each its own settings,
// connection store, database pool and token store, as three processes would have) call the API at once for a
// while against the double, whose access tokens live 20 seconds (booksync refreshes them a minute early, so
// every call refreshes: the harshest case) and whose refresh tokens rotate, a used one answering
// invalid_grant. Every few seconds the double also expires every access token, so all three get a 401 and
// refresh at the same moment. No worker may ever be refused a grant. Once on PostgreSQL (LEDGER_URL: the
// connection in the database, an advisory lock), once on the connection file (its lock file).
// OAUTH_SHARED_SOAK_MS runs each for longer (e.g. 600000 for ten minutes).

const soakMs = Number(process.env.OAUTH_SHARED_SOAK_MS ?? 40_000);
const key = 'shared-connection-key-0123456789';

interface WorkerRun {
  calls: number;
  refusals: string[];
}

describe('a QuickBooks connection shared by three workers', () => {
  let double: QuickBooksDouble;
  let postgres: PostgresCluster;
  let dir: string;
  beforeAll(async () => {
    double = await new QuickBooksDouble({ accessTokenTtlMs: 20_000 }).start();
    postgres = await startPostgres({ name: 'oauth-shared' });
    dir = mkdtempSync(path.join(tmpdir(), 'booksync-oauth-shared-'));
  });
  afterAll(async () => {
    await double?.stop();
    await postgres?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const settingsFor = (realm: string, extra: Record<string, string>): Settings =>
    loadSettings({
      BOOKSYNC_DATA_DIR: dir,
      QBO_CLIENT_ID: double.clientId,
      QBO_CLIENT_SECRET: double.clientSecret,
      QBO_TOKEN_KEY: key,
      QBO_REALM_ID: realm,
      QBO_BASE_URL: double.url,
      QBO_OAUTH_URL: double.url,
      ...extra,
    });

  async function runWorkers(realm: string, settings: Settings): Promise<WorkerRun[]> {
    const until = Date.now() + soakMs;
    const expirer = setInterval(() => double.expireAccessTokens(), 3_000);
    try {
      return await Promise.all([1, 2, 3].map(() => worker(realm, settings, until)));
    } finally {
      clearInterval(expirer);
    }
  }

  /** One worker: its own connection store and token store; an API call every 50-250 ms until `until`. */
  async function worker(realm: string, settings: Settings, until: number): Promise<WorkerRun> {
    const qbo = quickBooksSettings(settings);
    const tokens = qbo.tokenStore(realm, silentLogger);
    const run: WorkerRun = { calls: 0, refusals: [] };
    try {
      while (Date.now() < until) {
        try {
          let token = await tokens.accessToken();
          let response = await call(realm, token);
          if (response.status === 401) {
            token = await tokens.rejected(token);
            response = await call(realm, token);
          }
          if (response.status === 200) run.calls++;
        } catch (error) {
          if (error instanceof TargetDisconnectedError) run.refusals.push(error.message);
          else throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 200));
      }
    } finally {
      await (qbo as { connection?: { close?: () => Promise<void> } }).connection?.close?.();
    }
    return run;
  }

  const call = (realm: string, token: string) =>
    fetch(`${double.url}/v3/company/${realm}/account/1?minorversion=75`, {
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    });

  function expectNoRefusal(runs: WorkerRun[], grantsBefore: number) {
    expect(runs.flatMap((r) => r.refusals)).toEqual([]);
    for (const run of runs) expect(run.calls).toBeGreaterThan(10);
    expect(double.refreshGrants - grantsBefore).toBeGreaterThan(3);
  }

  it(
    'on PostgreSQL (LEDGER_URL): the sealed connection is in the database, and no refresh is ever refused',
    async () => {
      const realm = double.createRealm();
      const settings = settingsFor(realm, { LEDGER_URL: await postgres.createDatabase('oauth_shared') });
      const connectedAt = new Date().toISOString();
      const first = quickBooksSettings(settings);
      await first.connection.writeConnection({
        companyId: realm,
        refreshToken: new TokenCipher(key).seal(double.connect(realm)),
        connectedAt,
      });
      await first.connection.close?.();
      const grants = double.refreshGrants;

      const runs = await runWorkers(realm, settings);
      console.info(
        `PostgreSQL: ${runs.map((r) => r.calls).join(' + ')} calls, ${double.refreshGrants - grants} refreshes`,
      );
      expectNoRefusal(runs, grants);

      // The database holds the last rotation, sealed (never the plain token), and no file was written.
      const stored = await postgres.psql(
        "SELECT company_id || ' ' || refresh_token FROM oauth_connections WHERE target = 'quickbooks'",
        'oauth_shared',
      );
      const [company, sealed] = stored.trim().split(' ');
      expect(company).toBe(realm);
      expect(sealed).toMatch(/^v1\./);
      expect(new TokenCipher(key).open(sealed as string)).toMatch(/^rt-/);
      const last = quickBooksSettings(settings);
      expect(await last.connection.readConnection()).toMatchObject({ companyId: realm, connectedAt });
      await last.connection.close?.();
      expect(await quickBooksSettings(settingsFor(realm, {})).file.readConnection()).toBeNull();
    },
    soakMs + 60_000,
  );

  it(
    'on the connection file: no refresh is ever refused',
    async () => {
      const realm = double.createRealm();
      const settings = settingsFor(realm, { QBO_TOKEN_FILE: path.join(dir, 'shared', 'qbo.json') });
      await quickBooksSettings(settings).file.writeConnection({
        companyId: realm,
        refreshToken: new TokenCipher(key).seal(double.connect(realm)),
        connectedAt: new Date().toISOString(),
      });
      const grants = double.refreshGrants;

      const runs = await runWorkers(realm, settings);
      console.info(
        `file: ${runs.map((r) => r.calls).join(' + ')} calls, ${double.refreshGrants - grants} refreshes`,
      );
      expectNoRefusal(runs, grants);
    },
    soakMs + 60_000,
  );
});
