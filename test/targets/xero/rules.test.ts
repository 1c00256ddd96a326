import { PAYMENT_APPLIED, RECONCILED_PAYMENT, XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Invoice, LineAmountTypes } from 'xero-node';
import { defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import { TargetRefusedError, TargetUnavailableError } from '../../../src/targets/errors.js';
import { RealmLimiter } from '../../../src/targets/oauth/limiter.js';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import type {
  PushContext,
  PushResult,
  RemoteRecord,
  TargetDocument,
} from '../../../src/targets/target-port.js';
import type { MatchingPolicy } from '../../../src/targets/xero/contacts.js';
import { XeroTarget, XeroTokenStore } from '../../../src/targets/xero/index.js';
import { xeroBooksyncChart } from '../../support/booksync-charts.js';
import { SealedTokenInMemory } from '../../support/sealed-token-in-memory.js';

// Xero's business rules as the double enforces them (packages/vendor-doubles/src/xero/README.md, "Xero's rules"): each test
// here fails when its rule is turned off in the double (XERO_DOUBLE_RULES_OFF=<rule>, the mutation check), and
// where booksync relies on the rule it is exercised through the adapter. Two doubles: one with Xero's limits
// (the minute compressed to a second), one with small limits and windows for the limit rules.

const cipher = new TokenCipher('test-secret-for-xero-rules');
const roomy = new XeroDouble({
  latencyMs: 2,
  limits: { concurrent: 5, perMinute: 60, perDay: 5_000, windowMs: 1_000 },
});
const tight = new XeroDouble({
  latencyMs: 120,
  limits: { concurrent: 5, perMinute: 8, perDay: 40, windowMs: 1_500, dayWindowMs: 5_000 },
});

interface Org {
  tenantId: string;
  tokens: XeroTokenStore;
  target(options?: { matching?: MatchingPolicy; limiter?: RealmLimiter }): XeroTarget;
}

function organisation(double: XeroDouble): Org {
  // booksync's accounts already in place: these tests are about Xero's rules, not set-up.
  const tenantId = double.createTenant(undefined, { chart: xeroBooksyncChart });
  const storage = new SealedTokenInMemory(cipher.seal(double.connect(tenantId)));
  const tokens = new XeroTokenStore({
    tokenUrl: `${double.url}/connect/token`,
    clientId: double.clientId,
    clientSecret: double.clientSecret,
    storage,
    cipher,
  });
  const roomyLimiter = new RealmLimiter({ perMinute: 60, concurrent: 5, windowMs: 1_000, marginMs: 50 });
  return {
    tenantId,
    tokens,
    target: (options = {}) =>
      new XeroTarget({
        baseUrl: double.url,
        tenantId,
        tokenStore: tokens,
        accounts: defaultAccountCodes,
        matching: options.matching ?? 'create',
        limiter: options.limiter ?? roomyLimiter,
      }),
  };
}

/** A raw API request as Xero would get it, with the answer's status, headers and body. */
async function raw(double: XeroDouble, org: Org, path: string) {
  const response = await fetch(`${double.url}/api.xro/2.0${path}`, {
    headers: {
      authorization: `Bearer ${await org.tokens.accessToken()}`,
      'xero-tenant-id': org.tenantId,
      accept: 'application/json',
    },
  });
  await response.text();
  return { status: response.status, header: (name: string) => response.headers.get(name) };
}

let keys = 0;
const key = () => `rules-${process.pid}-${++keys}`;

/** Xero's refusal of a call made straight through the SDK (the double's own rule, no adapter logic). */
async function refusal(run: () => Promise<unknown>): Promise<string> {
  const error = await run().then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TargetRefusedError);
  return (error as TargetRefusedError).targetMessage;
}

