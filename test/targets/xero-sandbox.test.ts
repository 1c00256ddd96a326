import { describe, expect, it } from 'vitest';
import { type AccountMapping, type AccountRole, accountRoles } from '../../src/targets/account-mapping.js';
import { TargetRefusedError } from '../../src/targets/errors.js';
import { RealmLimiter } from '../../src/targets/oauth/limiter.js';
import type { PushContext, RemoteRecord } from '../../src/targets/target-port.js';
import { XERO_LIMITS, XeroTarget, XeroTokenStore } from '../../src/targets/xero/index.js';
import { idempotencyKey } from '../../src/targets/xero/keys.js';
import { documentsForContract } from './target-contract.js';
import {
  pushContractDocumentsTwice,
  reportSkipped,
  sandboxRefreshToken,
  sandboxSettings,
} from './target-sandbox.js';

// Opt-in: the adapter against a real Xero demo company (developer.xero.com), when
//   XERO_CLIENT_ID, XERO_CLIENT_SECRET, XERO_REFRESH_TOKEN, XERO_TENANT_ID
// are set. It checks what the double cannot prove: that Xero itself accepts booksync's documents, finds keys
// with the `where` filters the adapter uses (Reference.Contains, InvoiceNumber==, ContactNumber==), replays
// Idempotency-Keys, and deletes a payment so its invoice is owed again. It writes to the demo company:
// booksync's accounts (codes BS1010...; the receivable and payable are the company's DEBTORS / CREDITORS
// system accounts), a contact, an invoice, a payment and its deletion. Xero rotates the refresh token: the
// new one is written to the file XERO_REFRESH_TOKEN_OUT names, never logged.
//
// The second test holds Xero itself to the rules the double enforces (packages/vendor-doubles/src/xero/README.md):
// the limit headers on every answer, no edit or void of a paid invoice, no payment above AmountDue, a batch
// with summarizeErrors=false answered per element, and no deletion of a reconciled payment. It writes a
// contact, an invoice of 120.00, payments of 50.00, 10.00 (both deleted at the end) and 5.00 created
// reconciled (IsReconciled, as Xero allows on create), which stays: unreconcile and delete it in Xero.

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
  UnappliedCash: 'CURRLIAB',
  OpeningBalances: 'EQUITY',
  Revenue: 'REVENUE',
  Refunds: 'REVENUE',
  FeeIncome: 'OTHERINCOME',
  DiscountsAndWriteOffs: 'REVENUE',
  ProcessingFees: 'EXPENSE',
  BankCharges: 'EXPENSE',
  BillExpenses: 'EXPENSE',
  SurchargeIncome: 'REVENUE',
  DisputeFees: 'EXPENSE',
  ReturnFees: 'EXPENSE',
  BadDebt: 'EXPENSE',
  PayoutBank: 'BANK',
};

/** The demo company with booksync's accounts, once per run (the refresh token rotates: one token store). */
let connection: Promise<{
  tokenStore: XeroTokenStore;
  target: XeroTarget;
  limiter: RealmLimiter;
  baseUrl: string;
  tenantId: string;
  accounts: AccountMapping;
  keep: (file: string | undefined, notKept: string) => Promise<void>;
}> | null = null;

function connected() {
  connection ??= connect();
  return connection;
}

async function connect() {
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
  // Xero's limits and rolling day; the limiter follows Xero's own count from each answer.
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
      api.createAccount(t, account as never, idempotencyKey(t, `account:${role}`, 'create', account)),
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
  return { tokenStore, target, limiter, baseUrl, tenantId, accounts: mapping as AccountMapping, keep };
}

