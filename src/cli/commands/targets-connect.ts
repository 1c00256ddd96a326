import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createInterface } from 'node:readline';
import type { TargetIndexStore } from '../../flows/push/target-index.js';
import type { Logger } from '../../logging/logger.js';
import { openLedgerStore } from '../../runtime/ledger-store.js';
import { openQuickBooksTarget, quickBooksSettings } from '../../runtime/targets/quickbooks-connection.js';
import { openXeroTarget, xeroSettings } from '../../runtime/targets/xero-connection.js';
import { parseAccountMapping } from '../../targets/account-mapping.js';
import { TargetConfigurationError } from '../../targets/errors.js';
import type { OAuthConnectionStore, SealedTokenStorage } from '../../targets/oauth/connection-store.js';
import {
  ConsentError,
  consentUrl,
  newConsentState,
  parseConsentRedirect,
} from '../../targets/quickbooks/consent.js';
import {
  chooseXeroTenant,
  ProofKey,
  parseConsentRedirect as parseXeroRedirect,
  type XeroConnection,
  xeroConnections,
  consentUrl as xeroConsentUrl,
  xeroScopes,
} from '../../targets/xero/consent.js';
import { type CommandContext, CommandError } from '../command.js';
import { TARGET_WAIT_MS, whenAvailable } from '../when-available.js';

// `booksync targets connect quickbooks|xero`: OAuth 2.0's authorization-code flow, once. It prints the consent
// URL (Intuit's, Xero's); the redirect comes back to a loopback listener on the redirect URI or is pasted on
// standard input, whichever comes first. The code is exchanged for tokens, the refresh token saved sealed
// with the company (QBO's realmId from the redirect, Xero's tenant from its connections endpoint), and the
// mapped accounts are checked there. No token is ever printed or logged. Xero's consent carries a PKCE
// challenge (Xero documents PKCE; Intuit does not, see ../../targets/quickbooks/consent.ts): its verifier is
// made for this connect, kept in memory only, and sent with the code exchange.
//
// One company per target: the target index records what was pushed to the company it was built against, so
// a connect to another company than the one connected (the saved connection's, the index's, or the one
// QBO_REALM_ID / XERO_TENANT_ID names) is refused before anything is saved, unless --switch-company: then the
// new company's token is saved and its index starts fresh (the old company's rows are moved aside, kept).

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

export const connectUsage = `booksync targets connect quickbooks|xero [--paste] [--timeout SECONDS] [--switch-company]

Opens the consent of your Intuit app (QBO_CLIENT_ID, QBO_CLIENT_SECRET) for a QuickBooks company, or of your
Xero app (XERO_CLIENT_ID, XERO_CLIENT_SECRET) for a Xero organisation: open the printed address, choose the
company, allow. Xero is asked the scopes of XERO_SCOPES (printed; booksync's granular ones by default, Xero's
broad ones with XERO_BROAD_SCOPES for an app created before 2 March 2026). The redirect to QBO_REDIRECT_URI / XERO_REDIRECT_URI is taken by a listener when that is a
loopback address (unless --paste); otherwise paste the address the browser ended on. The refresh token is
saved encrypted (QBO_TOKEN_KEY / XERO_TOKEN_KEY) in QBO_TOKEN_FILE / XERO_TOKEN_FILE; run it again to
reconnect after a revocation. With several Xero organisations allowed, XERO_TENANT_ID names the one to use.
A company other than the one connected (or QBO_REALM_ID / XERO_TENANT_ID) is refused, nothing saved; with
--switch-company it is connected and the target index starts fresh for it (the other company's index rows
are kept aside, no longer used). A company answering "not now" when its accounts are checked (429, 5xx) is
asked again as it says (Retry-After, else 5 s doubling), for up to 3 minutes; targets setup reads the same way.`;

export async function connectTarget(context: CommandContext): Promise<number> {
  const [target, ...rest] = context.args;
  const timeoutS = Number(option(rest, '--timeout') ?? 600);
  if (!Number.isFinite(timeoutS) || timeoutS <= 0) throw new CommandError('--timeout: a number of seconds');
  const flags: ConnectFlags = {
    timeoutS,
    paste: rest.includes('--paste'),
    switchCompany: rest.includes('--switch-company'),
  };
  if (target === 'quickbooks') return connectQuickBooks(context, flags);
  if (target === 'xero') return connectXero(context, flags);
  throw new CommandError(`targets connect: quickbooks or xero connect by consent (got '${target ?? ''}')`);
}

interface ConnectFlags {
  timeoutS: number;
  paste: boolean;
  /** --switch-company: another company than the one connected may replace it (its index starts fresh). */
  switchCompany: boolean;
}