function doc(
  kind: TargetDocument['kind'],
  id: string,
  lines: [TargetDocument['lines'][number]['role'], number][],
  extra: Partial<TargetDocument> = {},
): TargetDocument {
  return {
    key: `${kind}:${id}`,
    kind,
    date: '2026-11-03',
    description: `${kind} ${id}`,
    amountCents: lines.reduce((s, [, c]) => s + Math.max(c, 0), 0),
    lines: lines.map(([role, amountCents]) => ({ role, amountCents })),
    contentHash: `${id}`
      .padEnd(64, '0')
      .slice(0, 64)
      .replace(/[^0-9a-f]/g, 'a'),
    invoice: { paymentLinkId: `pl_${id}`, number: `INV-${id}` },
    customer: { serviceId: `cus_${id}`, name: `Amy Lane ${id}`, email: null },
    ...extra,
  };
}

function link(run: string) {
  return {
    invoice: doc('invoice', `pl_${run}`, [
      ['AccountsReceivable', 200_00],
      ['Revenue', -200_00],
    ]),
    payment: doc(
      'payment',
      `pay_${run}`,
      [
        ['ProcessorClearing', 120_00],
        ['AccountsReceivable', -120_00],
      ],
      { invoice: { paymentLinkId: `pl_${run}`, number: `INV-pl_${run}` } },
    ),
  };
}

function reversalOf(d: TargetDocument): TargetDocument {
  return {
    ...d,
    key: `reversal:${d.key}`,
    kind: 'reversal',
    lines: d.lines.map((l) => ({ ...l, amountCents: -l.amountCents })),
    contentHash: 'e'.repeat(64),
    reverses: d.key,
    reason: 'payment.failed',
  };
}

/** Pushes one by one with the push index a workflow keeps. */
async function pushAll(target: XeroTarget, docs: TargetDocument[]) {
  const index = new Map<string, RemoteRecord>();
  const context: PushContext = {
    mayExist: () => true,
    refusals: () => 0,
    pushed: (k) => index.get(k) ?? null,
  };
  for (const d of docs) index.set(d.key, await target.push(d, context));
  return { index, context };
}

const idOf = (record: PushResult | RemoteRecord | undefined) =>
  String(record?.remoteIds[0]).split(':').at(-1) ?? '';

beforeAll(async () => {
  await Promise.all([roomy.start(), tight.start()]);
}, 60_000);

afterAll(async () => {
  await Promise.all([roomy.stop(), tight.stop()]);
});

afterEach(() => {
  for (const double of [roomy, tight]) {
    double.calm();
    expect(double.violations.splice(0)).toEqual([]);
  }
});

