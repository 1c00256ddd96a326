import { defaultAccountCodes } from '../../../src/accounting/targets/account-mapping.js';
import {
  OAuthTokenStore,
  QuickBooksTarget,
  type TokenCipher,
} from '../../../src/accounting/targets/quickbooks/index.js';
import { SealedTokenInMemory } from '../sealed-token-in-memory.js';
import type { QuickBooksDouble } from './double.js';

/**
 * A new company in the double and the adapter connected to it, as booksync's own QuickBooks target with
 * booksync's default accounts; `target()` is a new adapter each call (a new process), sharing the connection.
 */
export function quickBooksCompany(double: QuickBooksDouble, cipher: TokenCipher) {
  const realmId = double.createRealm();
  const storage = new SealedTokenInMemory(cipher.seal(double.connect(realmId)));
  const target = () =>
    new QuickBooksTarget({
      baseUrl: double.url,
      realmId,
      tokenStore: new OAuthTokenStore({
        tokenUrl: `${double.url}/oauth2/v1/tokens/bearer`,
        clientId: double.clientId,
        clientSecret: double.clientSecret,
        storage,
        cipher,
      }),
      accounts: defaultAccountCodes,
      matching: 'create',
    });
  return { realmId, target };
}
