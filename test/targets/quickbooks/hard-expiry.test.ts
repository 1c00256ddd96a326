import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { afterAll, describe, expect, it } from 'vitest';
import type { OAuthConnectionStore } from '../../../src/targets/oauth/connection-store.js';
import {
  connectionHardExpiryWarning,
  HARD_EXPIRY_WARNING_DAYS,
  hardExpiryWarning,
} from '../../../src/targets/oauth/hard-expiry.js';
import { PostgresOAuthConnections } from '../../../src/targets/oauth/postgres-connection.js';
import { CompanyTokenStore } from '../../../src/targets/oauth/token-store.js';
import {
  OAuthTokenStore,
  QuickBooksConnectionFile,
  TokenCipher,
} from '../../../src/targets/quickbooks/index.js';
import { doubleForFile } from '../../support/double-for-file.js';
import type { PostgresCluster } from '../../support/postgres.js';
import { sharedPostgres } from '../../support/shared-postgres.js';

// Intuit's refresh tokens stop working five years after consent however often they are refreshed (Intuit's
// refresh token policy, 2025); the token endpoint says when as `x_refresh_token_hard_expires_in` to a request
// carrying `x-include-refresh-token-hard-expires-in: true` (Intuit's oauth-jsclient#211). booksync asks, keeps
// the time with the connection, and warns HARD_EXPIRY_WARNING_DAYS (14) days before it.

const DAY = 86_400_000;
const start = Date.parse('2026-11-01T00:00:00.000Z');
let clock = start;
const double = doubleForFile(new QuickBooksDouble({ now: () => clock }));
const cipher = new TokenCipher('test-secret-for-quickbooks-hard-expiry');
const dir = mkdtempSync(path.join(tmpdir(), 'booksync-hard-expiry-'));
let postgres: PostgresCluster | undefined;
const closers: OAuthConnectionStore[] = [];
afterAll(async () => {
  for (const store of closers) await store.close?.();
  await postgres?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const stores: { name: string; open(): Promise<OAuthConnectionStore> }[] = [
  { name: 'the connection file', open: async () => new QuickBooksConnectionFile(path.join(dir, 'qbo.json')) },
  {
    name: 'PostgreSQL (oauth_connections)',
    open: async () => {
      postgres ??= await sharedPostgres({ name: 'qbo-hard-expiry' });
      const store = new PostgresOAuthConnections({
        url: await postgres.createDatabase('hard_expiry'),
        target: 'quickbooks',
      });
      closers.push(store);
      return store;
    },
  },
];

const tokenOptions = (store: OAuthConnectionStore, realm: string) => ({
  tokenUrl: `${double.url}/oauth2/v1/tokens/bearer`,
  clientId: double.clientId,
  clientSecret: double.clientSecret,
  storage: store.storage(realm),
  cipher,
  now: () => clock,
});

describe.each(stores)('a QuickBooks refresh token’s hard expiry, in $name', (kind) => {
  it('is kept with the connection from the token endpoint, and warned of from 14 days before it', async () => {
    clock = start;
    const realm = double.createRealm();
    const store = await kind.open();
    await store.writeConnection({
      companyId: realm,
      refreshToken: cipher.seal(double.connect(realm)),
      connectedAt: '2021-11-11T00:00:00.000Z',
    });
    double.setRefreshTokenHardExpiry(start + 10 * DAY);
    await new OAuthTokenStore(tokenOptions(store, realm)).accessToken();
    const connection = await store.readConnection();
    expect(connection?.refreshTokenHardExpiresAt).toBe('2026-11-11T00:00:00.000Z');

    expect(await connectionHardExpiryWarning('quickbooks', store, clock)).toBe(
      `quickbooks: the connection to company ${realm} stops working at 2026-11-11T00:00:00.000Z (in 10 days), however often it is used: run booksync targets connect quickbooks before then`,
    );
    const at = start + 10 * DAY;
    expect(HARD_EXPIRY_WARNING_DAYS).toBe(14);
    expect(hardExpiryWarning('quickbooks', connection ?? null, at - 15 * DAY)).toBeNull();
    expect(hardExpiryWarning('quickbooks', connection ?? null, at - 14 * DAY)).toMatch(/in 14 days/);
    expect(hardExpiryWarning('quickbooks', connection ?? null, at + 1)).toMatch(
      /stopped working at 2026-11-11T00:00:00.000Z: run booksync targets connect quickbooks/,
    );

    // A reconnect gives a new five years: the next refresh stores them, and the warning is gone.
    double.setRefreshTokenHardExpiry(start + 5 * 365 * DAY);
    clock = start + 2 * 3_600_000;
    await new OAuthTokenStore(tokenOptions(store, realm)).accessToken();
    expect(await connectionHardExpiryWarning('quickbooks', store, clock)).toBeNull();
    expect((await store.readConnection())?.refreshTokenHardExpiresAt).toBe(
      new Date(start + 5 * 365 * DAY).toISOString(),
    );

    // A token store that does not ask for it (Xero's, which has no such limit) stores none.
    await new CompanyTokenStore(
      { target: 'quickbooks', label: 'QuickBooks' },
      tokenOptions(store, realm),
    ).accessToken();
    expect((await store.readConnection())?.refreshTokenHardExpiresAt).toBeUndefined();
  });
});