describe('Xero’s rules in the double', { timeout: 60_000 }, () => {
  it('reconciled-payment-delete: a reconciled payment cannot be deleted; the adapter reverses it by documents of its own, the invoice stays paid', async () => {
    const org = organisation(roomy);
    const target = org.target();
    const l = link('r1');
    const { index, context } = await pushAll(target, [l.invoice, l.payment]);
    const paymentId = idOf(index.get(l.payment.key));
    roomy.reconcile(org.tenantId, paymentId);
    const message = await refusal(() =>
      target.client.call('deletePayment', (api, t) =>
        api.deletePayment(t, paymentId, { status: 'DELETED' } as never, key()),
      ),
    );
    expect(message).toContain(RECONCILED_PAYMENT);
    // The adapter reads IsReconciled and sends no delete: an invoice owed again and a spend money.
    const reversed = await target.push(reversalOf(l.payment), context);
    expect(reversed.remoteIds).toEqual([
      expect.stringMatching(/^Invoice:/),
      expect.stringMatching(/^BankTransaction:/),
    ]);
    expect(roomy.get(org.tenantId, 'Payments', paymentId)).toMatchObject({
      Status: 'AUTHORISED',
      IsReconciled: true,
    });
    expect(roomy.get(org.tenantId, 'Invoices', idOf(index.get(l.invoice.key)))).toMatchObject({
      AmountDue: 80,
    });
  });

  it('paid-invoice-void: an invoice with a payment applied cannot be voided (Xero’s message); the adapter credits it instead', async () => {
    const org = organisation(roomy);
    const target = org.target();
    const l = link('r2');
    const { index, context } = await pushAll(target, [l.invoice, l.payment]);
    const invoiceId = idOf(index.get(l.invoice.key));
    const message = await refusal(() =>
      target.client.call('updateInvoice', (api, t) =>
        api.updateInvoice(t, invoiceId, { invoices: [{ status: 'VOIDED' }] } as never, undefined, key()),
      ),
    );
    expect(message).toContain(PAYMENT_APPLIED);
    // The adapter reads AmountPaid and sends no void: a credit note for the customer.
    const reversed = await target.push(reversalOf(l.invoice), context);
    expect(reversed.remoteIds).toEqual([expect.stringMatching(/^CreditNote:/)]);
    expect(roomy.get(org.tenantId, 'Invoices', invoiceId)?.Status).toBe('AUTHORISED');
  });

  it('paid-invoice-edit: Xero refuses any edit of a paid invoice, its Reference too; the adapter adopts one as it is', async () => {
    const org = organisation(roomy);
    const target = org.target({ matching: 'match-existing' });
    const l = link('r3');
    const { index } = await pushAll(target, [l.invoice, l.payment]);
    const invoiceId = idOf(index.get(l.invoice.key));
    const message = await refusal(() =>
      target.client.call('updateInvoice', (api, t) =>
        api.updateInvoice(t, invoiceId, { invoices: [{ reference: 'edited' }] }, undefined, key()),
      ),
    );
    expect(message).toContain(PAYMENT_APPLIED);

    // An invoice keyed in Xero, part paid, adopted under match-existing: no edit is sent, nothing refused.
    const contact = roomy.seed(org.tenantId, 'Contacts', { Name: 'Keyed in Xero', ContactStatus: 'ACTIVE' });
    const keyed = roomy.seed(org.tenantId, 'Invoices', {
      Type: 'ACCREC',
      InvoiceNumber: 'INV-keyed-r3',
      Reference: 'typed by the bookkeeper',
      Contact: { ContactID: contact.ContactID, Name: contact.Name },
      Status: 'AUTHORISED',
      LineItems: [],
      Total: 200,
      AmountDue: 150,
      AmountPaid: 50,
    });
    const bank = roomy
      .all(org.tenantId, 'Accounts')
      .find((a) => a.Code === defaultAccountCodes.OperatingBank);
    roomy.seed(org.tenantId, 'Payments', {
      Invoice: { InvoiceID: keyed.InvoiceID, InvoiceNumber: 'INV-keyed-r3', Type: 'ACCREC' },
      Account: { AccountID: bank?.AccountID, Code: bank?.Code },
      Amount: 50,
      Status: 'AUTHORISED',
      PaymentType: 'ACCRECPAYMENT',
      IsReconciled: false,
    });
    const adopting = { ...link('r3b').invoice, invoice: { paymentLinkId: 'pl_r3b', number: 'INV-keyed-r3' } };
    const sent = roomy.requests.length;
    const adopted = await target.push(adopting, {
      mayExist: () => true,
      refusals: () => 0,
      pushed: () => null,
    });
    expect(adopted).toMatchObject({ created: false, remoteIds: [`Invoice:${keyed.InvoiceID}`] });
    expect(roomy.requests.slice(sent).filter((r) => r.method === 'POST')).toEqual([]);
    expect(roomy.get(org.tenantId, 'Invoices', String(keyed.InvoiceID))?.Reference).toBe(
      'typed by the bookkeeper',
    );
  });

  it('payment-invoice-status: a payment on a voided invoice is refused; the adapter books it as the customer’s credit', async () => {
    const org = organisation(roomy);
    const target = org.target();
    const l = link('r4');
    const { index, context } = await pushAll(target, [l.invoice, reversalOf(l.invoice)]);
    const invoiceId = idOf(index.get(l.invoice.key));
    const message = await refusal(() =>
      target.client.call('createPayments', (api, t) =>
        api.createPayments(
          t,
          {
            payments: [
              {
                invoice: { invoiceID: invoiceId },
                account: { code: defaultAccountCodes.ProcessorClearing },
                amount: 10,
                date: '2026-11-03',
              },
            ],
          },
          true,
          key(),
        ),
      ),
    );
    expect(message).toMatch(/VOIDED/);
    const credit = await target.push(l.payment, context);
    expect(credit.remoteIds[0]).toMatch(/^BankTransaction:/);
    expect(roomy.get(org.tenantId, 'BankTransactions', idOf(credit))).toMatchObject({
      Type: 'RECEIVE-OVERPAYMENT',
      Total: 120,
    });
  });

  it('payment-over-amount-due: a payment above AmountDue is refused with Xero’s message; the adapter books the excess payment as credit', async () => {
    const org = organisation(roomy);
    const target = org.target();
    const l = link('r5');
    const { index, context } = await pushAll(target, [l.invoice]);
    const message = await refusal(() =>
      target.client.call('createPayments', (api, t) =>
        api.createPayments(
          t,
          {
            payments: [
              {
                invoice: { invoiceID: idOf(index.get(l.invoice.key)) },
                account: { code: defaultAccountCodes.ProcessorClearing },
                amount: 200.01,
                date: '2026-11-03',
              },
            ],
          },
          true,
          key(),
        ),
      ),
    );
    expect(message).toContain('Payment amount exceeds the amount outstanding on this document');
    const over = doc(
      'payment',
      'pay_r5_over',
      [
        ['ProcessorClearing', 250_00],
        ['AccountsReceivable', -250_00],
      ],
      { invoice: { paymentLinkId: 'pl_r5', number: 'INV-pl_r5' } },
    );
    expect((await target.push(over, context)).remoteIds[0]).toMatch(/^BankTransaction:/);
  });

  it('payment-account: a payment must go to a bank account or one with payments enabled', async () => {
    const org = organisation(roomy);
    const target = org.target();
    const l = link('r6');
    const { index } = await pushAll(target, [l.invoice]);
    const message = await refusal(() =>
      target.client.call('createPayments', (api, t) =>
        api.createPayments(
          t,
          {
            payments: [
              {
                invoice: { invoiceID: idOf(index.get(l.invoice.key)) },
                account: { code: defaultAccountCodes.Revenue },
                amount: 10,
                date: '2026-11-03',
              },
            ],
          },
          true,
          key(),
        ),
      ),
    );
    expect(message).toMatch(/bank account or an account with payments enabled/);
  });

  it('known-tax-type: TaxRates are served; a line whose TaxType the organisation lacks, or its account may not take, is refused', async () => {
    const org = organisation(roomy);
    const target = org.target();
    const rates = await target.client.call('getTaxRates', (api, t) => api.getTaxRates(t));
    expect(rates.taxRates?.map((r) => [r.taxType, r.effectiveRate])).toContainEqual(['NONE', 0]);
    const { contacts } = await target.client.call('createContacts', (api, t) =>
      api.createContacts(t, { contacts: [{ name: `Tax Contact ${key()}` }] }, true, key()),
    );
    const invoice = (taxType: string, accountCode: string) =>
      target.client.call('createInvoices', (api, t) =>
        api.createInvoices(
          t,
          {
            invoices: [
              {
                type: Invoice.TypeEnum.ACCREC,
                contact: { contactID: contacts?.[0]?.contactID ?? '' },
                date: '2026-11-03',
                lineAmountTypes: LineAmountTypes.Exclusive,
                status: Invoice.StatusEnum.AUTHORISED,
                lineItems: [{ description: 'tax', quantity: 1, unitAmount: 10, accountCode, taxType }],
              },
            ],
          },
          true,
          undefined,
          key(),
        ),
      );
    expect(await refusal(() => invoice('BOGUS', defaultAccountCodes.Revenue))).toBe(
      'ValidationException: The TaxType code BOGUS does not exist or cannot be used for this type of transaction.',
    );
    expect(await refusal(() => invoice('INPUT2', defaultAccountCodes.Revenue))).toBe(
      `ValidationException: The TaxType code 'INPUT2' cannot be used with account code '${defaultAccountCodes.Revenue}'.`,
    );
    const booked = await invoice('NONE', defaultAccountCodes.Revenue);
    expect(booked.invoices?.[0]?.lineItems?.[0]?.taxType).toBe('NONE');
  });

  it('per-element-errors and journal-system-account: a batch with summarizeErrors=false answers per element; the refused document is FAILED with its own message, the others are booked', async () => {
    const org = organisation(roomy);
    const target = org.target();
    const journal = (id: string) =>
      doc('check-cleared', id, [
        ['OpeningBalances', 10_00],
        ['Revenue', -10_00],
      ]);
    // Three lines, one on the receivable: only a manual journal can carry it, and Xero refuses the DEBTORS
    // system account in a manual journal.
    const refused = doc('payment', 'pay_r7', [
      ['ProcessorClearing', 97_00],
      ['ProcessingFees', 3_00],
      ['AccountsReceivable', -100_00],
    ]);
    const docs = [journal('cc_r7a'), refused, journal('cc_r7b')];
    const sent = roomy.requests.length;
    const outcomes = await target.pushMany(docs, {
      mayExist: () => true,
      refusals: () => 0,
      pushed: () => null,
    });
    expect(outcomes[1]).toBeInstanceOf(TargetRefusedError);
    expect((outcomes[1] as TargetRefusedError).targetMessage).toMatch(
      /system account and cannot be used in a manual journal/,
    );
    for (const i of [0, 2]) expect(outcomes[i]).toMatchObject({ created: true });
    // One create request carried the three journals.
    const creates = roomy.requests
      .slice(sent)
      .filter((r) => r.method !== 'GET' && r.url.includes('ManualJournals'));
    expect(creates).toHaveLength(1);
    expect(roomy.all(org.tenantId, 'ManualJournals')).toHaveLength(2);
  });

  it('summarized-all-or-nothing: with summarizeErrors=true one refused element refuses the request and nothing is created', async () => {
    const org = organisation(roomy);
    const target = org.target();
    const line = (code: string, amount: number) => ({ accountCode: code, lineAmount: amount });
    const good = {
      narration: 'good',
      date: '2026-11-03',
      status: 'POSTED',
      journalLines: [line(defaultAccountCodes.OpeningBalances, 5), line(defaultAccountCodes.Revenue, -5)],
    };
    const bad = {
      ...good,
      narration: 'bad',
      journalLines: [line(defaultAccountCodes.AccountsReceivable, 5), line(defaultAccountCodes.Revenue, -5)],
    };
    const message = await refusal(() =>
      target.client.call('createManualJournals', (api, t) =>
        api.createManualJournals(t, { manualJournals: [good, bad] as never }, true, key()),
      ),
    );
    expect(message).toMatch(/system account/);
    expect(roomy.all(org.tenantId, 'ManualJournals')).toEqual([]);
  });

  it('unique-invoice-number and unique-contact-name: a sales invoice number and an active contact name are unique', async () => {
    const org = organisation(roomy);
    const target = org.target();
    const contact = { name: 'Unique Name r8' };
    const created = await target.client.call('createContacts', (api, t) =>
      api.createContacts(t, { contacts: [contact] }, true, key()),
    );
    expect(
      await refusal(() =>
        target.client.call('createContacts', (api, t) =>
          api.createContacts(t, { contacts: [contact] }, true, key()),
        ),
      ),
    ).toMatch(/already assigned to another contact/);
    const invoice = {
      type: 'ACCREC',
      contact: { contactID: created.contacts?.[0]?.contactID },
      invoiceNumber: 'INV-r8',
      date: '2026-11-03',
      dueDate: '2026-11-03',
      status: 'AUTHORISED',
      lineAmountTypes: 'NoTax',
      lineItems: [{ description: 'x', quantity: 1, unitAmount: 5, accountCode: defaultAccountCodes.Revenue }],
    };
    await target.client.call('createInvoices', (api, t) =>
      api.createInvoices(t, { invoices: [invoice as never] }, true, undefined, key()),
    );
    expect(
      await refusal(() =>
        target.client.call('createInvoices', (api, t) =>
          api.createInvoices(t, { invoices: [invoice as never] }, true, undefined, key()),
        ),
      ),
    ).toMatch(/Invoice # must be unique/);
  });

  it('bank-transaction-bank-account and bank-transfer-accounts: money moves from and between bank accounts only', async () => {
    const org = organisation(roomy);
    const target = org.target();
    const contacts = await target.client.call('createContacts', (api, t) =>
      api.createContacts(t, { contacts: [{ name: 'Someone r9' }] }, true, key()),
    );
    const transaction = {
      type: 'SPEND',
      contact: { contactID: contacts.contacts?.[0]?.contactID },
      bankAccount: { code: defaultAccountCodes.Revenue },
      lineAmountTypes: 'NoTax',
      lineItems: [
        { description: 'x', quantity: 1, unitAmount: 5, accountCode: defaultAccountCodes.ProcessingFees },
      ],
    };
    expect(
      await refusal(() =>
        target.client.call('createBankTransactions', (api, t) =>
          api.createBankTransactions(t, { bankTransactions: [transaction as never] }, true, undefined, key()),
        ),
      ),
    ).toMatch(/is not a bank account/);
    const transfer = {
      fromBankAccount: { code: defaultAccountCodes.Revenue },
      toBankAccount: { code: defaultAccountCodes.OperatingBank },
      amount: 5,
    };
    expect(
      await refusal(() =>
        target.client.call('createBankTransfer', (api, t) =>
          api.createBankTransfer(t, { bankTransfers: [transfer as never] }, key()),
        ),
      ),
    ).toMatch(/between bank accounts/);
  });
  it('lock-dates: nothing dated on or before the period or end of year lock date is created, edited, voided or deleted', async () => {
    const org = organisation(roomy);
    const target = org.target();
    const l = link('r-lock');
    const january = { ...l.payment, date: '2026-01-15' };
    const { index } = await pushAll(target, [{ ...l.invoice, date: '2026-01-10' }, january]);
    const paymentId = idOf(index.get(january.key));
    const invoiceId = idOf(index.get(l.invoice.key));
    roomy.lockDates(org.tenantId, { period: '2026-01-31' });
    // Read from the Organisation, as the API gives it.
    const organisations = await target.client.call('getOrganisations', (api, t) => api.getOrganisations(t));
    expect(organisations.organisations?.[0]?.periodLockDate).toBeDefined();
    expect(await org.target().lockedThrough()).toBe('2026-01-31');
    const period = 'The document date cannot be before the period lock date, currently set at 31-Jan-2026';
    // A create dated on the lock date.
    expect(
      await refusal(() =>
        target.client.call('createPayments', (api, t) =>
          api.createPayments(
            t,
            {
              payments: [
                {
                  invoice: { invoiceID: invoiceId },
                  account: { code: defaultAccountCodes.ProcessorClearing },
                  date: '2026-01-31',
                  amount: 1,
                },
              ],
            },
            true,
            key(),
          ),
        ),
      ),
    ).toContain(period);
    // A delete of a payment dated before it, and a void of an invoice dated before it.
    expect(
      await refusal(() =>
        target.client.call('deletePayment', (api, t) =>
          api.deletePayment(t, paymentId, { status: 'DELETED' } as never, key()),
        ),
      ),
    ).toContain(period);
    // The end of year lock binds everyone, advisers too: both messages when both apply.
    roomy.lockDates(org.tenantId, { endOfYear: '2026-01-31' });
    const both = await refusal(() =>
      target.client.call('updateInvoice', (api, t) =>
        api.updateInvoice(t, invoiceId, { invoices: [{ status: 'VOIDED' }] } as never, undefined, key()),
      ),
    );
    expect(both).toContain(period);
    expect(both).toContain(
      'The document date cannot be before the end of year lock date, currently set at 31-Jan-2026',
    );
    expect(roomy.get(org.tenantId, 'Payments', paymentId)?.Status).not.toBe('DELETED');
    // The day after is open.
    roomy.lockDates(org.tenantId, { period: null, endOfYear: null });
    roomy.lockDates(org.tenantId, { period: '2026-01-30' });
    const dayAfter = await target.client.call('createPayments', (api, t) =>
      api.createPayments(
        t,
        {
          payments: [
            {
              invoice: { invoiceID: invoiceId },
              account: { code: defaultAccountCodes.ProcessorClearing },
              date: '2026-01-31',
              amount: 1,
            },
          ],
        },
        true,
        key(),
      ),
    );
    expect(dayAfter.payments?.[0]?.paymentID).toBeDefined();
  });
});

describe('Xero’s limits in the double', { timeout: 60_000 }, () => {
  it('minute-limit: every answer says what is left; the 9th call of the minute is a 429 naming the minute, with Retry-After', async () => {
    const org = organisation(tight);
    const seen: { status: number; day: string | null; minute: string | null; app: string | null }[] = [];
    let refused: Awaited<ReturnType<typeof raw>> | null = null;
    for (let i = 0; i < 9; i++) {
      const answer = await raw(tight, org, '/Accounts');
      if (answer.status === 429) refused = answer;
      seen.push({
        status: answer.status,
        day: answer.header('x-daylimit-remaining'),
        minute: answer.header('x-minlimit-remaining'),
        app: answer.header('x-appminlimit-remaining'),
      });
    }
    expect(seen.slice(0, 8).map((s) => [s.status, s.minute, s.day])).toEqual(
      Array.from({ length: 8 }, (_, i) => [200, String(7 - i), String(39 - i)]),
    );
    expect(seen.every((s) => s.app !== null)).toBe(true);
    expect(refused?.status).toBe(429);
    expect(refused?.header('x-rate-limit-problem')).toBe('minute');
    expect(Number(refused?.header('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('concurrent-limit: a sixth call while five are in flight is a 429 naming the concurrent limit', async () => {
    const org = organisation(tight);
    await org.tokens.accessToken();
    const answers = await Promise.all(Array.from({ length: 6 }, () => raw(tight, org, '/Accounts')));
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(1);
    expect(refused[0]?.header('x-rate-limit-problem')).toBe('concurrent');
  });

  it('daily-limit: the day is a rolling window: spent, a 429 naming the day with Retry-After until the oldest call leaves it, then calls go again', async () => {
    const org = organisation(tight);
    // The organisation's calls of the day, made 2 s ago by another process of the app.
    tight.spendDay(org.tenantId, 40, 2_000);
    const refused = await raw(tight, org, '/Accounts');
    expect(refused.status).toBe(429);
    expect(refused.header('x-rate-limit-problem')).toBe('day');
    expect(refused.header('x-daylimit-remaining')).toBe('0');
    const retryAfter = Number(refused.header('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(3);
    expect(retryAfter).toBeLessThanOrEqual(4);
    await new Promise((r) => setTimeout(r, 3_200));
    const again = await raw(tight, org, '/Accounts');
    expect(again.status).toBe(200);
    // The refused call still counts in the window; the 40 spent left it.
    expect(again.header('x-daylimit-remaining')).toBe('38');
  });

  it('the adapter’s limiter follows Xero’s count of the day: calls made elsewhere stop the push before a 429', async () => {
    const org = organisation(tight);
    const limiter = new RealmLimiter({
      perMinute: 8,
      concurrent: 5,
      perDay: 40,
      dayWindowMs: 5_000,
      windowMs: 1_500,
      marginMs: 100,
    });
    tight.spendDay(org.tenantId, 37);
    const target = org.target({ limiter });
    const l = link('d1');
    const error = await target
      .push(l.invoice, { mayExist: () => true, refusals: () => 0, pushed: () => null })
      .catch((e: Error) => e);
    expect(error).toBeInstanceOf(TargetUnavailableError);
    expect((error as Error).message).toMatch(/daily limit of 40 requests is spent/);
    expect(tight.stats(org.tenantId).breaches).toEqual([]);
    expect(limiter.dailyUsage()?.used).toBeGreaterThanOrEqual(40);
  });

  it('the adapter’s limiter follows Xero’s minute: none left pauses it, whatever it counts itself', async () => {
    const org = organisation(tight);
    // A limiter that believes in 60 a minute against an organisation whose minute holds 8.
    const limiter = new RealmLimiter({ perMinute: 60, concurrent: 1, windowMs: 1_500, marginMs: 100 });
    const target = org.target({ limiter });
    for (const run of ['m1', 'm2', 'm3'])
      await target.push(link(run).invoice, { mayExist: () => true, refusals: () => 0, pushed: () => null });
    const stats = tight.stats(org.tenantId);
    expect(stats.calls).toBeGreaterThan(8);
    expect(stats.breaches).toEqual([]);
  });
});
