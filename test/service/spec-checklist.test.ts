import { fromResponse, ServiceAuthError, ServiceConflictError } from '@booksync/service-contract/errors';
import * as fx from '@booksync/service-contract/examples';
import { buildOpenApiDocument } from '@booksync/service-contract/openapi';
import type { Operation } from '@booksync/service-contract/operation';
import { operations } from '@booksync/service-contract/operations';
import * as schemas from '@booksync/service-contract/schemas/index';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ServiceClient } from '../../src/service/client.js';
import { endpoints, errorCodes, limits, resourceFields } from './spec-checklist.js';

const document = buildOpenApiDocument();

function schemaNamed(name: string): z.ZodObject {
  const schema = (schemas as Record<string, unknown>)[name];
  if (!schema || typeof (schema as z.ZodObject).shape !== 'object')
    throw new Error(`no object schema ${name}`);
  return schema as z.ZodObject;
}

const paymentMethod = fx.payment.paymentMethod;
const caMethod = fx.chargeAuthorization.paymentMethod;

/** A valid instance of each checked schema: probes change one field of it. */
const bases: Record<string, Record<string, unknown>> = {
  PaymentLink: fx.paymentLink,
  Payment: fx.payment,
  Fee: { type: 'CREDIT_CARD_FEE', amountInCents: 320 },
  PaymentMethod: paymentMethod ?? {},
  ACHDetails: caMethod?.achDetails ?? {},
  CardDetails: paymentMethod?.cardDetails ?? {},
  ServiceBalanceDetails: { nickname: 'Operating', accountNumberLastFour: '1234', spendableCents: 5000 },
  BillingDetails: paymentMethod?.billingDetails ?? {},
  ChargeAuthorizationBillingDetails: caMethod?.billingDetails ?? {},
  Disbursement: fx.disbursement,
  Refund: { id: 're_1', amountCents: 100, refundDate: '2026-11-21T10:00:00.000Z', voided: false },
  ExternalPayment: fx.externalPayment,
  DebitMemo: fx.debitMemo,
  Customer: fx.customer,
  File: fx.file,
  ChargeAuthorization: fx.chargeAuthorization,
  CheckDeposit: fx.checkDeposit,
  Vendor: fx.vendor,
  VendorDeliveryMethod: fx.vendor.vendorDeliveryMethods[0] ?? {},
  Bill: fx.bill,
  BillPayment: fx.billPayment,
  WebhookSubscription: fx.webhookSubscription,
  EventEnvelope: fx.eventEnvelope,
  ErrorBody: { error: 'reference used', code: 'REFERENCE_CONFLICT' },
  ApplyCheckDepositRequest: { paymentLinkId: 'pl_1', amountCents: 100, externalReferenceId: 'ref' },
  ExternalPaymentResult: { externalPayment: fx.externalPayment, paymentLink: fx.paymentLink },
  UpdatePaymentLinkRequest: {
    requestedAmountCents: 1000,
    name: 'n',
    dueDate: '2026-12-01',
    feePassthroughPercent: 10,
    creditCardEnabled: true,
    achEnabled: false,
    amountEditable: true,
  },
  CustomerList: { customers: [fx.customer], totalResults: 1 },
  UpdateCustomerRequest: { name: 'n', emails: ['a@b.example'], achEnabled: true, feePassthroughPercent: 0 },
  ListCustomersQuery: { page: 1, pageSize: 25 },
};

function base(name: string): Record<string, unknown> {
  const value = bases[name];
  if (!value) throw new Error(`no base example for ${name}`);
  return value;
}

describe('spec checklist: endpoints (part 4 and decisions)', () => {
  it.each(endpoints)('$section $method $path', (row) => {
    const operation = (operations as Record<string, Operation>)[row.operationId];
    expect(operation).toBeDefined();
    expect(operation?.method).toBe(row.method);
    expect(operation?.path).toBe(row.path);
    expect(typeof (ServiceClient.prototype as unknown as Record<string, unknown>)[row.operationId]).toBe(
      'function',
    );
    expect(document.paths[row.path]?.[row.method.toLowerCase()]?.operationId).toBe(row.operationId);
  });

  it('every operation of the table is on the checklist', () => {
    expect(Object.keys(operations).sort()).toEqual(endpoints.map((e) => e.operationId).sort());
  });
});

describe('spec checklist: resource fields (part 2)', () => {
  it.each(resourceFields)('$section $schema.$field is $rule', (row) => {
    const schema = schemaNamed(row.schema);
    expect(schema.shape[row.field]).toBeDefined();
    const valid = base(row.schema);
    expect(schema.safeParse(valid).success).toBe(true);

    const { [row.field]: _omitted, ...without } = valid;
    const omittable = row.rule === 'optional' || row.rule === 'optional-nullable';
    expect(schema.safeParse(without).success, 'omitted').toBe(omittable);

    const nullable = row.rule === 'nullable' || row.rule === 'optional-nullable';
    expect(schema.safeParse({ ...valid, [row.field]: null }).success, 'null').toBe(nullable);
  });

  it('the checklist names every field of every checked schema, no more', () => {
    const bySchema = new Map<string, string[]>();
    for (const row of resourceFields)
      bySchema.set(row.schema, [...(bySchema.get(row.schema) ?? []), row.field]);
    for (const [name, listed] of bySchema) {
      expect(Object.keys(schemaNamed(name).shape).sort(), name).toEqual([...listed].sort());
    }
  });
});

describe('spec checklist: limits (part 8)', () => {
  it.each(limits)('$section $limit', (row) => {
    const schema = schemaNamed(row.schema);
    for (const value of row.accepts) {
      expect(
        schema.safeParse({ ...base(row.schema), [row.field]: value }).success,
        `accepts ${String(value)}`,
      ).toBe(true);
    }
    for (const value of row.rejects) {
      expect(
        schema.safeParse({ ...base(row.schema), [row.field]: value }).success,
        `rejects ${String(value)}`,
      ).toBe(false);
    }
  });

  it('page size is clamped to 100, and totalResults is unaffected by it', () => {
    expect(schemas.ListCustomersQuery.parse({ pageSize: 101 }).pageSize).toBe(100);
    expect(schemas.MAX_PAGE_SIZE).toBe(100);
  });
});

describe('spec checklist: error codes (part 7)', () => {
  it.each(errorCodes)('$section $code is $status', (row) => {
    expect(schemas.ERROR_CODES).toContain(row.code);
    const error = fromResponse(row.status, JSON.stringify({ error: 'refused', code: row.code }));
    expect(error.status).toBe(row.status);
    expect(error.code).toBe(row.code);
    expect(error).toBeInstanceOf(row.status === 409 ? ServiceConflictError : ServiceAuthError);
    expect(error.retryable).toBe(false);
  });

  it('lists all four codes', () => {
    expect(errorCodes.map((r) => r.code).sort()).toEqual([...schemas.ERROR_CODES].sort());
  });
});
