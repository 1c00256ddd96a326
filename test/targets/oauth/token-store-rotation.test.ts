import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TargetUnavailableError } from '../../../src/targets/errors.js';
import type { SealedTokenStorage } from '../../../src/targets/oauth/connection-store.js';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import { CompanyTokenStore } from '../../../src/targets/oauth/token-store.js';

// The target rotates the refresh token before booksync saves it. A save that fails must
// not lose the rotation: the access token is not used, the rotated token is kept and saved first next time,
// and the connection goes on (before, the next refresh spent the old stored token: invalid_grant, reconnect).

const cipher = new TokenCipher('rotation-test-key-0123456789');

class FlakyStorage implements SealedTokenStorage {
  failures = 0;
  public sealed: string | null;
  constructor(sealed: string | null) {
    this.sealed = sealed;
  }
  async load() {
    return this.sealed;
  }
  async save(sealed: string) {
    if (this.failures > 0) {
      this.failures--;
      throw new Error('EIO: disk went away');
    }
    this.sealed = sealed;
  }
}

describe('a rotated refresh token the storage refuses', () => {
  let double: QuickBooksDouble;
  beforeAll(async () => {
    double = await new QuickBooksDouble().start();
  });
  afterAll(() => double.stop());

  const storeWith = (storage: SealedTokenStorage) =>
    new CompanyTokenStore(
      { target: 'quickbooks', label: 'QuickBooks' },
      {
        tokenUrl: `${double.url}/oauth2/v1/tokens/bearer`,
        clientId: double.clientId,
        clientSecret: double.clientSecret,
        storage,
        cipher,
      },
    );

  it('is not used, is kept, and is saved before the next refresh, which succeeds', async () => {
    const realm = double.createRealm();
    const storage = new FlakyStorage(cipher.seal(double.connect(realm)));
    const first = storage.sealed;
    storage.failures = 10;
    const tokens = storeWith(storage);
    await expect(tokens.accessToken()).rejects.toBeInstanceOf(TargetUnavailableError);
    expect(storage.sealed).toBe(first);

    storage.failures = 0;
    const access = await tokens.accessToken();
    expect(access).toMatch(/^at-/);
    expect(storage.sealed).not.toBe(first);
    // What is stored is the live token: another worker starting from it refreshes fine.
    await expect(storeWith(storage).accessToken()).resolves.toMatch(/^at-/);
  });

  it('rides out a save that fails twice without the caller noticing', async () => {
    const realm = double.createRealm();
    const storage = new FlakyStorage(cipher.seal(double.connect(realm)));
    storage.failures = 2;
    await expect(storeWith(storage).accessToken()).resolves.toMatch(/^at-/);
    await expect(storeWith(storage).accessToken()).resolves.toMatch(/^at-/);
  });
});
