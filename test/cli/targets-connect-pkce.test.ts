import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTarget } from '../../src/cli/commands/targets-connect.js';
import { loadSettings, type Settings } from '../../src/config/settings.js';
import { createLogger } from '../../src/logging/logger.js';
import { quickBooksSettings } from '../../src/runtime/targets/quickbooks-connection.js';
import { xeroSettings } from '../../src/runtime/targets/xero-connection.js';
import { quickBooksBooksyncChart, xeroBooksyncChart } from '../support/booksync-charts.js';
import { freePort } from '../support/free-port.js';

// PKCE in `booksync targets connect`, vendor by vendor, as each documents it. Xero documents PKCE
// (https://developer.xero.com/documentation/oauth2/pkce-flow): the consent carries an S256 challenge, the
// double holds the code to it (rule `pkce`), and the command connects with the verifier it kept in memory,
// which neither its output nor its log ever shows. Intuit documents no PKCE for QuickBooks Online's
// authorization-code flow (packages/vendor-doubles/src/quickbooks/README.md): its consent carries no challenge and connects.

const xero = new XeroDouble();
const qbo = new QuickBooksDouble();
let dir: string;
// booksync's accounts already in place: the connect's last step checks them, and these tests are about PKCE.

beforeAll(async () => {
  await Promise.all([xero.start(), qbo.start()]);
  dir = mkdtempSync(path.join(tmpdir(), 'booksync-connect-pkce-'));
});
afterAll(async () => {
  await Promise.all([xero.stop(), qbo.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

async function settingsFor(folder: string): Promise<Settings> {
  return loadSettings({
    BOOKSYNC_DATA_DIR: path.join(dir, folder),
    XERO_CLIENT_ID: xero.clientId,
    XERO_CLIENT_SECRET: xero.clientSecret,
    XERO_TOKEN_KEY: 'connect-pkce-xero-key-0123456789',
    XERO_BASE_URL: xero.url,
    XERO_TOKEN_URL: `${xero.url}/connect/token`,
    XERO_REDIRECT_URI: `http://127.0.0.1:${await freePort()}/xero/callback`,
    QBO_CLIENT_ID: qbo.clientId,
    QBO_CLIENT_SECRET: qbo.clientSecret,
    QBO_TOKEN_KEY: 'connect-pkce-qbo-key-0123456789',
    QBO_BASE_URL: qbo.url,
    QBO_OAUTH_URL: qbo.url,
    QBO_REDIRECT_URI: `http://127.0.0.1:${await freePort()}/quickbooks/callback`,
  });
}

/**
 * Runs `targets connect <target>` at debug level, the test playing the browser: `answer` gives the redirect's
 * query for the consent URL printed. The command's output and log, and the consent URL.
 */
async function connect(
  target: 'xero' | 'quickbooks',
  settings: Settings,
  answer: (consent: URL) => Record<string, string> | Promise<Record<string, string>>,
): Promise<{ code: number | Error; said: string; logged: string; consent: URL }> {
  const lines: string[] = [];
  const logged: string[] = [];
  const logger = createLogger(
    { level: 'debug', format: 'json' },
    { write: (l: string) => void logged.push(l) },
  );
  const running = connectTarget({
    args: [target, '--timeout', '20'],
    settings,
    logger,
    out: (line) => lines.push(line),
  });
  const consent = await waitForConsentUrl(lines);
  const redirect = new URL(target === 'xero' ? settings.XERO_REDIRECT_URI : settings.QBO_REDIRECT_URI);
  redirect.search = new URLSearchParams(await answer(consent)).toString();
  await fetch(redirect);
  const code = await running.catch((error: Error) => error);
  return { code, said: lines.join('\n'), logged: logged.join(''), consent };
}

describe('booksync targets connect with PKCE, as each vendor documents it', () => {
  it('xero: the consent carries an S256 challenge, the double holds the code to it, and the command connects with its verifier, shown nowhere', async () => {
    const tenantId = xero.createTenant('Kestrel Books', { chart: xeroBooksyncChart });
    const settings = await settingsFor('xero');
    const exchanged: string[] = [];
    const { code, said, logged, consent } = await connect('xero', settings, (url) => {
      exchanged.push(url.searchParams.get('code_challenge') ?? '');
      return xero.consent(url, tenantId);
    });
    expect(code, said).toBe(0);
    expect(said).toContain(`connected to Xero organisation ${tenantId}`);
    expect(consent.searchParams.get('code_challenge_method')).toBe('S256');
    expect(consent.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(exchanged).toEqual([consent.searchParams.get('code_challenge')]);
    expect((await xeroSettings(settings).connection.readConnection())?.companyId).toBe(tenantId);
    // No verifier, code nor token in what the operator sees or the log holds.
    for (const text of [said, logged]) {
      expect(text).not.toMatch(/code_verifier|code-[0-9a-f]{16}|\b(rt|at)-[0-9a-f]{24}\b/);
      expect(text).not.toMatch(/[A-Za-z0-9_-]{64}/);
    }
  });

  it('xero: the code of such a consent exchanged without the verifier (booksync before PKCE, or whoever read the redirect) is refused, invalid_grant', async () => {
    const tenantId = xero.createTenant('Merlin Books', { chart: xeroBooksyncChart });
    const settings = await settingsFor('xero-refused');
    let intercepted: { status: number; body: unknown } | null = null;
    const { code } = await connect('xero', settings, async (url) => {
      const answer = xero.consent(url, tenantId);
      // Someone who read the code off the redirect, without the verifier, exchanges it first.
      const response = await fetch(`${xero.url}/connect/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${xero.clientId}:${xero.clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: answer.code as string,
          redirect_uri: settings.XERO_REDIRECT_URI,
        }).toString(),
      });
      intercepted = { status: response.status, body: await response.json() };
      return answer;
    });
    expect(intercepted).toEqual({ status: 400, body: { error: 'invalid_grant' } });
    // The refused exchange spent the code: booksync's connect is refused too, and nothing is saved.
    expect(String(code)).toMatch(/Xero did not issue tokens: .*invalid_grant/);
    expect(await xeroSettings(settings).connection.readConnection()).toBeNull();
  });

  it('a log line that would carry a verifier has it redacted (booksync logs none; the redaction is the net)', () => {
    const logged: string[] = [];
    const logger = createLogger(
      { level: 'debug', format: 'json' },
      { write: (l: string) => void logged.push(l) },
    );
    const verifier = 'v'.repeat(64);
    logger.info({ codeVerifier: verifier, form: { code_verifier: verifier } }, 'token request');
    expect(logged.join('')).not.toContain(verifier);
    expect(logged.join('')).toContain('[redacted]');
  });

  it('quickbooks: Intuit documents no PKCE, so the consent carries no challenge, and the command connects', async () => {
    const realmId = qbo.createRealm(undefined, { chart: quickBooksBooksyncChart });
    const settings = await settingsFor('quickbooks');
    const { code, said, consent } = await connect('quickbooks', settings, (url) => ({
      code: qbo.authorize(realmId),
      state: url.searchParams.get('state') as string,
      realmId,
    }));
    expect(code, said).toBe(0);
    expect(said).toContain(`connected to QuickBooks company ${realmId}`);
    expect(consent.searchParams.has('code_challenge')).toBe(false);
    expect(consent.searchParams.has('code_challenge_method')).toBe(false);
    expect((await quickBooksSettings(settings).connection.readConnection())?.companyId).toBe(realmId);
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
