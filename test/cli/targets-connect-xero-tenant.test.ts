import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTarget } from '../../src/cli/commands/targets-connect.js';
import { loadSettings, type Settings } from '../../src/config/settings.js';
import { silentLogger } from '../../src/logging/logger.js';
import { openLedgerStore } from '../../src/runtime/ledger-store.js';
import { xeroSettings } from '../../src/runtime/targets/xero-connection.js';
import { freePort } from '../support/free-port.js';

// `booksync targets connect xero` when the consent reaches several organisations: the one XERO_TENANT_ID
// names, never simply the first of Xero's connections list; none named is ambiguous and refused.

const key = 'connect-xero-key-0123456789';
const double = new XeroDouble();
let dir: string;

beforeAll(async () => {
  await double.start();
  dir = mkdtempSync(path.join(tmpdir(), 'booksync-connect-xero-'));
});
afterAll(async () => {
  await double.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function settingsFor(folder: string, extra: Record<string, string> = {}): Promise<Settings> {
  return loadSettings({
    BOOKSYNC_DATA_DIR: path.join(dir, folder),
    XERO_CLIENT_ID: double.clientId,
    XERO_CLIENT_SECRET: double.clientSecret,
    XERO_TOKEN_KEY: key,
    XERO_BASE_URL: double.url,
    XERO_TOKEN_URL: `${double.url}/connect/token`,
    XERO_REDIRECT_URI: `http://127.0.0.1:${await freePort()}/xero/callback`,
    ...extra,
  });
}

describe('booksync targets connect xero with several organisations allowed', () => {
  it('none named by XERO_TENANT_ID: refused as ambiguous, listing each, nothing saved', async () => {
    const first = double.createTenant('Northwind Books');
    const second = double.createTenant('Southwind Books');
    const settings = await settingsFor('ambiguous');
    const { code, lines } = await connectChoosing(settings, [first, second]);
    expect(code).toBe(1);
    const said = lines.join('\n');
    expect(said).toContain('XERO_TENANT_ID');
    for (const named of [first, 'Northwind Books', second, 'Southwind Books']) expect(said).toContain(named);
    expect(said).not.toContain('connected to Xero organisation');
    expect(await xeroSettings(settings).connection.readConnection()).toBeNull();
  });

  it('XERO_TENANT_ID names one: that organisation is connected, and the index is built against it', async () => {
    const first = double.createTenant('Eastwind Books');
    const second = double.createTenant('Westwind Books');
    const settings = await settingsFor('configured', { XERO_TENANT_ID: second });
    // The ledger exists, as after booksync's first start: the connect records the company in its index.
    mkdirSync(path.dirname(settings.ledgerDb), { recursive: true, mode: 0o700 });
    await (await openLedgerStore(settings)).close();
    const { lines } = await connectChoosing(settings, [first, second]);
    expect(lines.join('\n')).toContain(`connected to Xero organisation ${second}`);
    expect((await xeroSettings(settings).connection.readConnection())?.companyId).toBe(second);
    const store = await openLedgerStore(settings);
    expect(await store.targetIndex.company('xero')).toMatchObject({ companyId: second });
    await store.close();
  });

  it('only one allowed and none named: that one is connected', async () => {
    const only = double.createTenant('Solo Books');
    const settings = await settingsFor('single');
    const { lines } = await connectChoosing(settings, [only]);
    expect(lines.join('\n')).toContain(`connected to Xero organisation ${only}`);
    expect((await xeroSettings(settings).connection.readConnection())?.companyId).toBe(only);
    // Before the first start a connect makes no ledger: that start still finds a fresh data folder.
    expect(existsSync(settings.ledgerDb)).toBe(false);
  });

  it('another organisation than the one connected: refused without --switch-company', async () => {
    const connected = double.createTenant('Kept Books');
    const other = double.createTenant('Other Books');
    await connectChoosing(await settingsFor('reconnect'), [connected]);
    const { code, lines } = await connectChoosing(await settingsFor('reconnect'), [other]);
    expect(code).toBe(1);
    expect(lines.join('\n')).toContain(`connected to Xero organisation ${connected}`);
    expect(lines.join('\n')).toContain(`not the Xero organisation chosen (${other})`);
    const settings = await settingsFor('reconnect');
    expect((await xeroSettings(settings).connection.readConnection())?.companyId).toBe(connected);
  });
});

/** Runs `targets connect xero` and answers its consent allowing `tenantIds`, as Xero's page would. */
async function connectChoosing(
  settings: Settings,
  tenantIds: string[],
  flags: string[] = [],
): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const running = connectTarget({
    args: ['xero', '--timeout', '20', ...flags],
    settings,
    logger: silentLogger,
    out: (line) => lines.push(line),
  });
  const consent = await waitForConsentUrl(lines);
  const redirect = new URL(settings.XERO_REDIRECT_URI);
  redirect.search = new URLSearchParams(double.consent(consent, ...tenantIds)).toString();
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
