import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { contractsDir } from '../src/contracts.js';
import { msDate, type XeroContract, xeroContract } from '../src/xero/openapi-contract.js';

// The checker holds the Xero double and the adapter to Xero's OpenAPI description; it must catch what
// drifts (wrong types, missing required properties, unknown enum values, misspelt fields) and accept what
// booksync will send and what Xero answers.

let contract: XeroContract;
beforeAll(async () => {
  contract = await xeroContract();
});

const tenant = { 'xero-tenant-id': 'b7d3f1a0-5d1c-4c1e-9a55-2f0d1c3e4a5b' };
const create = (key: string) => ({ ...tenant, 'Idempotency-Key': key, 'Content-Type': 'application/json' });
const contactId = '3ff6d40c-af9a-40a3-89ce-3c1556a25591';
const invoiceId = '4f7f5b7e-6a2e-4a0c-9b1d-1c2d3e4f5a6b';
const paymentId = '8a2f1c3d-0b4e-4f5a-9c6d-7e8f9a0b1c2d';

const customer = { Name: 'Amy Lane', EmailAddress: 'amy@example.com', IsCustomer: true };
const salesInvoice = {
  Type: 'ACCREC',
  Contact: { ContactID: contactId },
  InvoiceNumber: 'Spring workshop',
  Reference: 'booksync key=invoice:pl_1',
  Date: '2026-11-03',
  DueDate: '2026-11-03',
  LineAmountTypes: 'NoTax',
  Status: 'AUTHORISED',
  LineItems: [{ Description: 'Spring workshop', Quantity: 1, UnitAmount: 120.5, AccountCode: '200' }],
};
const bill = {
  ...salesInvoice,
  Type: 'ACCPAY',
  InvoiceNumber: 'V-1001',
  Reference: undefined,
  LineItems: [{ Description: 'Printing', Quantity: 1, UnitAmount: 80, AccountCode: '400' }],
};
const payment = {
  Invoice: { InvoiceID: invoiceId },
  Account: { Code: '610' },
  Date: '2026-11-03',
  Amount: 120.5,
  Reference: 'pay_123',
};
const feeTransaction = {
  Type: 'SPEND',
  Contact: { ContactID: contactId },
  BankAccount: { Code: '610' },
  Date: '2026-11-03',
  Reference: 'booksync key=payment-fee:pay_123',
  LineAmountTypes: 'NoTax',
  LineItems: [{ Description: 'Card fee', Quantity: 1, UnitAmount: 3.8, AccountCode: '404' }],
};
const journal = {
  Narration: 'booksync key=refund:re_1',
  Date: '2026-11-03',
  LineAmountTypes: 'NoTax',
  Status: 'POSTED',
  JournalLines: [
    { LineAmount: 20, AccountCode: '200', Description: 'Refund' },
    { LineAmount: -20, AccountCode: '610', Description: 'Refund' },
  ],
};
const transfer = {
  FromBankAccount: { Code: '610' },
  ToBankAccount: { Code: '090' },
  Amount: 116.7,
  Date: '2026-11-04',
  Reference: 'po_1',
};

