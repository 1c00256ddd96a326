import { loadSettings } from '../../../src/config/settings.js';
import { silentLogger } from '../../../src/logging/logger.js';
import { quickBooksSettings } from '../../../src/runtime/targets/quickbooks-connection.js';
import { xeroSettings } from '../../../src/runtime/targets/xero-connection.js';
import { TargetDisconnectedError } from '../../../src/targets/errors.js';
import type { OAuthConnectionStore } from '../../../src/targets/oauth/connection-store.js';
import type { CompanyTokenStore } from '../../../src/targets/oauth/token-store.js';

// One worker process of shared-connection.test.ts: the QuickBooks (or, REFRESH_WORKER_TARGET=xero, Xero)
// connection the environment describes (its own connection store, database pool and token store, as
// `booksync worker` builds them), an API call every 340-500 ms until REFRESH_WORKER_UNTIL, a 401 answered by
// one refresh, as the targets' HTTP clients do. REFRESH_WORKER_DIE=1: take the refresh lock and die holding it
// (a crashed worker). Prints its tally as JSON.

const settings = loadSettings(process.env);
let connection: OAuthConnectionStore;
let company: string;
let tokens: CompanyTokenStore;
let url: string;
if (process.env.REFRESH_WORKER_TARGET === 'xero') {
  const xero = xeroSettings(settings);
  company = settings.XERO_TENANT_ID as string;
  ({ connection } = xero);
  tokens = xero.tokenStore(company, silentLogger);
  url = xero.connectionsUrl;
} else {
  const qbo = quickBooksSettings(settings);
  company = settings.QBO_REALM_ID as string;
  ({ connection } = qbo);
  tokens = qbo.tokenStore(company, silentLogger);
  url = `${settings.QBO_BASE_URL}/v3/company/${company}/account/1?minorversion=75`;
}

if (process.env.REFRESH_WORKER_DIE === '1') {
  await connection.storage(company).exclusive?.(async () => {
    process.stdout.write('holding\n');
    process.kill(process.pid, 'SIGKILL');
    await new Promise(() => undefined);
  });
}

const until = Number(process.env.REFRESH_WORKER_UNTIL);
const call = (token: string) =>
  fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
const tally = { calls: 0, refusals: [] as string[], failures: [] as string[] };
while (Date.now() < until) {
  try {
    let token = await tokens.accessToken();
    let response = await call(token);
    if (response.status === 401) {
      token = await tokens.rejected(token);
      response = await call(token);
    }
    if (response.status === 200) tally.calls++;
    else tally.failures.push(`HTTP ${response.status}`);
  } catch (error) {
    if (error instanceof TargetDisconnectedError) tally.refusals.push(error.message);
    else tally.failures.push((error as Error).message);
  }
  // At most three calls a second each: three workers together stay under QuickBooks' 10 a second per company
  // (the double enforces it; each worker's own limiter knows only its own calls).
  await new Promise((resolve) => setTimeout(resolve, 340 + Math.random() * 160));
}
await connection.close?.();
process.stdout.write(`${JSON.stringify(tally)}\n`);
