import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteTargetIndex } from '../../src/flows/push/target-index.js';
import type { IngressApp } from '../../src/ingress/ingress-app.js';
import { createIngress } from '../../src/ingress/server.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { OAuthConnectionFile } from '../../src/targets/oauth/connection-file.js';
import { consoleTemporalFake } from './console-fakes.js';
import { session } from './console-inject.js';

// The console's Overview warns, as `booksync targets status` does, when a connected company's refresh token
// hard-expires within 14 days (the console's clock): the date and the command to run before it; nothing for
// a connection whose hard expiry is further off.

const password = 'overview-hard-expiry-password';
const now = new Date('2026-03-15T12:00:00.000Z');
const DAY = 86_400_000;
const inDays = (days: number) => new Date(now.getTime() + days * DAY).toISOString();
let ledger: EmbeddedLedger;
let scratch: string;
const apps: IngressApp[] = [];

beforeAll(() => {
  ledger = EmbeddedLedger.open();
  scratch = mkdtempSync(path.join(tmpdir(), 'booksync-console-hard-expiry-'));
});
afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  ledger?.close();
  rmSync(scratch, { recursive: true, force: true });
});

async function overviewWith(qboDays: number, xeroDays: number): Promise<string> {
  const folder = mkdtempSync(path.join(scratch, 'run-'));
  const quickbooks = new OAuthConnectionFile(path.join(folder, 'qbo.json'), 'realmId', 'QuickBooks');
  await quickbooks.writeConnection({
    companyId: 'realm-<b>9130</b>',
    refreshToken: 'SEALED-QBO-REFRESH-TOKEN',
    connectedAt: '2021-03-25T12:00:00.000Z',
    refreshTokenHardExpiresAt: inDays(qboDays),
  });
  const xero = new OAuthConnectionFile(path.join(folder, 'xero.json'), 'tenantId', 'Xero');
  await xero.writeConnection({
    companyId: 'tenant-42',
    refreshToken: 'SEALED-XERO-REFRESH-TOKEN',
    connectedAt: '2026-01-02T00:00:00.000Z',
    refreshTokenHardExpiresAt: inDays(xeroDays),
  });
  const app = createIngress({
    temporalClient: consoleTemporalFake().client,
    taskQueue: 'console-hard-expiry-test',
    webhookSecrets: ['whsec_console_hard_expiry'],
    commandApiKey: 'console-hard-expiry-command-key-0123456789',
    console: {
      ledger,
      targetIndex: new SqliteTargetIndex(ledger.database),
      targets: ['quickbooks', 'xero'],
      credentials: { password },
      timeZone: 'UTC',
      secureCookie: false,
      now: () => now,
      oauthConnections: new Map([
        ['quickbooks', { store: quickbooks }],
        ['xero', { store: xero }],
      ]),
    },
  });
  apps.push(app);
  const { overview } = await session(app, password);
  expect(overview.statusCode).toBe(200);
  expect(overview.body).not.toContain('SEALED-');
  return overview.body;
}

describe('the Overview and a refresh token’s hard expiry', () => {
  it('warns of the connection hard-expiring in 10 days, with its date and the command, and not of the one in 40', async () => {
    const body = await overviewWith(10, 40);
    expect(body).toContain(
      `<p class="error" id="hard-expiry-quickbooks" data-hard-expires-at="${inDays(10)}">quickbooks: the connection to company realm-&lt;b&gt;9130&lt;/b&gt; stops working at ${inDays(10)} (in 10 days), however often it is used: run booksync targets connect quickbooks before then</p>`,
    );
    expect(body).not.toContain('<b>9130</b>');
    expect(body).not.toContain('id="hard-expiry-xero"');
    expect(body).not.toContain(inDays(40));
    // Both still connected: the warning is no reconnect help of a refused connection.
    expect(body).toContain('data-oauth="quickbooks" data-state="connected"');
  });

  it('warns of neither when both are 40 days off, and of Xero when its connection is the one 10 days off', async () => {
    const far = await overviewWith(40, 40);
    expect(far).not.toContain('id="hard-expiry-');
    const xeroSoon = await overviewWith(40, 10);
    expect(xeroSoon).toContain('id="hard-expiry-xero"');
    expect(xeroSoon).not.toContain('id="hard-expiry-quickbooks"');
  });
});
