import { createServer, type Server } from 'node:http';
import { createInterface } from 'node:readline';
import { parseAccountMapping } from '../../accounting/targets/account-mapping.js';
import {
  ConsentError,
  consentUrl,
  newConsentState,
  parseConsentRedirect,
} from '../../accounting/targets/quickbooks/index.js';
import { openQuickBooksTarget, quickBooksSettings } from '../../runtime/quickbooks-connection.js';
import { type CommandContext, CommandError } from '../command.js';

// `booksync targets connect quickbooks`: OAuth 2.0's authorization-code flow, once. It prints Intuit's consent
// URL; the redirect comes back to a loopback listener on QBO_REDIRECT_URI or is pasted on standard input,
// whichever comes first. The code is exchanged for tokens, the refresh token saved sealed with the company
// id, and the mapped accounts are checked in that company. No token is ever printed or logged.

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

export const connectUsage = `booksync targets connect quickbooks [--paste] [--timeout SECONDS]

Opens the consent of your Intuit app (QBO_CLIENT_ID, QBO_CLIENT_SECRET) for a QuickBooks company: open the
printed address, choose the company, allow. The redirect to QBO_REDIRECT_URI is taken by a listener when
that is a loopback address (unless --paste); otherwise paste the address the browser ended on. The refresh
token is saved encrypted (QBO_TOKEN_KEY) in QBO_TOKEN_FILE; run it again to reconnect after a revocation.`;

export async function connectTarget({ args, settings, out, logger }: CommandContext): Promise<number> {
  const [target, ...rest] = args;
  if (target !== 'quickbooks') {
    throw new CommandError(`targets connect: only quickbooks connects by consent (got '${target ?? ''}')`);
  }
  const timeoutS = Number(option(rest, '--timeout') ?? 600);
  if (!Number.isFinite(timeoutS) || timeoutS <= 0) throw new CommandError('--timeout: a number of seconds');
  let qbo: ReturnType<typeof quickBooksSettings>;
  try {
    qbo = quickBooksSettings(settings);
  } catch (error) {
    throw new CommandError((error as Error).message);
  }
  const redirectUri = settings.QBO_REDIRECT_URI;
  const state = newConsentState();
  out('Open this address in a browser, choose the QuickBooks company and allow booksync:');
  out(
    `  ${consentUrl({ clientId: settings.QBO_CLIENT_ID as string, redirectUri, state, authorizeUrl: settings.QBO_CONSENT_URL })}`,
  );

  const redirect = new URL(redirectUri);
  const listen = !rest.includes('--paste') && loopbackHosts.has(redirect.hostname);
  out(
    listen
      ? `Waiting for QuickBooks to redirect to ${redirectUri} (or paste the address the browser shows)...`
      : 'Paste the address the browser shows after you allowed booksync:',
  );

  const consent = await new Promise<{ code: string; realmId: string }>((resolve, reject) => {
    let server: Server | null = null;
    const lines = createInterface({ input: process.stdin });
    const timer = setTimeout(
      () => finish(new CommandError(`no answer from QuickBooks within ${timeoutS} s`)),
      timeoutS * 1000,
    );
    function finish(result: { code: string; realmId: string } | Error) {
      clearTimeout(timer);
      lines.close();
      server?.close();
      if (result instanceof Error) reject(result);
      else resolve(result);
    }
    lines.on('line', (line) => {
      if (!line.trim()) return;
      try {
        finish(parseConsentRedirect(line.trim(), state));
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
          const answer = parseConsentRedirect(url.toString(), state);
          res
            .writeHead(200, { 'content-type': 'text/plain' })
            .end('booksync is connected; you can close this tab.\n');
          finish(answer);
        } catch (error) {
          const message = error instanceof ConsentError ? error.message : 'not a QuickBooks redirect';
          res.writeHead(400, { 'content-type': 'text/plain' }).end(`booksync: ${message}\n`);
          out(`refused a redirect: ${message}`);
        }
      });
      server.on('error', (error) =>
        finish(new CommandError(`cannot listen on ${redirectUri}: ${error.message}`)),
      );
      server.listen(Number(redirect.port || 80), redirect.hostname.replace(/^\[|\]$/g, ''));
    }
  });

  try {
    await qbo.tokenStore(consent.realmId, logger).connect(consent.code, redirectUri);
  } catch (error) {
    throw new CommandError(`QuickBooks did not issue tokens: ${(error as Error).message}`);
  }
  out(
    `connected to QuickBooks company ${consent.realmId}; the refresh token is saved encrypted in ${qbo.file.file}`,
  );
  if (settings.QBO_REALM_ID && settings.QBO_REALM_ID !== consent.realmId) {
    out(`QBO_REALM_ID is ${settings.QBO_REALM_ID}, not this company: unset it or connect that company`);
    return 1;
  }

  const quickbooks = await openQuickBooksTarget({
    settings,
    accounts: parseAccountMapping(settings.TARGET_ACCOUNTS),
    logger,
  });
  try {
    await quickbooks.verify();
    out(
      'every mapped account is in that company; booksync pushes there while ACCOUNTING_TARGET includes quickbooks',
    );
    return 0;
  } catch (error) {
    out((error as Error).message);
    out('map the accounts with TARGET_ACCOUNTS (Role=AcctNum or Id) before starting booksync');
    return 1;
  }
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
}
