import { msDate, type XeroContract, xeroContract } from '@booksync/vendor-doubles/xero/openapi-contract';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountingApi, Contact, type Contacts, Invoice, LineAmountTypes } from 'xero-node';

// Proof that the official SDK (xero-node) can be pointed at a local base URL, and that what it sends is
// what Xero's OpenAPI document describes: a loopback handler records each request, checks it with the
// contract checker and answers a canned, contract-valid response the SDK must parse.

interface Recorded {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  violations: string[];
}

const tenantId = 'b7d3f1a0-5d1c-4c1e-9a55-2f0d1c3e4a5b';
const contactId = '3ff6d40c-af9a-40a3-89ce-3c1556a25591';
const invoiceId = '4f7f5b7e-6a2e-4a0c-9b1d-1c2d3e4f5a6b';
const created = '2026-11-03T10:00:00.000Z';

let contract: XeroContract;
let server: FastifyInstance;
let api: AccountingApi;
const recorded: Recorded[] = [];

beforeAll(async () => {
  contract = await xeroContract();
  server = Fastify();
  server.all('/api.xro/2.0/*', async (request, reply) => {
    const violations = contract.checkRequest({
      method: request.method,
      path: request.url,
      headers: request.headers,
      body: request.body ?? undefined,
    });
    recorded.push({
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: request.body,
      violations,
    });
    const operation = contract.operation(request.method, request.url)?.operationId;
    let status = 200;
    let body: unknown;
    if (violations.length > 0) {
      status = 400;
      body = {
        ErrorNumber: 10,
        Type: 'ValidationException',
        Message: 'A validation exception occurred',
        Elements: [{ ValidationErrors: violations.map((Message) => ({ Message })) }],
      };
    } else if (operation === 'createContacts') {
      const sent = (request.body as { Contacts: Record<string, unknown>[] }).Contacts;
      body = {
        Id: '0b7d1c2e-1111-4a2b-9c3d-4e5f6a7b8c9d',
        Status: 'OK',
        ProviderName: 'booksync test',
        DateTimeUTC: msDate(created),
        Contacts: sent.map((contact) => ({
          ...contact,
          ContactID: contactId,
          ContactStatus: 'ACTIVE',
          UpdatedDateUTC: msDate(created),
          HasValidationErrors: false,
        })),
      };
    } else if (operation === 'getInvoices') {
      body = {
        Invoices: [
          {
            Type: 'ACCREC',
            InvoiceID: invoiceId,
            InvoiceNumber: 'Spring workshop',
            Contact: { ContactID: contactId, Name: 'Amy Lane' },
            Date: msDate('2026-11-03'),
            Status: 'AUTHORISED',
            LineAmountTypes: 'NoTax',
            Total: 120.5,
            AmountDue: 120.5,
            AmountPaid: 0,
            UpdatedDateUTC: msDate(created),
          },
        ],
      };
    } else {
      status = 404;
      body = { Message: `the test handler does not answer ${operation}` };
    }
    const responseViolations = operation ? contract.checkResponse(operation, status, body) : [];
    if (status !== 404 && responseViolations.length > 0)
      throw new Error(`canned response violates the contract: ${responseViolations.join('; ')}`);
    return reply.status(status).send(body);
  });
  const address = await server.listen({ host: '127.0.0.1', port: 0 });
  api = new AccountingApi();
  api.basePath = `${address}/api.xro/2.0`;
  api.accessToken = 'test-access-token';
});

afterAll(async () => {
  await server?.close();
});

describe('xero-node against a local base URL', () => {
  it('sends createContacts the contract accepts, with the tenant and Idempotency-Key headers, and parses the answer', async () => {
    recorded.length = 0;
    const contact: Contact = { name: 'Amy Lane', emailAddress: 'amy@example.com', isCustomer: true };
    const contacts: Contacts = { contacts: [contact] };
    const result = await api.createContacts(tenantId, contacts, false, 'booksync-contact-cus_1');

    expect(recorded).toHaveLength(1);
    const [request] = recorded;
    expect(request?.violations).toEqual([]);
    expect(request?.method).toBe('PUT');
    expect(request?.url).toBe('/api.xro/2.0/Contacts?summarizeErrors=false');
    expect(request?.headers['xero-tenant-id']).toBe(tenantId);
    expect(request?.headers['idempotency-key']).toBe('booksync-contact-cus_1');
    expect(request?.headers.authorization).toBe('Bearer test-access-token');
    expect(request?.headers['content-type']).toMatch(/^application\/json/);
    // The SDK writes Xero's PascalCase names and leaves out what was not set.
    expect(request?.body).toEqual({
      Contacts: [{ Name: 'Amy Lane', EmailAddress: 'amy@example.com', IsCustomer: true }],
    });

    expect(result.response.status).toBe(200);
    const [parsed] = result.body.contacts ?? [];
    expect(parsed?.contactID).toBe(contactId);
    expect(parsed?.name).toBe('Amy Lane');
    expect(parsed?.contactStatus).toBe(Contact.ContactStatusEnum.ACTIVE);
    // `/Date(ms+0000)/` becomes a Date, whatever the model's declared type.
    expect(parsed?.updatedDateUTC).toEqual(new Date(created));
  });

  it('sends no Idempotency-Key header when none is given', async () => {
    recorded.length = 0;
    await api.createContacts(tenantId, { contacts: [{ name: 'Paper Co', isSupplier: true }] });
    expect(recorded[0]?.violations).toEqual([]);
    expect(recorded[0]?.url).toBe('/api.xro/2.0/Contacts');
    expect(recorded[0]?.headers).not.toHaveProperty('idempotency-key');
  });

  it('sends getInvoices with a where filter the contract accepts', async () => {
    recorded.length = 0;
    const result = await api.getInvoices(tenantId, undefined, 'InvoiceNumber=="Spring workshop"');
    expect(recorded[0]?.violations).toEqual([]);
    expect(new URL(recorded[0]?.url ?? '', 'http://x').searchParams.get('where')).toBe(
      'InvoiceNumber=="Spring workshop"',
    );
    const [invoice] = result.body.invoices ?? [];
    expect(invoice?.invoiceID).toBe(invoiceId);
    expect(invoice?.type).toBe(Invoice.TypeEnum.ACCREC);
    expect(invoice?.amountDue).toBe(120.5);
    expect(invoice?.lineAmountTypes).toBe(LineAmountTypes.NoTax);
  });

  it('rejects a refused request with a JSON string carrying status and Xero body', async () => {
    recorded.length = 0;
    // A request the contract refuses (Quantity must be a number) gets the handler's ValidationException.
    const refusal = await api
      .createInvoices(tenantId, {
        invoices: [
          {
            type: Invoice.TypeEnum.ACCREC,
            contact: { contactID: contactId },
            lineItems: [{ description: 'x', quantity: 'one' as unknown as number, unitAmount: 1 }],
          },
        ],
      })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(recorded[0]?.violations).toEqual([
      'createInvoices: /requestBody/Invoices/0/LineItems/0/Quantity: expected number, got "one"',
    ]);
    // xero-node rejects with JSON.stringify({response: {statusCode, body, headers, request}, body}).
    expect(typeof refusal).toBe('string');
    const parsed = JSON.parse(refusal as string) as {
      response: {
        statusCode: number;
        body: { Type: string; Elements: { ValidationErrors: { Message: string }[] }[] };
      };
    };
    expect(parsed.response.statusCode).toBe(400);
    expect(parsed.response.body.Type).toBe('ValidationException');
    expect(parsed.response.body.Elements[0]?.ValidationErrors[0]?.Message).toMatch(/Quantity/);
  });
});
