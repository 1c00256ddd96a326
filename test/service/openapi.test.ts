import { readFileSync } from 'node:fs';
import * as fx from '@booksync/service-contract/examples';
import { buildOpenApiDocument, serializeOpenApiDocument } from '@booksync/service-contract/openapi';
import { OpenApiResponseValidator } from '@booksync/service-contract/openapi-validator';
import * as schemas from '@booksync/service-contract/schemas/index';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';

const committed = readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8');
const document = buildOpenApiDocument();
const validator = new OpenApiResponseValidator(document);

// Every path of part 4 with the statuses the spec documents for it (part 7 gives 4.1's in full).
const PART_4: [string, string, string[]][] = [
  [
    'post',
    '/serviceBanking/checkDeposits/{checkDepositId}/apply',
    ['200', '400', '403', '404', '409', '500'],
  ],
  ['post', '/paymentLink/{paymentLinkId}/externalPayment', ['200', '201', '409']],
  ['put', '/paymentLink/{paymentLinkId}', ['200']],
  ['post', '/payment/{paymentId}/refund', ['200']],
  ['post', '/paymentLink/{paymentLinkId}/send', ['200']],
  ['get', '/customers', ['200']],
  ['put', '/customer/{customerId}', ['200']],
  ['post', '/customer/{customerId}/requestChargeAuthorization', ['200']],
  ['post', '/file', ['201', '409']],
  ['put', '/vendor/{vendorId}/deliveryMethod/ach', ['200']],
  ['put', '/vendor/{vendorId}/payoutMethod/ach', ['200']],
  ['delete', '/vendor/{vendorId}', ['200']],
  ['post', '/webhook', ['201']],
  ['get', '/webhook', ['200']],
  ['get', '/billPayment/{billPaymentId}', ['200']],
];

describe('docs/openapi.json', () => {
  it('is current: equal to a fresh generation (run `npx tsx scripts/generate-openapi.ts`)', () => {
    expect(committed).toBe(serializeOpenApiDocument(document));
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(JSON.parse(committed));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
  });

  it.each(PART_4)('%s %s documents %j', (method, path, statuses) => {
    const operation = document.paths[path]?.[method];
    expect(operation).toBeDefined();
    for (const status of statuses) expect(Object.keys(operation?.responses ?? {})).toContain(status);
  });

  it('4.1 answers exactly the statuses of part 7, plus default', () => {
    const apply = document.paths['/serviceBanking/checkDeposits/{checkDepositId}/apply']?.post;
    expect(Object.keys(apply?.responses ?? {}).sort()).toEqual([
      '200',
      '400',
      '403',
      '404',
      '409',
      '500',
      'default',
    ]);
  });

  it('declares bearer auth for every operation and leaves sandbox paths out', () => {
    expect(document.components.securitySchemes).toEqual({ bearerAuth: { type: 'http', scheme: 'bearer' } });
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(Object.keys(document.paths).some((p) => p.startsWith('/sandbox'))).toBe(false);
  });

  it('documents list paging with page >= 1 and pageSize 1..', () => {
    const params = document.paths['/customers']?.get?.parameters ?? [];
    const byName = Object.fromEntries(params.map((p) => [p.name as string, p]));
    expect(Object.keys(byName)).toEqual(['page', 'pageSize', 'name', 'email']);
    expect(byName.page).toMatchObject({ in: 'query', required: false, schema: { minimum: 1 } });
    expect(byName.pageSize).toMatchObject({ in: 'query', required: false, schema: { minimum: 1 } });
  });

  it('documents path parameters and multipart bodies', () => {
    const apply = document.paths['/serviceBanking/checkDeposits/{checkDepositId}/apply']?.post;
    expect(apply?.parameters).toEqual([
      expect.objectContaining({ name: 'checkDepositId', in: 'path', required: true }),
    ]);
    const upload = document.paths['/file']?.post?.requestBody as {
      content: Record<string, { schema: { properties: Record<string, unknown>; required: string[] } }>;
    };
    const form = upload.content['multipart/form-data']?.schema;
    expect(Object.keys(form?.properties ?? {})).toEqual(
      expect.arrayContaining(['file', 'type', 'data', 'customerId', 'routingNumber', 'accountNumber']),
    );
    expect(form?.required).toEqual(['file']);
  });
});

