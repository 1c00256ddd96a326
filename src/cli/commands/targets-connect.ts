import { createServer, type Server } from 'node:http';
import { createInterface } from 'node:readline';
import { openQuickBooksTarget, quickBooksSettings } from '../../runtime/quickbooks-connection.js';
import { openXeroTarget, xeroSettings } from '../../runtime/xero-connection.js';
import { parseAccountMapping } from '../../targets/account-mapping.js';
import type { SealedTokenStorage } from '../../targets/oauth/token-store.js';
import {
  ConsentError,
  consentUrl,
  newConsentState,
  parseConsentRedirect,
} from '../../targets/quickbooks/index.js';
import {
  parseConsentRedirect as parseXeroRedirect,
  xeroConnections,
  consentUrl as xeroConsentUrl,
  xeroScopes,
} from '../../targets/xero/index.js';
import { type CommandContext, CommandError } from '../command.js';

// `booksync targets connect quickbooks|xero`: OAuth 2.0's authorization-code flow, once. It prints the consent
// URL (Intuit's, Xero's); the redirect comes back to a loopback listener on the redirect URI or is pasted on
// standard input, whichever comes first. The code is exchanged for tokens, the refresh token saved sealed
// with the company (QBO's realmId from the redirect, Xero's tenant from its connections endpoint), and the
// mapped accounts are checked there. No token is ever printed or logged.

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

export const connectUsage = `booksync targets connect quickbooks|xero [--paste] [--timeout SECONDS]

Opens the consent of your Intuit app (QBO_CLIENT_ID, QBO_CLIENT_SECRET) for a QuickBooks company, or of your
Xero app (XERO_CLIENT_ID, XERO_CLIENT_SECRET) for a Xero organisation: open the printed address, choose the
company, allow. Xero is asked the scopes of XERO_SCOPES (printed; booksync's granular ones by default, Xero's
broad ones with XERO_BROAD_SCOPES for an app created before 2 March 2026). The redirect to QBO_REDIRECT_URI / XERO_REDIRECT_URI is taken by a listener when that is a
loopback address (unless --paste); otherwise paste the address the browser ended on. The refresh token is
saved encrypted (QBO_TOKEN_KEY / XERO_TOKEN_KEY) in QBO_TOKEN_FILE / XERO_TOKEN_FILE; run it again to
reconnect after a revocation.`;

export async function connectTarget(context: CommandContext): Promise<number> {
  const [target, ...rest] = context.args;
  const timeoutS = Number(option(rest, '--timeout') ?? 600);
  if (!Number.isFinite(timeoutS) || timeoutS <= 0) throw new CommandError('--timeout: a number of seconds');
  const paste = rest.includes('--paste');
  if (target === 'quickbooks') return connectQuickBooks(context, { timeoutS, paste });
  if (target === 'xero') return connectXero(context, { timeoutS, paste });
  throw new CommandError(`targets connect: quickbooks or xero connect by consent (got '${target ?? ''}')`);
}

/**
 * Prints the consent URL and takes back the redirect: on a loopback listener at redirectUri (unless paste),
 * or pasted on standard input, whichever comes first; `parse` checks it (state, code).
 */
async function awaitConsent<T>(options: {
  out: (line: string) => void;
  label: string;
  consentUrl: string;
  redirectUri: string;
  paste: boolean;
  timeoutS: number;
  parse: (redirect: string) => T;
}): Promise<T> {
  const { out, label, redirectUri, timeoutS, parse } = options;
  out(`Open this address in a browser, choose the ${label} company and allow booksync:`);
  out(`  ${options.consentUrl}`);
  const redirect = new URL(redirectUri);
  const listen = !options.paste && loopbackHosts.has(redirect.hostname);
  if (!listen) out('Paste the address the browser shows after you allowed booksync:');
  return new Promise<T>((resolve, reject) => {
    let server: Server | null = null;
    const lines = createInterface({ input: process.stdin });
    const timer = setTimeout(
      () => finish(new CommandError(`no answer from ${label} within ${timeoutS} s`)),
      timeoutS * 1000,
    );
    function finish(result: T | Error) {
      clearTimeout(timer);
      lines.close();
      server?.close();
      if (result instanceof Error) reject(result);
      else resolve(result);
    }
    lines.on('line', (line) => {
      if (!line.trim()) return;
      try {
        finish(parse(line.trim()));
      } catch (error) {
        out(`not that one: ${(error as Error).message}`);
      }
    });
    if (listen) {
      server = createServer((req, res) => {
        const url = new URL(req.url ?? '/', redirect.origin);
        if (url.pathname !== redirect.pathname) {
          res.writeHead(404).end();
          return;
        }
        try {
          const answer = parse(url.toString());
          res
            .writeHead(200, { 'content-type': 'text/plain' })
            .end('booksync is connected; you can close this tab.\n');
          finish(answer);
        } catch (error) {
          const message = error instanceof ConsentError ? error.message : `not a ${label} redirect`;
          res.writeHead(400, { 'content-type': 'text/plain' }).end(`booksync: ${message}\n`);
          out(`refused a redirect: ${message}`);
        }
      });
      server.on('error', (error) =>
        finish(new CommandError(`cannot listen on ${redirectUri}: ${error.message}`)),
      );
      // Said once the address listens: a redirect that follows the line at once is taken, not refused.
      server.listen(Number(redirect.port || 80), redirect.hostname.replace(/^\[|\]$/g, ''), () =>
        out(`Waiting for ${label} to redirect to ${redirectUri} (or paste the address the browser shows)...`),
      );
    }
  });
}

/** The target's settings; a missing one refuses the command with the target's own words. */
function refusedAsCommand<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw new CommandError((error as Error).message);
  }
}

