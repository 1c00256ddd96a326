import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../../src/config/settings.js';
import { quickBooksSettings } from '../../../src/runtime/targets/quickbooks-connection.js';
import { xeroSettings } from '../../../src/runtime/targets/xero-connection.js';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import type { PostgresCluster } from '../../support/postgres.js';
import { sharedPostgres } from '../../support/shared-postgres.js';
import { typescriptEntry } from '../../support/typescript-entry.js';

// One QuickBooks connection shared by several workers. Three worker processes
// (refresh-worker.ts: each its own settings, connection store, database pool and token store, as
// `booksync worker` builds them) call the API at once for a while against the double, whose access tokens live
// 20 seconds (booksync refreshes them a minute early, so every call refreshes: the harshest case) and whose
// refresh tokens rotate, a used one answering invalid_grant. Every 3 seconds the double also expires every
// access token, so all three get a 401 and refresh at the same moment. No worker may ever be refused a grant.
// Once on PostgreSQL (LEDGER_URL: the connection in the database, an advisory lock; a fourth worker dies
// holding the lock), once on the connection file (its lock file); then Xero's connection (the same token
// store and connection stores) on PostgreSQL, for less long.
// OAUTH_SHARED_SOAK_MS runs each for longer (e.g. 600000 for ten minutes).

const soakMs = Number(process.env.OAUTH_SHARED_SOAK_MS ?? 30_000);
const key = 'shared-connection-key-0123456789';
const workerScript = path.join(import.meta.dirname, 'refresh-worker.ts');

interface WorkerRun {
  calls: number;
  refusals: string[];
  failures: string[];
}

