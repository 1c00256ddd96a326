import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthConnectionFile } from '../../../src/targets/oauth/connection-file.js';
import type { OAuthConnectionStore } from '../../../src/targets/oauth/connection-store.js';
import { PostgresOAuthConnections } from '../../../src/targets/oauth/postgres-connection.js';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import { CompanyTokenStore, ReconnectRequired } from '../../../src/targets/oauth/token-store.js';
import type { PostgresCluster } from '../../support/postgres.js';
import { sharedPostgres } from '../../support/shared-postgres.js';

// A refused refresh token is recorded with the connection (when, and the token endpoint's error), so the
// console can say "reconnect" from the connection itself before any push has failed; a reconnect clears it.

const cipher = new TokenCipher('refused-test-key-0123456789');
const dir = mkdtempSync(path.join(tmpdir(), 'booksync-refused-'));
let double: QuickBooksDouble;
let postgres: PostgresCluster | undefined;
const closers: OAuthConnectionStore[] = [];
beforeAll(async () => {
  double = await new QuickBooksDouble().start();
});
afterAll(async () => {
  for (const store of closers) await store.close?.();
  await double.stop();
  await postgres?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const stores: { name: string; open(): Promise<OAuthConnectionStore> }[] = [
  {
    name: 'the connection file',
    open: async () => new OAuthConnectionFile(path.join(dir, 'qbo.json'), 'realmId', 'QuickBooks'),
  },
  {
    name: 'PostgreSQL (oauth_connections)',
    open: async () => {
      postgres ??= await sharedPostgres({ name: 'oauth-refused' });
      const store = new PostgresOAuthConnections({
        url: await postgres.createDatabase('refused'),
        target: 'quickbooks',
      });
      closers.push(store);
      return store;
    },
  },
];

describe.each(stores)('a connection the target refuses, in $name', (kind) => {
  it('is recorded as refused, without the token, and a reconnect clears it', async () => {
    const realm = double.createRealm();
    const file = await kind.open();
    await file.writeConnection({
      companyId: realm,
      refreshToken: cipher.seal(double.connect(realm)),
      connectedAt: '2026-03-01T00:00:00.000Z',
    });
    const tokens = () =>
      new CompanyTokenStore(
        { target: 'quickbooks', label: 'QuickBooks' },
        {
          tokenUrl: `${double.url}/oauth2/v1/tokens/bearer`,
          clientId: double.clientId,
          clientSecret: double.clientSecret,
          storage: file.storage(realm),
          cipher,
        },
      );
    await expect(tokens().accessToken()).resolves.toMatch(/^at-/);
    expect((await file.readConnection())?.refused).toBeUndefined();

    double.revoke(realm);
    await expect(tokens().accessToken()).rejects.toBeInstanceOf(ReconnectRequired);
    const refused = await file.readConnection();
    expect(refused?.refused).toEqual({ at: expect.any(String), reason: 'invalid_grant' });
    expect(refused?.companyId).toBe(realm);
    if (file instanceof OAuthConnectionFile)
      expect(readFileSync(file.file, 'utf8')).toContain('"refusedReason": "invalid_grant"');

    await file.writeConnection({
      companyId: realm,
      refreshToken: cipher.seal(double.connect(realm)),
      connectedAt: '2026-03-02T00:00:00.000Z',
    });
    expect((await file.readConnection())?.refused).toBeUndefined();
    await expect(tokens().accessToken()).resolves.toMatch(/^at-/);
  });
});
