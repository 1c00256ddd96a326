import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenCipher } from '../../src/accounting/targets/oauth/token-cipher.js';
import { QuickBooksConnectionFile } from '../../src/accounting/targets/quickbooks/index.js';
import { connectTarget } from '../../src/cli/commands/targets-connect.js';
import { loadSettings } from '../../src/config/settings.js';
import { silentLogger } from '../../src/logging/logger.js';
import { quickBooksSettings } from '../../src/runtime/quickbooks-connection.js';
import { freePort } from '../support/free-port.js';
import { QuickBooksDouble } from '../support/quickbooks/double.js';

// Issue 26 item 9: `booksync targets connect quickbooks` for another company than QBO_REALM_ID pins must not
// touch the pinned company's connection (before, it saved the other company's token first, then refused).

const key = 'connect-test-key-0123456789';

describe('booksync targets connect quickbooks with another company than QBO_REALM_ID', () => {
  let double: QuickBooksDouble;
  let dir: string;
  beforeAll(async () => {
    double = await new QuickBooksDouble().start();
    dir = mkdtempSync(path.join(tmpdir(), 'booksync-connect-'));
  });
  afterAll(async () => {
    await double.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses before saving anything: the pinned connection and its token keep working', async () => {
    const pinned = double.createRealm();
    const other = double.createRealm();
    const port = await freePort();
    const settings = loadSettings({
      BOOKSYNC_DATA_DIR: dir,
      QBO_CLIENT_ID: double.clientId,
      QBO_CLIENT_SECRET: double.clientSecret,
      QBO_TOKEN_KEY: key,
      QBO_REALM_ID: pinned,
      QBO_BASE_URL: double.url,
      QBO_OAUTH_URL: double.url,
      QBO_REDIRECT_URI: `http://127.0.0.1:${port}/quickbooks/callback`,
    });
    const file = new QuickBooksConnectionFile(quickBooksSettings(settings).file.file);
    const connectedAt = '2026-01-02T03:04:05.000Z';
    const sealed = new TokenCipher(key).seal(double.connect(pinned));
    await file.write({ realmId: pinned, refreshToken: sealed, connectedAt });

    const lines: string[] = [];
    const running = connectTarget({
      args: ['quickbooks', '--timeout', '20'],
      settings,
      logger: silentLogger,
      out: (line) => lines.push(line),
    });
    // The consent page would send the browser back with a code for the company chosen there: the other one.
    const consent = await waitForConsentUrl(lines);
    const state = consent.searchParams.get('state') as string;
    const redirect = new URL(settings.QBO_REDIRECT_URI);
    redirect.search = new URLSearchParams({
      code: double.authorize(other),
      state,
      realmId: other,
    }).toString();
    await fetch(redirect);

    expect(await running).toBe(1);
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
});

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
