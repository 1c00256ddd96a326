import { describe, expect, it } from 'vitest';
import * as fx from '../src/examples.js';
import {
  ApplyCheckDepositRequest,
  Bill,
  BillPayment,
  ChargeAuthorization,
  CheckDeposit,
  Customer,
  cents,
  DebitMemo,
  Disbursement,
  ErrorBody,
  EVENT_CATEGORIES,
  EVENT_CATEGORY_OBJECT_TYPES,
  EventEnvelope,
  ExternalPayment,
  File,
  isKnownEventCategory,
  ListCustomersQuery,
  Payment,
  PaymentLink,
  PaymentMethod,
  RecordExternalPaymentRequest,
  RefundPaymentRequest,
  UpdateCustomerRequest,
  UpdatePaymentLinkRequest,
  Vendor,
  WebhookSubscription,
} from '../src/schemas/index.js';

describe('resource schemas accept what the emulator sends', () => {
  const cases = [
    ['PaymentLink', PaymentLink, fx.paymentLink],
    ['Payment', Payment, fx.payment],
    ['Disbursement', Disbursement, fx.disbursement],
    ['ExternalPayment', ExternalPayment, fx.externalPayment],
    ['DebitMemo', DebitMemo, fx.debitMemo],
    ['Customer', Customer, fx.customer],
    ['File', File, fx.file],
    ['ChargeAuthorization', ChargeAuthorization, fx.chargeAuthorization],
    ['CheckDeposit', CheckDeposit, fx.checkDeposit],
    ['Vendor', Vendor, fx.vendor],
    ['Bill', Bill, fx.bill],
    ['BillPayment', BillPayment, fx.billPayment],
    ['WebhookSubscription', WebhookSubscription, fx.webhookSubscription],
    ['EventEnvelope', EventEnvelope, fx.eventEnvelope],
  ] as const;
  it.each(cases)('%s round-trips unchanged', (_name, schema, value) => {
    expect((schema as { parse(v: unknown): unknown }).parse(value)).toEqual(value);
  });
});

describe('money is integer cents', () => {
  it('rejects fractions, unsafe integers, strings and NaN', () => {
    expect(cents.safeParse(100).success).toBe(true);
    expect(cents.safeParse(0.5).success).toBe(false);
    expect(cents.safeParse(Number.MAX_SAFE_INTEGER + 1).success).toBe(false);
    expect(cents.safeParse('100').success).toBe(false);
    expect(cents.safeParse(Number.NaN).success).toBe(false);
  });
  it('rejects a fractional amount inside a resource', () => {
    expect(Payment.safeParse({ ...fx.payment, amountInCents: 100.5 }).success).toBe(false);
  });
});

describe('dates', () => {
  it('dates are YYYY-MM-DD real calendar days', () => {
    expect(ExternalPayment.safeParse({ ...fx.externalPayment, paidAt: '2026-02-30' }).success).toBe(false);
    expect(ExternalPayment.safeParse({ ...fx.externalPayment, paidAt: '2026-11-21T00:00:00Z' }).success).toBe(
      false,
    );
  });
  it('date-times are ISO 8601, with Z or an offset', () => {
    expect(DebitMemo.safeParse({ ...fx.debitMemo, createdAt: '2026-11-21T10:00:00+02:00' }).success).toBe(
      true,
    );
    expect(DebitMemo.safeParse({ ...fx.debitMemo, createdAt: '21/11/2026' }).success).toBe(false);
  });
});

