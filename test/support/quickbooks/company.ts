import type { QuickBooksDouble, RealmOptions } from '@booksync/vendor-doubles/quickbooks/double';
import {
  type AccountMapping,
  defaultAccountCodes,
  type VendorExpenseAccounts,
} from '../../../src/targets/account-mapping.js';
import {
  OAuthTokenStore,
  QuickBooksTarget,
  type TokenCipher,
} from '../../../src/targets/quickbooks/index.js';
import { quickBooksBooksyncChart } from '../booksync-charts.js';
import { SealedTokenInMemory } from '../sealed-token-in-memory.js';

/**
 * A new company in the double and the adapter connected to it, as booksync's own QuickBooks target with
 * booksync's default accounts (and QBO_TAX_CODE's default, or `taxCode`); `target(vendorExpenses?)` is a new adapter each call
 * (a new process), sharing the connection. `realm` sets the company up (automated sales tax, a new QBO
 * company's chart: `realm: { chart: 'fresh' }`, else booksync's chart already set up), `accounts` the mapping the adapter uses instead of booksync's
 * defaults (a fresh chart's accounts by Id).
 */
export function quickBooksCompany(
  double: QuickBooksDouble,
  cipher: TokenCipher,
  options: { realm?: RealmOptions; taxCode?: string; accounts?: AccountMapping } = {},
) {
  // booksync's accounts already in place (unless `realm` says otherwise): the adapter tests built on this
  // are about the documents, not set-up (test/cli/targets-setup-quickbooks.test.ts is).
  const realmId = double.createRealm(undefined, { chart: quickBooksBooksyncChart, ...options.realm });
  const storage = new SealedTokenInMemory(cipher.seal(double.connect(realmId)));
  const target = (vendorExpenses?: VendorExpenseAccounts) =>
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
      accounts: options.accounts ?? defaultAccountCodes,
      ...(vendorExpenses ? { vendorExpenses } : {}),
      matching: 'create',
      ...(options.taxCode ? { taxCode: options.taxCode } : {}),
    });
  return { realmId, target };
}