describe('a QuickBooks connection shared by three worker processes', () => {
  let double: QuickBooksDouble;
  let xero: XeroDouble;
  let postgres: PostgresCluster;
  let dir: string;
  beforeAll(async () => {
    double = await new QuickBooksDouble({ accessTokenTtlMs: 20_000 }).start();
    xero = await new XeroDouble({ accessTokenTtlMs: 20_000 }).start();
    postgres = await sharedPostgres({ name: 'oauth-shared' });
    dir = mkdtempSync(path.join(tmpdir(), 'booksync-oauth-shared-'));
  });
  afterAll(async () => {
    await double?.stop();
    await xero?.stop();
    await postgres?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const environment = (realm: string, extra: Record<string, string>): Record<string, string> => ({
    BOOKSYNC_DATA_DIR: dir,
    QBO_CLIENT_ID: double.clientId,
    QBO_CLIENT_SECRET: double.clientSecret,
    QBO_TOKEN_KEY: key,
    QBO_REALM_ID: realm,
    QBO_BASE_URL: double.url,
    QBO_OAUTH_URL: double.url,
    ...extra,
  });

  /** Runs refresh-worker.ts in a process of its own; answers its tally (or its output if it printed none). */
  function workerProcess(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, typescriptEntry(workerScript), {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.once('exit', (code) => resolve({ code, output }));
    });
  }

  async function runWorkers(
    env: Record<string, string>,
    options: { dying?: boolean; runMs?: number; provider?: { expireAccessTokens(): void } } = {},
  ) {
    const until = Date.now() + (options.runMs ?? soakMs);
    const provider = options.provider ?? double;
    const expirer = setInterval(() => provider.expireAccessTokens(), 3_000);
    try {
      const workers = [1, 2, 3].map(() => workerProcess({ ...env, REFRESH_WORKER_UNTIL: String(until) }));
      if (options.dying) {
        await new Promise((resolve) => setTimeout(resolve, 5_000));
        const died = await workerProcess({ ...env, REFRESH_WORKER_DIE: '1' });
        expect(died.output).toContain('holding');
        expect(died.code).toBeNull();
      }
      return (await Promise.all(workers)).map(({ code, output }): WorkerRun => {
        const last = output.trim().split('\n').at(-1) ?? '';
        if (code !== 0 || !last.startsWith('{')) throw new Error(`a worker exited ${code}: ${output}`);
        return JSON.parse(last) as WorkerRun;
      });
    } finally {
      clearInterval(expirer);
    }
  }

  /**
   * Nothing refused or failed, and every worker got on (a few calls at least: how many depends on the load of
   * the machine, whose cores the three share with everything else).
   */
  function expectNoRefusal(runs: WorkerRun[], refreshes: number) {
    expect(runs.flatMap((r) => r.refusals)).toEqual([]);
    expect(runs.flatMap((r) => r.failures)).toEqual([]);
    for (const run of runs) expect(run.calls).toBeGreaterThanOrEqual(3);
    expect(refreshes).toBeGreaterThan(3);
  }

  it(
    'on PostgreSQL (LEDGER_URL): the sealed connection is in the database, no refresh is ever refused, a worker dying with the lock holds nobody up',
    async () => {
      const realm = double.createRealm();
      const env = environment(realm, { LEDGER_URL: await postgres.createDatabase('oauth_shared') });
      const settings = loadSettings(env);
      const connectedAt = new Date().toISOString();
      const first = quickBooksSettings(settings);
      await first.connection.writeConnection({
        companyId: realm,
        refreshToken: new TokenCipher(key).seal(double.connect(realm)),
        connectedAt,
      });
      await first.connection.close?.();
      const grants = double.refreshGrants;

      const runs = await runWorkers(env, { dying: true });
      console.info(
        `PostgreSQL: ${runs.map((r) => r.calls).join(' + ')} calls, ${double.refreshGrants - grants} refreshes`,
      );
      expectNoRefusal(runs, double.refreshGrants - grants);

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
      expect(await last.file.readConnection()).toBeNull();
    },
    soakMs + 60_000,
  );

  it(
    'on the connection file: no refresh is ever refused',
    async () => {
      const realm = double.createRealm();
      const env = environment(realm, { QBO_TOKEN_FILE: path.join(dir, 'shared', 'qbo.json') });
      const settings = loadSettings(env);
      await quickBooksSettings(settings).file.writeConnection({
        companyId: realm,
        refreshToken: new TokenCipher(key).seal(double.connect(realm)),
        connectedAt: new Date().toISOString(),
      });
      const grants = double.refreshGrants;

      const runs = await runWorkers(env);
      console.info(
        `file: ${runs.map((r) => r.calls).join(' + ')} calls, ${double.refreshGrants - grants} refreshes`,
      );
      expectNoRefusal(runs, double.refreshGrants - grants);
    },
    soakMs + 60_000,
  );
  it(
    'Xero on PostgreSQL: no refresh is ever refused',
    async () => {
      const tenant = xero.createTenant();
      const env = {
        BOOKSYNC_DATA_DIR: dir,
        LEDGER_URL: await postgres.createDatabase('oauth_shared_xero'),
        XERO_CLIENT_ID: xero.clientId,
        XERO_CLIENT_SECRET: xero.clientSecret,
        XERO_TOKEN_KEY: key,
        XERO_TENANT_ID: tenant,
        XERO_BASE_URL: xero.url,
        XERO_TOKEN_URL: `${xero.url}/connect/token`,
        REFRESH_WORKER_TARGET: 'xero',
      };
      const store = xeroSettings(loadSettings(env)).connection;
      await store.writeConnection({
        companyId: tenant,
        refreshToken: new TokenCipher(key).seal(xero.connect(tenant)),
        connectedAt: new Date().toISOString(),
      });
      await store.close?.();
      const grants = xero.refreshGrants;

      const runMs = Math.min(soakMs, 20_000);
      const runs = await runWorkers(env, { runMs, provider: xero });
      console.info(
        `Xero: ${runs.map((r) => r.calls).join(' + ')} calls, ${xero.refreshGrants - grants} refreshes`,
      );
      expectNoRefusal(runs, xero.refreshGrants - grants);
    },
    soakMs + 60_000,
  );
});
