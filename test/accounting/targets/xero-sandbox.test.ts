import { describe, expect, it } from 'vitest';
import {
  type AccountMapping,
  type AccountRole,
  accountRoles,
} from '../../../src/accounting/targets/account-mapping.js';
import { RealmLimiter } from '../../../src/accounting/targets/oauth/limiter.js';
import { XERO_LIMITS, XeroTarget, XeroTokenStore } from '../../../src/accounting/targets/xero/index.js';
import { idempotencyKey } from '../../../src/accounting/targets/xero/keys.js';
import {
  pushContractDocumentsTwice,
  reportSkipped,
  sandboxRefreshToken,
  sandboxSettings,
} from './target-sandbox.js';

// Opt-in: the adapter against a real Xero demo company (developer.xero.com), when
//   XERO_CLIENT_ID, XERO_CLIENT_SECRET, XERO_REFRESH_TOKEN, XERO_TENANT_ID
// are set. It checks what the double cannot prove: that Xero itself accepts booksync's documents, finds keys
// with the `where` filters the adapter uses (Reference.StartsWith, InvoiceNumber==, ContactNumber==), replays
// Idempotency-Keys, and deletes a payment so its invoice is owed again. It writes to the demo company:
// booksync's accounts (codes BS1010...; the receivable and payable are the company's DEBTORS / CREDITORS
// system accounts), a contact, an invoice, a payment and its deletion. Xero rotates the refresh token: the
// new one is written to the file XERO_REFRESH_TOKEN_OUT names, never logged.

const env = process.env;
const settings = sandboxSettings(
  ['XERO_CLIENT_ID', 'XERO_CLIENT_SECRET', 'XERO_REFRESH_TOKEN', 'XERO_TENANT_ID'],
  'Xero demo company test',
);
const { missing, reason } = settings;

const accountTypes: Record<AccountRole, string> = {
  OperatingBank: 'BANK',
  ProcessorClearing: 'BANK',
  PayoutsInTransit: 'BANK',
  ChecksToDeposit: 'BANK',
  AccountsReceivable: 'CURRENT',
  AccountsPayable: 'CURRLIAB',
  OutgoingPaymentsClearing: 'BANK',
  OpeningBalances: 'EQUITY',
  Revenue: 'REVENUE',
  Refunds: 'REVENUE',
  FeeIncome: 'OTHERINCOME',
  ProcessingFees: 'EXPENSE',
  BankCharges: 'EXPENSE',
  BillExpenses: 'EXPENSE',
};

describe.skipIf(missing.length > 0)('Xero demo company (opt-in)', () => {
  if (missing.length > 0) console.info(reason);

  it('pushes an invoice, a payment and its deletion that Xero accepts, and finds each by key', async () => {
    const { cipher, storage, keep } = sandboxRefreshToken(env.XERO_REFRESH_TOKEN ?? '');
    const tokenStore = new XeroTokenStore({
      tokenUrl: env.XERO_TOKEN_URL ?? 'https://identity.xero.com/connect/token',
      clientId: env.XERO_CLIENT_ID ?? '',
      clientSecret: env.XERO_CLIENT_SECRET ?? '',
      storage,
      cipher,
    });
    const tenantId = env.XERO_TENANT_ID ?? '';
    const baseUrl = env.XERO_BASE_URL ?? 'https://api.xero.com';
    const limiter = new RealmLimiter({ ...XERO_LIMITS });
    const probe = new XeroTarget({
      baseUrl,
      tenantId,
      tokenStore,
      accounts: {} as AccountMapping,
      matching: 'create',
      limiter,
    });

    // booksync's accounts in the demo company's chart: BS-codes created once; receivable and payable are
    // Xero's system accounts.
    const chart = (await probe.client.call('getAccounts', (api, t) => api.getAccounts(t))).accounts ?? [];
    const mapping: Record<string, string> = {};
    for (const role of accountRoles) {
      if (role === 'AccountsReceivable' || role === 'AccountsPayable') {
        const system = role === 'AccountsReceivable' ? 'DEBTORS' : 'CREDITORS';
        mapping[role] = String(chart.find((a) => String(a.systemAccount) === system)?.code);
        continue;
      }
      const code = `BS${String(accountRoles.indexOf(role)).padStart(2, '0')}`;
      mapping[role] = code;
      if (chart.some((a) => a.code === code)) continue;
      const account = {
        code,
        name: `booksync ${role}`,
        type: accountTypes[role],
        ...(accountTypes[role] === 'BANK' ? { bankAccountNumber: `0900${code}` } : {}),
      };
      await probe.client.call('createAccount', (api, t) =>
        api.createAccount(t, account as never, idempotencyKey(`account:${role}`, 'create', account)),
      );
    }

    const target = new XeroTarget({
      baseUrl,
      tenantId,
      tokenStore,
      accounts: mapping as AccountMapping,
      matching: 'create',
      limiter,
    });
    await pushContractDocumentsTwice(
      target,
      (doc) => ({ key: doc.key }),
      async (pushed, docs) => {
        const invoiceId = (pushed.get(docs.invoice.key)?.remoteIds[0] ?? '').split(':')[1] ?? '';
        const [invoice] =
          (await target.client.call('getInvoice', (api, t) => api.getInvoice(t, invoiceId))).invoices ?? [];
        // The payment was deleted: the whole invoice is owed again.
        expect([String(invoice?.status), invoice?.amountDue]).toEqual(['AUTHORISED', 120]);
      },
    );
    await keep(
      env.XERO_REFRESH_TOKEN_OUT,
      'Xero: the refresh token rotated; set XERO_REFRESH_TOKEN_OUT to keep the new one',
    );
  }, 300_000);
});

reportSkipped('Xero demo company (opt-in)', settings);