/**
 * The target's index, in the ledger's store (SQLite or PostgreSQL), open while `work` runs; null before the
 * first start made the SQLite ledger (nothing was pushed anywhere yet, and the first start records the
 * connected company): a connect never makes the ledger, so that first start still finds a fresh data folder.
 */
async function withIndex<T>(
  settings: CommandContext['settings'],
  logger: Logger,
  work: (index: TargetIndexStore | null) => Promise<T>,
): Promise<T> {
  if (!settings.LEDGER_URL && !existsSync(settings.ledgerDb)) return work(null);
  const store = await openLedgerStore(settings, logger);
  try {
    return await work(store.targetIndex);
  } finally {
    await store.close();
  }
}

/** What one target calls its company, and the setting that names it. */
interface CompanyTerms {
  target: 'quickbooks' | 'xero';
  /** 'QuickBooks company', 'Xero organisation'. */
  company: string;
  setting: 'QBO_REALM_ID' | 'XERO_TENANT_ID';
}

/**
 * Why `chosen` may not be connected, or null: the company the setting names must be it, flag or not (the
 * workers push to the setting's company); the saved connection's and the index's must be it unless
 * --switch-company. Reads only.
 */
async function refusalOfCompany(
  terms: CompanyTerms,
  chosen: string,
  known: { configured: string | undefined; connection: OAuthConnectionStore; index: TargetIndexStore | null },
  switchCompany: boolean,
): Promise<string | null> {
  const { target, company, setting } = terms;
  if (known.configured !== undefined && known.configured !== chosen) {
    return (
      `${setting} is ${known.configured}, not the ${company} chosen (${chosen}): nothing saved; connect ${known.configured}, ` +
      `or set ${setting} to ${chosen} (or unset it) and run booksync targets connect ${target} --switch-company`
    );
  }
  if (switchCompany) return null;
  const sources = new Map<string, string[]>();
  const connected = (await known.connection.readConnection())?.companyId;
  const indexed = (await known.index?.company(target))?.companyId;
  for (const [id, source] of [
    [connected, 'the saved connection'],
    [indexed, 'the target index'],
  ] as const) {
    if (id !== undefined && id !== chosen) sources.set(id, [...(sources.get(id) ?? []), source]);
  }
  if (sources.size === 0) return null;
  const current = [...sources].map(([id, from]) => `${id} (${from.join(' and ')})`).join(' and ');
  return (
    `booksync is connected to ${company} ${current}, not the ${company} chosen (${chosen}): nothing saved. ` +
    `Choose ${[...sources.keys()].join(' or ')} to reconnect, or run booksync targets connect ${target} --switch-company ` +
    `to push to ${chosen} from now on (a fresh target index for ${chosen}; the other company's index rows are kept aside, unused)`
  );
}

/**
 * After the new token is saved: the index is `chosen`'s. Recorded when it had no company; when it was
 * another's (a --switch-company refusalOfCompany let through), started fresh, the switch said and logged.
 */
