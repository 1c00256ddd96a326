import type { TenantOptions, XeroDouble } from '@booksync/vendor-doubles/xero/double';
import {
  type AccountMapping,
  defaultAccountCodes,
  type VendorExpenseAccounts,
} from '../../../src/targets/account-mapping.js';
import { type LimiterOptions, RealmLimiter } from '../../../src/targets/oauth/limiter.js';
import type { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import { XeroTarget, XeroTokenStore } from '../../../src/targets/xero/index.js';
import { xeroBooksyncChart } from '../booksync-charts.js';
import { SealedTokenInMemory } from '../sealed-token-in-memory.js';

/** Xero's limits as the double enforces them in the tests, its minute compressed to a second. */
const testLimits: LimiterOptions = { perMinute: 60, concurrent: 5, windowMs: 1_000, marginMs: 50 };

export interface XeroOrganisationOptions {
  /** How the new organisation is set up in the double (its tax rates…; booksync's chart unless `chart`). */
  tenant?: TenantOptions;
  /** A second connection to an organisation already in the double, instead of a new organisation. */
  tenantId?: string;
  /** XERO_TAX_TYPE; unset: the organisation's no-tax rate. */
  taxType?: string;
  /** How long lock dates are trusted; 0 reads them on every check. Unset: the adapter's 60 s. */
  lockTtlMs?: number;
  /** Each target() gets a new limiter with these limits (a new process); default 60 a second, 5 at once. */
  limits?: LimiterOptions;
  /** One limiter every target() shares (one worker), instead of a new one each. */
  limiter?: RealmLimiter;
  accounts?: AccountMapping;
}

/**
 * An organisation in the double and the adapter connected to it, as booksync's own Xero target with booksync's
 * default accounts, matching by creating; `target(vendorExpenses?)` is a new adapter each call (a new process), sharing the
 * connection, whose token store refreshes through the one storage. Mirrors quickBooksCompany.
 */
export function xeroOrganisation(
  double: XeroDouble,
  cipher: TokenCipher,
  options: XeroOrganisationOptions = {},
) {
  // booksync's accounts already in place (unless `tenant` says otherwise): the adapter tests built on this
  // are about the documents, not set-up (test/cli/targets-setup-xero.test.ts is).
  const tenantId =
    options.tenantId ?? double.createTenant(undefined, { chart: xeroBooksyncChart, ...options.tenant });
  const storage = new SealedTokenInMemory(cipher.seal(double.connect(tenantId)));
  const target = (vendorExpenses?: VendorExpenseAccounts) =>
    new XeroTarget({
      baseUrl: double.url,
      tenantId,
      tokenStore: new XeroTokenStore({
        tokenUrl: `${double.url}/connect/token`,
        clientId: double.clientId,
        clientSecret: double.clientSecret,
        storage,
        cipher,
      }),
      accounts: options.accounts ?? defaultAccountCodes,
      ...(vendorExpenses ? { vendorExpenses } : {}),
      matching: 'create',
      limiter: options.limiter ?? new RealmLimiter(options.limits ?? testLimits),
      ...(options.lockTtlMs !== undefined ? { lockTtlMs: options.lockTtlMs } : {}),
      ...(options.taxType ? { taxType: options.taxType } : {}),
    });
  return { tenantId, target };
}