describe('open and closed enums (decision “Unknown enum values from the real service”)', () => {
  it('keeps unknown statuses and fee types', () => {
    const parsed = Payment.parse({
      ...fx.payment,
      status: 'DISPUTED',
      fees: [{ type: 'INSTANT_PAYOUT_FEE', amountInCents: 5 }],
    });
    expect(parsed.status).toBe('DISPUTED');
    expect(parsed.fees[0]?.type).toBe('INSTANT_PAYOUT_FEE');
    expect(PaymentLink.parse({ ...fx.paymentLink, status: 'EXPIRED' }).status).toBe('EXPIRED');
  });
  it('rejects unknown payment method, file and object types', () => {
    const method = fx.payment.paymentMethod;
    expect(PaymentMethod.safeParse({ ...method, type: 'Crypto' }).success).toBe(false);
    expect(File.safeParse({ ...fx.file, type: 'PNG' }).success).toBe(false);
    expect(EventEnvelope.safeParse({ ...fx.eventEnvelope, associated_object_type: 'invoice' }).success).toBe(
      false,
    );
  });
  it('accepts an unknown event category but requires type "event"', () => {
    expect(EventEnvelope.safeParse({ ...fx.eventEnvelope, category: 'payment.disputed' }).success).toBe(true);
    expect(EventEnvelope.safeParse({ ...fx.eventEnvelope, type: 'notification' }).success).toBe(false);
    expect(EventEnvelope.safeParse({ ...fx.eventEnvelope, id: 'not-a-uuid' }).success).toBe(false);
  });
  it('lists the 17 categories of 6.5 with their object types', () => {
    expect(EVENT_CATEGORIES).toHaveLength(17);
    expect(EVENT_CATEGORY_OBJECT_TYPES['check.deposited']).toBe('check');
    expect(isKnownEventCategory('vendor.payout_method_updated')).toBe(true);
    expect(isKnownEventCategory('toString')).toBe(false);
  });
});

describe('required, optional, nullable', () => {
  it('PaymentLink: customerId may be omitted, dueDate null or omitted; url must be a URI', () => {
    const { customerId: _c, dueDate: _d, reusable: _r, ...rest } = fx.paymentLink;
    expect(PaymentLink.safeParse(rest).success).toBe(true);
    expect(PaymentLink.safeParse({ ...fx.paymentLink, dueDate: null }).success).toBe(true);
    expect(PaymentLink.safeParse({ ...fx.paymentLink, customerId: null }).success).toBe(false);
    expect(PaymentLink.safeParse({ ...fx.paymentLink, url: 'not a url' }).success).toBe(false);
  });
  it('PaymentLink: debitMemos and debitMemoAmountCents are required', () => {
    const { debitMemos: _m, ...noMemos } = fx.paymentLink;
    expect(PaymentLink.safeParse(noMemos).success).toBe(false);
  });
  it('Customer feePassthroughPercent is an effective integer 0-100, never null', () => {
    expect(Customer.safeParse({ ...fx.customer, feePassthroughPercent: null }).success).toBe(false);
    expect(Customer.safeParse({ ...fx.customer, feePassthroughPercent: 101 }).success).toBe(false);
    expect(Customer.safeParse({ ...fx.customer, feePassthroughPercent: 0 }).success).toBe(true);
  });
  it('a charge authorization billingDetails carries countryCode, not email', () => {
    const pm = fx.chargeAuthorization.paymentMethod;
    expect(pm).not.toBeNull();
    const withEmail = {
      ...fx.chargeAuthorization,
      paymentMethod: {
        ...pm,
        billingDetails: { ...pm?.billingDetails, countryCode: undefined, email: 'x@y' },
      },
    };
    expect(ChargeAuthorization.safeParse(withEmail).success).toBe(false);
    expect(ChargeAuthorization.safeParse({ ...fx.chargeAuthorization, paymentMethod: null }).success).toBe(
      true,
    );
  });
  it('ErrorBody: error required, code optional and open', () => {
    expect(ErrorBody.safeParse({ error: 'x' }).success).toBe(true);
    expect(ErrorBody.parse({ error: 'x', code: 'NEW_CODE' }).code).toBe('NEW_CODE');
    expect(ErrorBody.safeParse({ code: 'REFERENCE_CONFLICT' }).success).toBe(false);
  });
  it('WebhookSubscription secret is whsec_ or null', () => {
    expect(WebhookSubscription.safeParse({ ...fx.webhookSubscription, secret: null }).success).toBe(true);
    expect(WebhookSubscription.safeParse({ ...fx.webhookSubscription, secret: 'abc' }).success).toBe(false);
  });
});