describe('Xero OpenAPI contract checker', () => {
  it('loads the 900 KB document once per process', async () => {
    expect(contract.loadMs).toBeGreaterThan(0);
    expect(await xeroContract()).toBe(contract);
  });

  it('accepts the requests booksync will send', () => {
    const ok = (method: string, path: string, body?: unknown, query?: Record<string, string>) =>
      expect(
        contract.checkRequest({ method, path, query, headers: body ? create('k-1') : tenant, body }),
      ).toEqual([]);
    ok('PUT', '/Contacts', { Contacts: [customer, { Name: 'Paper Co', IsSupplier: true }] });
    ok('POST', '/Contacts', { Contacts: [{ ContactID: contactId, EmailAddress: 'amy@example.org' }] });
    ok('PUT', '/Invoices', { Invoices: [salesInvoice, bill] }, { summarizeErrors: 'false' });
    ok('POST', '/Invoices', { Invoices: [{ InvoiceID: invoiceId, Reference: 'booksync key=invoice:pl_1' }] });
    ok('PUT', '/Payments', { Payments: [payment, { ...payment, Amount: 10 }] });
    ok('POST', '/Payments', payment);
    ok(`POST`, `/Payments/${paymentId}`, { Status: 'DELETED' });
    ok('PUT', '/BankTransactions', { BankTransactions: [feeTransaction] });
    ok('PUT', '/ManualJournals', { ManualJournals: [journal] });
    ok('PUT', '/BankTransfers', { BankTransfers: [transfer] });
    ok('GET', '/Accounts', undefined, { where: 'Status=="ACTIVE" AND Type=="BANK"' });
    ok('GET', '/Invoices', undefined, { where: 'InvoiceNumber=="Spring workshop"', page: '1' });
    ok('GET', '/Contacts', undefined, { where: 'Name=="Amy Lane"', summaryOnly: 'true' });
    ok('GET', `/Invoices/${invoiceId}`);
    // The SDK's form: the API root in the path, the query in the URL, header names in any case.
    expect(
      contract.checkRequest({
        method: 'get',
        path: '/api.xro/2.0/Invoices?where=Reference%3D%3D%22booksync%22&Statuses=AUTHORISED,PAID',
        headers: { 'Xero-Tenant-Id': 't-1' },
      }),
    ).toEqual([]);
  });

  it('catches a wrong field type', () => {
    expect(
      contract.checkRequest({
        method: 'PUT',
        path: '/Payments',
        headers: create('k'),
        body: { Payments: [{ ...payment, Amount: '120.50' }] },
      }),
    ).toEqual(['createPayments: /requestBody/Payments/0/Amount: expected number, got "120.50"']);
    expect(
      contract.checkRequest({
        method: 'PUT',
        path: '/Invoices',
        headers: create('k'),
        body: { Invoices: [{ ...salesInvoice, LineItems: [{ Quantity: 'one', UnitAmount: 1 }] }] },
      }),
    ).toEqual(['createInvoices: /requestBody/Invoices/0/LineItems/0/Quantity: expected number, got "one"']);
    expect(
      contract.checkRequest({
        method: 'PUT',
        path: '/Contacts',
        headers: create('k'),
        body: { Contacts: customer },
      }),
    ).toEqual([
      'createContacts: /requestBody/Contacts: expected array, got {"Name":"Amy Lane","EmailAddress":"amy@example.com","IsCustomer":true}',
    ]);
    expect(
      contract.checkRequest({ method: 'GET', path: '/Invoices', headers: tenant, query: { page: 'two' } }),
    ).toEqual(['getInvoices: /query/page: expected integer, got "two"']);
    expect(
      contract.checkRequest({
        method: 'PUT',
        path: '/Invoices',
        headers: create('k'),
        body: { Invoices: [{ ...salesInvoice, Contact: { ContactID: 'amy' } }] },
      }),
    ).toEqual(['createInvoices: /requestBody/Invoices/0/Contact/ContactID: must match format "uuid"']);
  });

  it('catches a missing required property', () => {
    const { Narration: _, ...withoutNarration } = journal;
    expect(
      contract.checkRequest({
        method: 'PUT',
        path: '/ManualJournals',
        headers: create('k'),
        body: { ManualJournals: [withoutNarration] },
      }),
    ).toEqual(['createManualJournals: /requestBody/ManualJournals/0: missing required property Narration']);
    const { BankAccount: __, ...withoutBank } = feeTransaction;
    expect(
      contract.checkRequest({
        method: 'PUT',
        path: '/BankTransactions',
        headers: create('k'),
        body: { BankTransactions: [withoutBank] },
      }),
    ).toEqual([
      'createBankTransactions: /requestBody/BankTransactions/0: missing required property BankAccount',
    ]);
    const { Amount: ___, ...withoutAmount } = transfer;
    expect(
      contract.checkRequest({
        method: 'PUT',
        path: '/BankTransfers',
        headers: create('k'),
        body: { BankTransfers: [withoutAmount] },
      }),
    ).toEqual(['createBankTransfer: /requestBody/BankTransfers/0: missing required property Amount']);
    expect(
      contract.checkRequest({ method: 'PUT', path: '/Contacts', body: { Contacts: [customer] } }),
    ).toEqual(['createContacts: /header: missing required property xero-tenant-id']);
    expect(contract.checkRequest({ method: 'PUT', path: '/Invoices', headers: create('k') })).toEqual([
      'createInvoices: $: missing request body',
    ]);
  });

  it('checks the formats of parameters: a path id is a uuid, If-Modified-Since a date-time', () => {
    expect(
      contract.checkRequest({ method: 'GET', path: '/Invoices/not-a-uuid', headers: create('k') }),
    ).toEqual(['getInvoice: /path/InvoiceID: must match format "uuid"']);
    expect(
      contract.checkRequest({
        method: 'GET',
        path: '/Invoices',
        headers: { ...create('k'), 'If-Modified-Since': 'yesterday' },
      }),
    ).toEqual(['getInvoices: /header/if-modified-since: must match format "date-time"']);
  });

  it('checks a body the document gives by reference (#/components/requestBodies/historyRecords)', () => {
    const history = (body: unknown) =>
      contract.checkRequest({
        method: 'PUT',
        path: '/Invoices/00000000-0000-0000-0000-000000000001/History',
        headers: create('k'),
        body,
      });
    expect(history({ HistoryRecords: [{ Details: 'Paid by check 1042' }] })).toEqual([]);
    expect(history({ HistoryRecords: [{ Details: 1042 }] })).toEqual([
      'createInvoiceHistory: /requestBody/HistoryRecords/0/Details: expected string, got 1042',
    ]);
    expect(history({ HistoryRecords: [{ Detail: 'x' }] })).toEqual([
      'createInvoiceHistory: /requestBody/HistoryRecords/0: unknown property Detail',
    ]);
    expect(history(undefined)).toEqual(['createInvoiceHistory: $: missing request body']);
  });

  it('catches an unknown enum value', () => {
    expect(
      contract.checkRequest({
        method: 'PUT',
        path: '/Invoices',
        headers: create('k'),
        body: { Invoices: [{ ...salesInvoice, Type: 'ACCRECEIVABLE' }] },
      }),
    ).toEqual([
      'createInvoices: /requestBody/Invoices/0/Type: "ACCRECEIVABLE" is not one of ACCPAY, ACCPAYCREDIT, APOVERPAYMENT, APPREPAYMENT, ACCREC, ACCRECCREDIT, AROVERPAYMENT, ARPREPAYMENT',
    ]);
    expect(
      contract.checkRequest({
        method: 'PUT',
        path: '/BankTransactions',
        headers: create('k'),
        body: { BankTransactions: [{ ...feeTransaction, Type: 'PAY' }] },
      })[0],
    ).toMatch(
      /^createBankTransactions: \/requestBody\/BankTransactions\/0\/Type: "PAY" is not one of RECEIVE, /,
    );
    // PaymentDelete.Status is a plain string (default DELETED) in the document: no enum to hold it to.
    expect(
      contract.checkRequest({
        method: 'POST',
        path: `/Payments/${paymentId}`,
        headers: create('k'),
        body: {},
      }),
    ).toEqual(['deletePayment: /requestBody: missing required property Status']);
    expect(
      contract.checkRequest({
        method: 'PUT',
        path: '/Invoices',
        headers: create('k'),
        body: { Invoices: [{ ...salesInvoice, LineAmountTypes: 'Excluded' }] },
      }),
    ).toEqual([
      'createInvoices: /requestBody/Invoices/0/LineAmountTypes: "Excluded" is not one of Exclusive, Inclusive, NoTax',
    ]);
  });

  it('catches a misspelt field and an unknown operation', () => {
    expect(
      contract.checkRequest({
        method: 'PUT',
        path: '/Invoices',
        headers: create('k'),
        body: { Invoices: [{ ...salesInvoice, InvoiceNo: 'x' }] },
      }),
    ).toEqual(['createInvoices: /requestBody/Invoices/0: unknown property InvoiceNo']);
    expect(contract.checkRequest({ method: 'DELETE', path: '/Invoices', headers: tenant })).toEqual([
      "DELETE /Invoices: no such operation in Xero's API",
    ]);
    expect(contract.checkRequest({ method: 'GET', path: '/Bills', headers: tenant })).toEqual([
      "GET /Bills: no such operation in Xero's API",
    ]);
  });

  it('accepts valid responses and catches invalid ones', () => {
    const updated = msDate('2026-11-03T10:00:00Z');
    const envelope = {
      Id: '0b7d1c2e-1111-4a2b-9c3d-4e5f6a7b8c9d',
      Status: 'OK',
      ProviderName: 'booksync',
      DateTimeUTC: updated,
    };
    const invoice = {
      ...salesInvoice,
      InvoiceID: invoiceId,
      Date: msDate('2026-11-03'),
      DueDate: msDate('2026-11-03'),
      Contact: { ContactID: contactId, Name: 'Amy Lane' },
      LineItems: [
        {
          ...salesInvoice.LineItems[0],
          LineAmount: 120.5,
          LineItemID: 'a1b2c3d4-0000-4000-8000-000000000001',
        },
      ],
      SubTotal: 120.5,
      TotalTax: 0,
      Total: 120.5,
      AmountDue: 0,
      AmountPaid: 120.5,
      Status: 'PAID',
      CurrencyCode: 'USD',
      UpdatedDateUTC: updated,
      Payments: [{ PaymentID: paymentId, Date: msDate('2026-11-03'), Amount: 120.5 }],
    };
    expect(
      contract.checkResponse(
        'createInvoices',
        200,
        { ...envelope, Invoices: [invoice] },
        { checkMsDates: true },
      ),
    ).toEqual([]);
    expect(
      contract.checkResponse({ method: 'GET', path: '/Invoices' }, 200, { Invoices: [invoice] }),
    ).toEqual([]);
    expect(
      contract.checkResponse('createPayments', 200, {
        Payments: [
          {
            ...payment,
            PaymentID: paymentId,
            Date: msDate('2026-11-03'),
            Status: 'AUTHORISED',
            PaymentType: 'ACCRECPAYMENT',
          },
        ],
      }),
    ).toEqual([]);
    expect(
      contract.checkResponse('createContacts', 200, {
        ...envelope,
        Contacts: [{ ...customer, ContactID: contactId, ContactStatus: 'ACTIVE', UpdatedDateUTC: updated }],
      }),
    ).toEqual([]);
    const validation = {
      ErrorNumber: 10,
      Type: 'ValidationException',
      Message: 'A validation exception occurred',
      Elements: [
        { InvoiceID: invoiceId, ValidationErrors: [{ Message: 'Account code 999 is not a valid code' }] },
      ],
    };
    expect(contract.checkResponse('createInvoices', 400, validation)).toEqual([]);

    expect(
      contract.checkResponse('createInvoices', 200, { Invoices: [{ ...invoice, Total: '120.50' }] }),
    ).toEqual(['createInvoices 200: /Invoices/0/Total: expected number, got "120.50"']);
    expect(
      contract.checkResponse('createInvoices', 200, { Invoices: [{ ...invoice, Status: 'OPEN' }] }),
    ).toEqual([
      'createInvoices 200: /Invoices/0/Status: "OPEN" is not one of DRAFT, SUBMITTED, DELETED, AUTHORISED, PAID, VOIDED',
    ]);
    expect(
      contract.checkResponse(
        'createInvoices',
        200,
        { Invoices: [{ ...invoice, Date: '2026-11-03' }] },
        { checkMsDates: true },
      ),
    ).toEqual(['createInvoices 200: /Invoices/0/Date: "2026-11-03" is not a /Date(ms+0000)/ date']);
    expect(contract.checkResponse('createInvoices', 429, {})).toEqual([
      'createInvoices: status 429 is not declared (declared: 200, 400)',
    ]);
    expect(contract.checkResponse('createBills', 200, {})[0]).toMatch(/no such operation/);
  });

  it("accepts the document's own response examples for booksync's operations", () => {
    // Xero's examples carry undeclared fields (envelope, DateString): responses are validated open.
    const document = parse(readFileSync(join(contractsDir(), 'xero', 'xero_accounting.yaml'), 'utf8')) as {
      paths: Record<
        string,
        Record<
          string,
          {
            operationId?: string;
            responses?: Record<string, { content?: Record<string, { example?: unknown }> }>;
          }
        >
      >;
    };
    const used = new Set([
      'getContacts',
      'createContacts',
      'getInvoices',
      'createInvoices',
      'createPayments',
      'createManualJournals',
      'getAccounts',
      'getBankTransfers',
      'createBankTransfer',
    ]);
    let checked = 0;
    for (const item of Object.values(document.paths))
      for (const operation of Object.values(item)) {
        if (!operation?.operationId || !used.has(operation.operationId)) continue;
        const example = operation.responses?.['200']?.content?.['application/json']?.example;
        if (example === undefined) continue;
        expect(contract.checkResponse(operation.operationId, 200, example), operation.operationId).toEqual(
          [],
        );
        checked++;
      }
    expect(checked).toBe(used.size);
  });

  it('validates in milliseconds once an operation is compiled', () => {
    const body = {
      Invoices: Array.from({ length: 50 }, (_, i) => ({ ...salesInvoice, InvoiceNumber: `INV-${i}` })),
    };
    contract.checkRequest({ method: 'PUT', path: '/Invoices', headers: create('k'), body });
    const started = performance.now();
    for (let i = 0; i < 20; i++)
      contract.checkRequest({ method: 'PUT', path: '/Invoices', headers: create('k'), body });
    expect((performance.now() - started) / 20).toBeLessThan(50);
  });
});

describe('Xero OpenAPI contract checker, closed responses (for the double)', () => {
  it('rejects a response field the document does not declare, the envelope excepted', async () => {
    const closed = await xeroContract({ unknownResponseProperties: 'reject' });
    expect(closed).not.toBe(contract);
    const body = {
      Id: '0b7d1c2e-1111-4a2b-9c3d-4e5f6a7b8c9d',
      Status: 'OK',
      ProviderName: 'booksync',
      DateTimeUTC: msDate('2026-11-03T10:00:00Z'),
      Contacts: [{ ContactID: contactId, Name: 'Amy Lane' }],
    };
    expect(closed.checkResponse('createContacts', 200, body)).toEqual([]);
    expect(
      closed.checkResponse('createContacts', 200, {
        ...body,
        Contacts: [{ ContactID: contactId, Nmae: 'Amy' }],
      }),
    ).toEqual(['createContacts 200: /Contacts/0: unknown property Nmae']);
    expect(
      contract.checkResponse('createContacts', 200, {
        ...body,
        Contacts: [{ ContactID: contactId, Nmae: 'Amy' }],
      }),
    ).toEqual([]);
  });
});