async function indexFor(
  terms: CompanyTerms,
  chosen: string,
  before: string | undefined,
  index: TargetIndexStore | null,
  out: (line: string) => void,
  logger: Logger,
): Promise<void> {
  const { target, company } = terms;
  if (index === null) return;
  const indexed = (await index.company(target))?.companyId;
  if ((indexed ?? before ?? chosen) === chosen) {
    await index.claimCompany(target, chosen);
    return;
  }
  const switched = await index.switchCompany(target, chosen, before);
  const from = switched.previous ?? before ?? 'unknown';
  logger.warn(
    { target, from, to: chosen, keptAs: switched.keptAs, moved: switched.moved },
    'accounting target switched company: its index starts fresh',
  );
  out(
    `switched ${target} from ${company} ${from} to ${chosen}: the target index starts fresh for ${chosen}` +
      (switched.keptAs
        ? `; ${from}'s ${switched.moved} index rows are kept aside as target ${switched.keptAs}, no longer used`
        : ''),
  );
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

const quickBooksTerms: CompanyTerms = {
  target: 'quickbooks',
  company: 'QuickBooks company',
  setting: 'QBO_REALM_ID',
};

async function connectQuickBooks(
  { settings, out, logger }: CommandContext,
  { timeoutS, paste, switchCompany }: ConnectFlags,
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
  // connected company's (the workers push to QBO_REALM_ID, else the saved company, with whatever token is
  // stored, and the index says what that company holds).
  const refused = await withIndex(settings, logger, async (index) => {
    const before = (await qbo.connection.readConnection())?.companyId;
    const refusal = await refusalOfCompany(
      quickBooksTerms,
      consent.realmId,
      { configured: settings.QBO_REALM_ID, connection: qbo.connection, index },
      switchCompany,
    );
    if (refusal) {
      out(refusal);
      return true;
    }
    try {
      await qbo.tokenStore(consent.realmId, logger).connect(consent.code, redirectUri);
    } catch (error) {
      throw new CommandError(`QuickBooks did not issue tokens: ${(error as Error).message}`);
    }
    out(
      `connected to QuickBooks company ${consent.realmId}; the refresh token is saved encrypted in ${qbo.connection.where}`,
    );
    await indexFor(quickBooksTerms, consent.realmId, before, index, out, logger);
    return false;
  });
  if (refused) return 1;

  const quickbooks = await openQuickBooksTarget({
    settings,
    accounts: parseAccountMapping(settings.TARGET_ACCOUNTS),
    logger,
  });
  return verified(
    quickbooks,
    out,
    'every mapped account is in that company; booksync pushes there while ACCOUNTING_TARGET includes quickbooks',
    'next, before starting booksync: booksync targets setup quickbooks (the plan), then with --apply (creates what is missing, writes TARGET_ACCOUNTS); or map the accounts with TARGET_ACCOUNTS (Role=AcctNum or Id)',
  );
}

const xeroTerms: CompanyTerms = {
  target: 'xero',
  company: 'Xero organisation',
  setting: 'XERO_TENANT_ID',
};

async function connectXero(
  { settings, out, logger }: CommandContext,
  { timeoutS, paste, switchCompany }: ConnectFlags,
): Promise<number> {
  const xero = refusedAsCommand(() => xeroSettings(settings));
  const redirectUri = settings.XERO_REDIRECT_URI;
  const state = newConsentState();
  // Xero documents PKCE: this connect's verifier lives here, in memory, until the code is exchanged.
  const proofKey = new ProofKey();
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
      proofKey,
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
  let organisations: XeroConnection[];
  try {
    const accessToken = await xero
      .tokenStoreWith(held, logger)
      .connect(code, redirectUri, proofKey.codeVerifier());
    organisations = await xeroConnections(xero.connectionsUrl, accessToken);
  } catch (error) {
    throw new CommandError(`Xero did not issue tokens: ${(error as Error).message}`);
  }
  const choice = chooseXeroTenant(organisations, settings.XERO_TENANT_ID);
  if ('refusal' in choice) {
    out(choice.refusal);
    return 1;
  }
  const { tenantId } = choice;
  const refused = await withIndex(settings, logger, async (index) => {
    const before = (await xero.connection.readConnection())?.companyId;
    const refusal = await refusalOfCompany(
      xeroTerms,
      tenantId,
      { configured: settings.XERO_TENANT_ID, connection: xero.connection, index },
      switchCompany,
    );
    if (refusal) {
      out(refusal);
      return true;
    }
    await xero.connection.writeConnection({
      companyId: tenantId,
      refreshToken: held.sealed as string,
      connectedAt: new Date().toISOString(),
    });
    out(
      `connected to Xero organisation ${tenantId}; the refresh token is saved encrypted in ${xero.connection.where}`,
    );
    await indexFor(xeroTerms, tenantId, before, index, out, logger);
    return false;
  });
  if (refused) return 1;

  const target = await openXeroTarget({
    settings: { ...settings, XERO_TENANT_ID: tenantId },
    accounts: parseAccountMapping(settings.TARGET_ACCOUNTS),
    logger,
  });
  return verified(
    target,
    out,
    'every mapped account is in that organisation; booksync pushes there while ACCOUNTING_TARGET includes xero',
    'next, before starting booksync: booksync targets setup xero (the plan), then with --apply (creates what is missing, writes TARGET_ACCOUNTS); or map the accounts with TARGET_ACCOUNTS (Role=account code)',
  );
}

/**
 * Whether every mapped account is at the newly connected target: `found`, else what it lacks and `hint`. A
 * company without booksync's accounts (a new one) is connected all the same (0): set-up is the next step. A
 * target that could not be read is 1.
 */
async function verified(
  target: { verify(): Promise<unknown> },
  out: (line: string) => void,
  found: string,
  hint: string,
): Promise<number> {
  try {
    // A company just connected may be busy (a 429 right after a backlog was pushed): waited out, not failed.
    await whenAvailable(() => target.verify(), { out, withinMs: TARGET_WAIT_MS });
    out(found);
    return 0;
  } catch (error) {
    out((error as Error).message);
    out(hint);
    return error instanceof TargetConfigurationError ? 0 : 1;
  }
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
}