describe('limits of part 8', () => {
  it('apply: externalReferenceId at most 255 characters', () => {
    const base = { paymentLinkId: 'pl_1' };
    expect(
      ApplyCheckDepositRequest.safeParse({ ...base, externalReferenceId: 'r'.repeat(255) }).success,
    ).toBe(true);
    expect(
      ApplyCheckDepositRequest.safeParse({ ...base, externalReferenceId: 'r'.repeat(256) }).success,
    ).toBe(false);
  });
  it('apply: amountCents at least 1 and optional; paymentLinkId required', () => {
    expect(ApplyCheckDepositRequest.safeParse({ paymentLinkId: 'pl_1' }).success).toBe(true);
    expect(ApplyCheckDepositRequest.safeParse({ paymentLinkId: 'pl_1', amountCents: 1 }).success).toBe(true);
    expect(ApplyCheckDepositRequest.safeParse({ paymentLinkId: 'pl_1', amountCents: 0 }).success).toBe(false);
    expect(ApplyCheckDepositRequest.safeParse({ amountCents: 5 }).success).toBe(false);
  });
  it('feePassthroughPercent 0 to 100 on link and customer updates; null clears', () => {
    for (const schema of [UpdatePaymentLinkRequest, UpdateCustomerRequest]) {
      expect(schema.safeParse({ feePassthroughPercent: 0 }).success).toBe(true);
      expect(schema.safeParse({ feePassthroughPercent: 100 }).success).toBe(true);
      expect(schema.safeParse({ feePassthroughPercent: null }).success).toBe(true);
      expect(schema.safeParse({ feePassthroughPercent: -1 }).success).toBe(false);
      expect(schema.safeParse({ feePassthroughPercent: 101 }).success).toBe(false);
      expect(schema.safeParse({ feePassthroughPercent: 50.5 }).success).toBe(false);
    }
  });
  it('list customers: page at least 1, pageSize at least 1 and clamped to 100, defaults 1 and 25', () => {
    expect(ListCustomersQuery.parse({})).toEqual({ page: 1, pageSize: 25 });
    expect(ListCustomersQuery.parse({ page: '3', pageSize: '1000' })).toEqual({ page: 3, pageSize: 100 });
    expect(ListCustomersQuery.parse({ pageSize: 100 }).pageSize).toBe(100);
    expect(ListCustomersQuery.safeParse({ page: '0' }).success).toBe(false);
    expect(ListCustomersQuery.safeParse({ pageSize: '0' }).success).toBe(false);
    expect(ListCustomersQuery.safeParse({ page: '1.5' }).success).toBe(false);
    expect(ListCustomersQuery.safeParse({ page: 'abc' }).success).toBe(false);
  });
  it('record external payment: amount >= 1, date paidAt, reference <= 255 (decision “Record an external payment”)', () => {
    const ok = { amountCents: 100, paidAt: '2026-11-20' };
    expect(RecordExternalPaymentRequest.safeParse(ok).success).toBe(true);
    expect(RecordExternalPaymentRequest.safeParse({ ...ok, amountCents: 0 }).success).toBe(false);
    expect(
      RecordExternalPaymentRequest.safeParse({ ...ok, externalReferenceId: 'x'.repeat(256) }).success,
    ).toBe(false);
  });
  it('refund: amount optional (decision “Refund amount”), at least 1 when given', () => {
    expect(RefundPaymentRequest.safeParse({}).success).toBe(true);
    expect(RefundPaymentRequest.safeParse({ amountCents: 0 }).success).toBe(false);
  });
});
