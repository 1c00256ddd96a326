import { describe, expect, it } from 'vitest';
import {
  type AccountMapping,
  type AccountRole,
  accountRoles,
} from '../../../src/accounting/targets/account-mapping.js';
import { QboClient } from '../../../src/accounting/targets/quickbooks/http-client.js';
import {
  OAuthTokenStore,
  QuickBooksTarget,
  RealmLimiter,
} from '../../../src/accounting/targets/quickbooks/index.js';
import { requestIdFor } from '../../../src/accounting/targets/quickbooks/keys.js';
import { quickBooksContract } from '../../support/quickbooks/xsd-contract.js';
import {
  pushContractDocumentsTwice,
  reportSkipped,
  sandboxRefreshToken,
  sandboxSettings,
} from './target-sandbox.js';

// Opt-in: the adapter against a real QuickBooks Online sandbox company (developer.intuit.com), when
//   QBO_CLIENT_ID, QBO_CLIENT_SECRET, QBO_REFRESH_TOKEN, QBO_REALM_ID
// are set (QBO_BASE_URL defaults to the sandbox API). It checks what the double cannot prove: that QBO
// itself accepts booksync's documents, answers in the XSD's shape, replays requestids, and finds keys with
// the queries the adapter uses (DocNumber tags, the PrivateNote marker prefix). It writes to the sandbox:
// booksync's accounts (`booksync <Role>`, mapped by Id), a customer, an invoice, a payment and its void.
// QBO rotates the refresh token: the new one is written to the file QBO_REFRESH_TOKEN_OUT names, never logged.

const env = process.env;
const settings = sandboxSettings(
  ['QBO_CLIENT_ID', 'QBO_CLIENT_SECRET', 'QBO_REFRESH_TOKEN', 'QBO_REALM_ID'],
  'QuickBooks sandbox test',
);
const { missing, reason } = settings;

const accountTypes: Record<AccountRole, { AccountType: string; AccountSubType?: string }> = {
  OperatingBank: { AccountType: 'Bank' },
  ProcessorClearing: { AccountType: 'Other Current Asset', AccountSubType: 'UndepositedFunds' },
  PayoutsInTransit: { AccountType: 'Other Current Asset' },
  ChecksToDeposit: { AccountType: 'Other Current Asset' },
  AccountsReceivable: { AccountType: 'Accounts Receivable' },
  AccountsPayable: { AccountType: 'Accounts Payable' },
  OutgoingPaymentsClearing: { AccountType: 'Bank' },
  OpeningBalances: { AccountType: 'Equity' },
  Revenue: { AccountType: 'Income' },
  Refunds: { AccountType: 'Income' },
  FeeIncome: { AccountType: 'Income' },
  ProcessingFees: { AccountType: 'Expense' },
  BankCharges: { AccountType: 'Expense' },
  BillExpenses: { AccountType: 'Expense' },
};

describe.skipIf(missing.length > 0)('QuickBooks Online sandbox (opt-in)', () => {
  if (missing.length > 0) console.info(reason);

  it('pushes an invoice, a payment and its void that QBO accepts, answers in the XSD shape, and finds by key', async () => {
    const { cipher, storage, keep } = sandboxRefreshToken(env.QBO_REFRESH_TOKEN ?? '');
    const tokenStore = new OAuthTokenStore({
      tokenUrl: 'https://oauth.platform.intuit.com/oauth2/v1/tokens/bearer',
      clientId: env.QBO_CLIENT_ID ?? '',
      clientSecret: env.QBO_CLIENT_SECRET ?? '',
      storage,
      cipher,
    });
    const baseUrl = env.QBO_BASE_URL ?? 'https://sandbox-quickbooks.api.intuit.com';
    const realmId = env.QBO_REALM_ID ?? '';
    const limiter = new RealmLimiter({ perMinute: 500, concurrent: 10 });
    const client = new QboClient({ baseUrl, realmId, tokens: tokenStore, limiter });
    const contract = quickBooksContract();

    // booksync's accounts in the sandbox's chart, mapped by Id (sandbox charts have no account numbers).
    const mapping: Record<string, string> = {};
    for (const role of accountRoles) {
      const type = accountTypes[role];
      const name = role === 'ProcessorClearing' ? 'Undeposited Funds' : `booksync ${role}`;
      const [found] = await client.select('Account', { Name: name });
      const account =
        found ??
        (await client.write(
          'Account',
          { Name: name, ...type },
          { requestid: requestIdFor(`sandbox-account:${role}`, 'create') },
        ));
      mapping[role] = account.Id;
    }

    const target = new QuickBooksTarget({
      baseUrl,
      realmId,
      tokenStore,
      accounts: mapping as AccountMapping,
      matching: 'create',
      limiter,
    });
    await pushContractDocumentsTwice(
      target,
      (doc) => ({ key: doc.key, contentHash: doc.contentHash }),
      async (pushed, docs) => {
        const [entity, id] = (pushed.get(docs.invoice.key)?.remoteIds[0] ?? '').split(':');
        const invoice = await client.read(entity ?? 'Invoice', id ?? '');
        expect(contract.check({ Invoice: invoice }, 'IntuitResponse')).toEqual([]);
        expect(invoice.Balance).toBe(120);
      },
    );
    // Never printed: the rotated token goes to the file QBO_REFRESH_TOKEN_OUT names (mode 0600), if any.
    await keep(
      env.QBO_REFRESH_TOKEN_OUT,
      'QBO sandbox: the refresh token rotated; set QBO_REFRESH_TOKEN_OUT to keep the new one',
    );
  }, 180_000);
});

reportSkipped('QuickBooks Online sandbox (opt-in)', settings);