describe('OpenApiResponseValidator (shared with the emulator tests)', () => {
  it('accepts the fixtures on their operations, by template or concrete path', () => {
    const ok = [
      { method: 'GET', path: '/paymentLink/pl_1', status: 200, body: fx.paymentLink },
      { method: 'GET', path: '/paymentLink/{paymentLinkId}', status: 200, body: fx.paymentLink },
      { method: 'POST', path: '/payment/pay_1/refund', status: 200, body: fx.payment },
      {
        method: 'POST',
        path: '/serviceBanking/checkDeposits/cd_1/apply',
        status: 200,
        body: { externalPayment: fx.externalPayment, paymentLink: fx.paymentLink },
      },
      { method: 'GET', path: '/serviceBanking/checkDeposits/cd_1', status: 200, body: fx.checkDeposit },
      { method: 'GET', path: '/billPayment/bp_1', status: 200, body: fx.billPayment },
      { method: 'GET', path: '/vendor/ven_1', status: 200, body: fx.vendor },
      { method: 'GET', path: '/chargeAuthorization/ca_1', status: 200, body: fx.chargeAuthorization },
      { method: 'GET', path: '/webhook', status: 200, body: { webhooks: [fx.webhookSubscription] } },
      {
        method: 'GET',
        path: '/customers?page=2',
        status: 200,
        body: { customers: [fx.customer], totalResults: 1 },
      },
      { method: 'POST', path: '/file', status: 201, body: fx.file },
    ];
    for (const response of ok)
      expect(validator.validate(response), `${response.method} ${response.path}`).toEqual({ valid: true });
  });

  it('rejects a missing field, a wrong type and an extra field', () => {
    const { debitMemos: _d, ...missing } = fx.paymentLink;
    const r1 = validator.validate({ method: 'GET', path: '/paymentLink/pl_1', status: 200, body: missing });
    expect(r1.valid).toBe(false);
    const r2 = validator.validate({
      method: 'GET',
      path: '/payment/pay_1',
      status: 200,
      body: { ...fx.payment, amountInCents: 1.5 },
    });
    expect(r2).toEqual({ valid: false, errors: [expect.stringContaining('/amountInCents')] });
    const r3 = validator.validate({
      method: 'GET',
      path: '/customer/c',
      status: 200,
      body: { ...fx.customer, x: 1 },
    });
    expect(r3.valid).toBe(false);
  });

  it('checks error bodies, falls back to default for undocumented errors, refuses undocumented 2xx', () => {
    const err = { error: 'not found' };
    expect(validator.validate({ method: 'GET', path: '/payment/p', status: 404, body: err }).valid).toBe(
      true,
    );
    expect(
      validator.validate({ method: 'GET', path: '/payment/p', status: 404, body: { message: 'x' } }).valid,
    ).toBe(false);
    expect(validator.validate({ method: 'GET', path: '/payment/p', status: 418, body: err }).valid).toBe(
      true,
    );
    expect(
      validator.validate({ method: 'GET', path: '/payment/p', status: 201, body: fx.payment }).valid,
    ).toBe(false);
    expect(
      validator.validate({
        method: 'GET',
        path: '/payment/p',
        status: 500,
        body: 'boom',
        contentType: 'text/plain',
      }).valid,
    ).toBe(true);
  });

  it('refuses unknown paths and methods', () => {
    expect(validator.validate({ method: 'GET', path: '/sandbox/events', status: 200, body: {} }).valid).toBe(
      false,
    );
    expect(validator.validate({ method: 'DELETE', path: '/payment/p', status: 200, body: {} }).valid).toBe(
      false,
    );
  });

  it('matches literal paths before parameter templates', () => {
    expect(validator.matchPath('/serviceBanking/checkDeposits')).toBe('/serviceBanking/checkDeposits');
    expect(validator.matchPath('/serviceBanking/checkDeposits/cd_1')).toBe(
      '/serviceBanking/checkDeposits/{checkDepositId}',
    );
    expect(validator.matchPath('/paymentLinks')).toBe('/paymentLinks');
  });

  it('validates single components', () => {
    expect(validator.validateComponent('EventEnvelope', fx.eventEnvelope)).toEqual({ valid: true });
    expect(validator.validateComponent('EventEnvelope', { ...fx.eventEnvelope, type: 'x' }).valid).toBe(
      false,
    );
  });
});

describe('zod and the OpenAPI components agree', () => {
  const components: [string, { safeParse(v: unknown): { success: boolean } }, Record<string, unknown>][] = [
    ['PaymentLink', schemas.PaymentLink, fx.paymentLink],
    ['Payment', schemas.Payment, fx.payment],
    ['CheckDeposit', schemas.CheckDeposit, fx.checkDeposit],
    ['ChargeAuthorization', schemas.ChargeAuthorization, fx.chargeAuthorization],
    ['BillPayment', schemas.BillPayment, fx.billPayment],
    ['Vendor', schemas.Vendor, fx.vendor],
    ['Customer', schemas.Customer, fx.customer],
    ['EventEnvelope', schemas.EventEnvelope, fx.eventEnvelope],
    ['WebhookSubscription', schemas.WebhookSubscription, fx.webhookSubscription],
  ];
  it.each(components)(
    '%s: dropping, nulling or retyping any field gives the same verdict',
    (name, schema, value) => {
      for (const field of Object.keys(value)) {
        const { [field]: _dropped, ...without } = value;
        for (const probe of [
          without,
          { ...value, [field]: null },
          { ...value, [field]: 12.5 },
          { ...value, [field]: 'x' },
        ]) {
          const zodOk = schema.safeParse(probe).success;
          const ajvOk = validator.validateComponent(name, probe).valid;
          expect(ajvOk, `${name}.${field} ${JSON.stringify(probe[field as keyof typeof probe])}`).toBe(zodOk);
        }
      }
    },
  );
});