async function connectQuickBooks(
  { settings, out, logger }: CommandContext,
  { timeoutS, paste }: { timeoutS: number; paste: boolean },
): Promise<number> {
  const qbo = refusedAsCommand(() => quickBooksSettings(settings));
  const redirectUri = settings.QBO_REDIRECT_URI;
  const state = newConsentState();
  const consent = await awaitConsent({
    out,
    label: 'QuickBooks',
    consentUrl: consentUrl({
      clientId: settings.QBO_CLIENT_ID as string,
      redirectUri,
      state,
      authorizeUrl: settings.QBO_CONSENT_URL,
    }),
    redirectUri,
    paste,
    timeoutS,
    parse: (redirect) => parseConsentRedirect(redirect, state),
  });

  // The company is checked before the code is exchanged: a token of another company must never replace the
  // pinned company's connection (the workers push to QBO_REALM_ID with whatever token is stored).
  if (settings.QBO_REALM_ID && settings.QBO_REALM_ID !== consent.realmId) {
    out(
      `QBO_REALM_ID is ${settings.QBO_REALM_ID}, not the company chosen (${consent.realmId}): nothing saved; unset it or connect that company`,
    );
    return 1;
  }
  try {
    await qbo.tokenStore(consent.realmId, logger).connect(consent.code, redirectUri);
  } catch (error) {
    throw new CommandError(`QuickBooks did not issue tokens: ${(error as Error).message}`);
  }
  out(
    `connected to QuickBooks company ${consent.realmId}; the refresh token is saved encrypted in ${qbo.connection.where}`,
  );

  const quickbooks = await openQuickBooksTarget({
    settings,
    accounts: parseAccountMapping(settings.TARGET_ACCOUNTS),
    logger,
  });
  return verified(
    quickbooks,
    out,
    'every mapped account is in that company; booksync pushes there while ACCOUNTING_TARGET includes quickbooks',
    'map the accounts with TARGET_ACCOUNTS (Role=AcctNum or Id) before starting booksync',
  );
}

async function connectXero(
  { settings, out, logger }: CommandContext,
  { timeoutS, paste }: { timeoutS: number; paste: boolean },
): Promise<number> {
  const xero = refusedAsCommand(() => xeroSettings(settings));
  const redirectUri = settings.XERO_REDIRECT_URI;
  const state = newConsentState();
  // Xero refuses the whole consent (invalid_scope) for one scope the app may not ask: named before it opens.
  const scope = xeroScopes(settings);
  out(`Xero scopes asked (XERO_SCOPES${settings.XERO_BROAD_SCOPES ? ', XERO_BROAD_SCOPES' : ''}): ${scope}`);
  const { code } = await awaitConsent({
    out,
    label: 'Xero',
    consentUrl: xeroConsentUrl({
      clientId: settings.XERO_CLIENT_ID as string,
      redirectUri,
      state,
      authorizeUrl: settings.XERO_CONSENT_URL,
      scope,
    }),
    redirectUri,
    paste,
    timeoutS,
    parse: (redirect) => parseXeroRedirect(redirect, state),
  });

  // The organisation is known only after the exchange (Xero's connections): the first refresh token is held
  // here, then saved sealed with the organisation it reaches.
  const held: SealedTokenStorage & { sealed: string | null } = {
    sealed: null,
    async load() {
      return this.sealed;
    },
    async save(sealed) {
      this.sealed = sealed;
    },
  };
  let tenantId: string;
  try {
    const accessToken = await xero.tokenStoreWith(held, logger).connect(code, redirectUri);
    const organisations = await xeroConnections(xero.connectionsUrl, accessToken);
    const chosen = settings.XERO_TENANT_ID
      ? organisations.find((o) => o.tenantId === settings.XERO_TENANT_ID)
      : organisations[0];
    if (!chosen) {
      out(
        settings.XERO_TENANT_ID
          ? `XERO_TENANT_ID is ${settings.XERO_TENANT_ID}, which this consent does not reach: allow that organisation or unset it`
          : 'the consent reaches no Xero organisation',
      );
      return 1;
    }
    tenantId = chosen.tenantId;
    if (organisations.length > 1 && !settings.XERO_TENANT_ID)
      out(
        `the consent reaches ${organisations.length} organisations; using ${chosen.tenantName ?? chosen.tenantId} (set XERO_TENANT_ID for another)`,
      );
  } catch (error) {
    throw new CommandError(`Xero did not issue tokens: ${(error as Error).message}`);
  }
  await xero.connection.writeConnection({
    companyId: tenantId,
    refreshToken: held.sealed as string,
    connectedAt: new Date().toISOString(),
  });
  out(
    `connected to Xero organisation ${tenantId}; the refresh token is saved encrypted in ${xero.connection.where}`,
  );

  const target = await openXeroTarget({
    settings: { ...settings, XERO_TENANT_ID: tenantId },
    accounts: parseAccountMapping(settings.TARGET_ACCOUNTS),
    logger,
  });
  return verified(
    target,
    out,
    'every mapped account is in that organisation; booksync pushes there while ACCOUNTING_TARGET includes xero',
    'map the accounts with TARGET_ACCOUNTS (Role=account code) before starting booksync',
  );
}

/** Whether every mapped account is at the newly connected target: `found` (0), else its refusal and `hint` (1). */
async function verified(
  target: { verify(): Promise<unknown> },
  out: (line: string) => void,
  found: string,
  hint: string,
): Promise<number> {
  try {
    await target.verify();
    out(found);
    return 0;
  } catch (error) {
    out((error as Error).message);
    out(hint);
    return 1;
  }
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
}