describe.skipIf(missing.length > 0)('Xero demo company (opt-in)', () => {
  if (missing.length > 0) console.info(reason);

  it('pushes an invoice, a payment and its deletion that Xero accepts, and finds each by key', async () => {
    const { target, keep } = await connected();
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

  it('holds Xero to the double’s rules: limit headers, no edit or void of a paid invoice, payments within AmountDue, per-element answers, no deletion of a reconciled payment', async () => {
    const { target, tokenStore, baseUrl, tenantId, accounts, keep } = await connected();
    const docs = documentsForContract();
    const pushed = new Map<string, RemoteRecord>();
    const context: PushContext = {
      mayExist: () => true,
      refusals: () => 0,
      pushed: (key) => pushed.get(key) ?? null,
    };
    for (const doc of [docs.invoice, docs.payment]) pushed.set(doc.key, await target.push(doc, context));
    const idOf = (key: string) => (pushed.get(key)?.remoteIds[0] ?? '').split(':')[1] ?? '';
    const invoiceId = idOf(docs.invoice.key);
    const key = (what: string) =>
      idempotencyKey(tenantId, docs.invoice.key, `sandbox rules ${what}`, Date.now());
    const refusedWith = async (run: () => Promise<unknown>) => {
      const error = await run().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(TargetRefusedError);
      return (error as TargetRefusedError).targetMessage;
    };

    // Every answer for the organisation says what is left of its limits.
    const answer = await fetch(`${baseUrl}/api.xro/2.0/Invoices/${invoiceId}`, {
      headers: {
        authorization: `Bearer ${await tokenStore.accessToken()}`,
        'xero-tenant-id': tenantId,
        accept: 'application/json',
      },
    });
    await answer.text();
    for (const header of ['x-daylimit-remaining', 'x-minlimit-remaining', 'x-appminlimit-remaining'])
      expect(Number(answer.headers.get(header))).toBeGreaterThanOrEqual(0);

    // paid-invoice-edit and paid-invoice-void.
    const edit = await refusedWith(() =>
      target.client.call('updateInvoice', (api, t) =>
        api.updateInvoice(t, invoiceId, { invoices: [{ reference: 'edited' }] }, undefined, key('edit')),
      ),
    );
    expect(edit).toMatch(/payment or credit note allocated/);
    // The void sent straight (the adapter reads AmountPaid and sends none: it credits a paid invoice).
    const voided = await refusedWith(() =>
      target.client.call('updateInvoice', (api, t) =>
        api.updateInvoice(
          t,
          invoiceId,
          { invoices: [{ status: 'VOIDED' }] } as never,
          undefined,
          key('void'),
        ),
      ),
    );
    expect(voided).toMatch(/payment or credit note allocated/);

    // payment-over-amount-due, and a batch with summarizeErrors=false answered per element.
    const payment = (amount: number, extra: Record<string, unknown> = {}) => ({
      invoice: { invoiceID: invoiceId },
      account: { code: accounts.ProcessorClearing },
      date: '2026-11-03',
      amount,
      ...extra,
    });
    const over = await refusedWith(() =>
      target.client.call('createPayments', (api, t) =>
        api.createPayments(t, { payments: [payment(70.01)] }, true, key('over')),
      ),
    );
    expect(over).toMatch(/exceeds the amount outstanding/);
    const batch = await target.client.call('createPayments', (api, t) =>
      api.createPayments(t, { payments: [payment(10), payment(1_000)] }, false, key('batch')),
    );
    const [ok, refused] = batch.payments ?? [];
    expect(String(ok?.statusAttributeString)).toBe('OK');
    expect(String(refused?.statusAttributeString)).toBe('ERROR');
    expect(refused?.validationErrors?.length).toBeGreaterThan(0);

    // reconciled-payment-delete: a payment created reconciled cannot be deleted.
    const reconciled = await target.client.call('createPayments', (api, t) =>
      api.createPayments(t, { payments: [payment(5, { isReconciled: true })] }, true, key('reconciled')),
    );
    const reconciledId = reconciled.payments?.[0]?.paymentID ?? '';
    console.info(
      'Xero on deleting a reconciled payment:',
      await refusedWith(() =>
        target.client.call('deletePayment', (api, t) =>
          api.deletePayment(t, reconciledId, { status: 'DELETED' }, key('delete reconciled')),
        ),
      ),
    );

    // The unreconciled payments go again.
    for (const id of [idOf(docs.payment.key), ok?.paymentID ?? ''])
      await target.client.call('deletePayment', (api, t) =>
        api.deletePayment(t, id, { status: 'DELETED' }, key(`delete ${id}`)),
      );
    await keep(
      env.XERO_REFRESH_TOKEN_OUT,
      'Xero: the refresh token rotated; set XERO_REFRESH_TOKEN_OUT to keep the new one',
    );
  }, 300_000);
});

reportSkipped('Xero demo company (opt-in)', settings);
