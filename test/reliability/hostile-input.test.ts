import { createHash } from 'node:crypto';
import { sign } from '@booksync/service-contract/webhook-signature';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningIngress, startIngress } from '../../src/ingress/main.js';
import { silentLogger } from '../../src/logging/logger.js';
import type { BooksSnapshot } from '../support/books-snapshot.js';
import { type E2EStack, startE2EStack } from '../support/e2e-stack.js';
import { startDevServer } from '../support/temporal.js';

// Hostile input against every door booksync has: the emulator's API, the webhook ingress and the command
// API. Each request must get its documented 4xx (never a 5xx), and nothing may change: the emulator's
// database byte for byte (every table), the books, the set of workflows on booksync's task queue.
// (test/e2e covers forged, stale, future, unsigned, malformed-JSON and oversize deliveries on the books
// side; here the rest, and the same rule for the two APIs.)

const commandKey = 'command-key-for-hostile-input-tests';
const huge = '9007199254740993'; // 2^53 + 1: JSON.parse rounds it, so it must be refused, not rounded
const injections = [
  "'; DROP TABLE payment_links; --",
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  'abc\u0000def',
  '%00',
  'x'.repeat(300),
];

describe('hostile input', () => {
  let env: TestWorkflowEnvironment;
  let stack: E2EStack;
  let commands: RunningIngress;
  let linkId: string;
  let paymentId: string;

  beforeAll(async () => {
    env = await startDevServer();
    stack = await startE2EStack({ temporal: env, dispatcher: 'none' });
    commands = await startIngress({
      host: '127.0.0.1',
      port: 0,
      temporal: { client: stack.client },
      taskQueue: stack.taskQueue,
      webhookSecrets: [stack.webhookSecret],
      commandApiKey: commandKey,
      logger: silentLogger,
    });
    const link = await stack.service.createPaymentLink({ name: 'hostile', requestedAmountCents: 50_00 });
    linkId = link.id;
    paymentId = (await stack.pay(linkId, 'Card')).id;
    await stack.settle(paymentId);
  }, 300_000);
  afterAll(async () => {
    await commands?.close();
    await stack?.stop();
    await env?.teardown();
  });

  /** Every table of the emulator's database, hashed row by row. */
  const emulatorDigest = (): Record<string, string> => {
    const db = stack.emulator.store.db;
    const tables = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all() as { name: string }[];
    return Object.fromEntries(
      tables.map(({ name }) => [
        name,
        createHash('sha256')
          .update(JSON.stringify(db.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).all()))
          .digest('hex'),
      ]),
    );
  };
  const workflowCount = async () =>
    (await stack.client.workflow.count(`TaskQueue = "${stack.taskQueue}"`)).count;
  const world = async (): Promise<{
    emulator: Record<string, string>;
    books: BooksSnapshot;
    workflows: number;
  }> => ({ emulator: emulatorDigest(), books: await stack.books(), workflows: await workflowCount() });

  const raw = async (
    base: string,
    method: string,
    urlPath: string,
    init: { body?: string | Buffer; headers?: Record<string, string> } = {},
  ) => {
    const response = await fetch(`${base}${urlPath}`, {
      method,
      headers: init.headers ?? {},
      ...(init.body === undefined ? {} : { body: init.body }),
    });
    const text = await response.text();
    return { status: response.status, text };
  };
  const api = (method: string, urlPath: string, body?: string, contentType = 'application/json') =>
    raw(stack.emulatorUrl, method, urlPath, {
      headers: {
        authorization: `Bearer ${stack.apiKey}`,
        ...(body === undefined ? {} : { 'content-type': contentType }),
      },
      ...(body === undefined ? {} : { body }),
    });

  it("answers the emulator's documented 4xx to huge, negative, fractional, string and over-long values, unknown enums, injection strings, bad JSON, wrong content types and oversized bodies, and changes nothing", async () => {
    const before = emulatorDigest();
    const cases: { name: string; send: () => ReturnType<typeof api>; status: number[] }[] = [];
    const add = (name: string, send: () => ReturnType<typeof api>, status: number[]) =>
      cases.push({ name, send, status });
    for (const amount of [huge, '-100', '0', '12.5', '"100"', '1e400', 'null']) {
      add(
        `create link, requestedAmountCents ${amount}`,
        () => api('POST', '/paymentLink', `{"name":"x","requestedAmountCents":${amount}}`),
        [400],
      );
      add(
        `refund, amountCents ${amount}`,
        () => api('POST', `/payment/${paymentId}/refund`, `{"amountCents":${amount}}`),
        [400],
      );
      add(
        `external payment, amountCents ${amount}`,
        () =>
          api(
            'POST',
            `/paymentLink/${linkId}/externalPayment`,
            `{"amountCents":${amount},"paidAt":"2026-01-02"}`,
          ),
        [400],
      );
    }
    add(
      'external payment, reference of 256 characters',
      () =>
        api(
          'POST',
          `/paymentLink/${linkId}/externalPayment`,
          JSON.stringify({ amountCents: 100, paidAt: '2026-01-02', externalReferenceId: 'r'.repeat(256) }),
        ),
      [400],
    );
    add(
      'debit memo, reference of 256 characters',
      () =>
        api(
          'POST',
          `/paymentLink/${linkId}/debitMemo`,
          JSON.stringify({ amountCents: 100, description: 'fee', externalReferenceId: 'r'.repeat(256) }),
        ),
      [400],
    );
    add(
      'external payment, impossible date',
      () =>
        api(
          'POST',
          `/paymentLink/${linkId}/externalPayment`,
          JSON.stringify({ amountCents: 100, paidAt: '2026-02-30' }),
        ),
      [400],
    );
    add(
      'fee passthrough 101%',
      () =>
        api(
          'POST',
          '/paymentLink',
          JSON.stringify({ name: 'x', requestedAmountCents: 100, feePassthroughPercent: 101 }),
        ),
      [400],
    );
    add(
      'unknown pay method (sandbox)',
      () => api('POST', `/sandbox/paymentLinks/${linkId}/pay`, JSON.stringify({ method: 'Bitcoin' })),
      [400],
    );
    add(
      'unknown fault kind (sandbox)',
      () => api('POST', '/sandbox/faults', JSON.stringify({ rate: 1, kinds: ['fire'] })),
      [400],
    );
    add(
      'webhook to a javascript: URL',
      () => api('POST', '/webhook', JSON.stringify({ url: 'javascript:alert(1)' })),
      [400],
    );
    add('truncated JSON', () => api('POST', '/paymentLink', '{"name":"x","requestedAmountCents":10'), [400]);
    add('not JSON at all', () => api('POST', '/paymentLink', "'; DROP TABLE payment_links; --"), [400]);
    add(
      'NUL bytes in JSON',
      () => api('POST', '/paymentLink', '{"name":"x\u0000","requestedAmountCents":\u000010}'),
      [400],
    );
    add(
      'wrong content type',
      () =>
        api('POST', '/paymentLink', 'name=x&requestedAmountCents=10', 'application/x-www-form-urlencoded'),
      [415],
    );
    add(
      'oversized body (2 MiB)',
      () =>
        api(
          'POST',
          '/paymentLink',
          JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024), requestedAmountCents: 10 }),
        ),
      [413],
    );
    for (const evil of injections) {
      const segment = encodeURIComponent(evil);
      add(
        `GET /paymentLink/${evil.slice(0, 20)}`,
        () => api('GET', `/paymentLink/${segment}`),
        [400, 404, 414],
      );
      add(`GET /payment/${evil.slice(0, 20)}`, () => api('GET', `/payment/${segment}`), [400, 404, 414]);
      add(
        `refund /payment/${evil.slice(0, 20)}`,
        () => api('POST', `/payment/${segment}/refund`, '{}'),
        [400, 404, 414],
      );
      add(
        `archive /paymentLink/${evil.slice(0, 20)}`,
        () => api('POST', `/paymentLink/${segment}/archive`, '{}'),
        [400, 404, 414],
      );
      add(
        `settle /sandbox/payments/${evil.slice(0, 20)}`,
        () => api('POST', `/sandbox/payments/${segment}/settle`),
        [400, 404, 414],
      );
    }
    add('raw path traversal', () => api('GET', '/paymentLink/../../../etc/passwd'), [400, 404]);
    add(
      'query injection in a list',
      () => api('GET', `/paymentLinks?page=${encodeURIComponent('1; DROP TABLE payments')}`),
      [400],
    );
    add('page size huge', () => api('GET', `/paymentLinks?pageSize=${huge}`), [400]);

    const outcomes: Record<string, number> = {};
    for (const c of cases) outcomes[c.name] = (await c.send()).status;
    const wrong = cases.filter((c) => !c.status.includes(outcomes[c.name] as number));
    expect(wrong.map((c) => `${c.name}: ${outcomes[c.name]} (want ${c.status.join('|')})`)).toEqual([]);
    expect(emulatorDigest()).toEqual(before);

    // Control: injection strings where free text is allowed are stored verbatim and harm nothing.
    const name = `${injections.slice(0, 3).join(' ')}`;
    const created = await api('POST', '/paymentLink', JSON.stringify({ name, requestedAmountCents: 1_00 }));
    expect(created.status).toBe(201);
    const id = (JSON.parse(created.text) as { id: string }).id;
    expect((JSON.parse((await api('GET', `/paymentLink/${id}`)).text) as { name: string }).name).toBe(name);
    expect(Object.keys(emulatorDigest())).toEqual(Object.keys(before));
  });

  it('answers 401/400/413/415 to forged headers, truncated, non-JSON, NUL-laden and wrong-content-type deliveries at the ingress, and signals nothing', async () => {
    const before = await world();
    const now = () => Math.floor(Date.now() / 1000);
    const envelope = JSON.stringify({
      id: '0b7a1c9e-5d7b-4a3f-9f8e-2b1c3d4e5f60',
      category: 'payment.made',
      associated_object_type: 'payment',
      associated_object_id: paymentId,
      created_at: new Date().toISOString(),
    });
    const deliver = (body: string, headers: Record<string, string>) =>
      raw(stack.ingressUrl, 'POST', '/webhooks/service', { body, headers });
    const signed = (body: string, t = now()) => ({
      'content-type': 'application/json',
      'service-signature': sign(stack.webhookSecret, body, t),
    });
    const truncated = envelope.slice(0, 40);
    const cases: [string, () => ReturnType<typeof deliver>, number][] = [
      [
        'signature over another body',
        () => deliver(envelope, signed(envelope.replace(paymentId, 'pay_other'))),
        401,
      ],
      [
        'garbage signature header',
        () => deliver(envelope, { 'content-type': 'application/json', 'service-signature': 'v1=zz,t=abc' }),
        401,
      ],
      [
        'empty v1',
        () =>
          deliver(envelope, { 'content-type': 'application/json', 'service-signature': `t=${now()},v1=` }),
        401,
      ],
      [
        't with huge value',
        () =>
          deliver(envelope, {
            'content-type': 'application/json',
            'service-signature': `t=${huge}${huge},v1=${'0'.repeat(64)}`,
          }),
        401,
      ],
      ['replayed a day later', () => deliver(envelope, signed(envelope, now() - 86_400)), 401],
      ['dated a day ahead', () => deliver(envelope, signed(envelope, now() + 86_400)), 401],
      ['truncated body, validly signed', () => deliver(truncated, signed(truncated)), 400],
      ['not JSON, validly signed', () => deliver('<xml/>', signed('<xml/>')), 400],
      ['NUL bytes, validly signed', () => deliver('\u0000\u0000', signed('\u0000\u0000')), 400],
      ['JSON array, validly signed', () => deliver('[]', signed('[]')), 400],
      [
        'envelope with an injected object id, validly signed',
        () => {
          const body = envelope.replace(paymentId, "'; DROP TABLE entries; --");
          return deliver(body, signed(body));
        },
        400,
      ],
      [
        'text/plain content type',
        () => deliver(envelope, { ...signed(envelope), 'content-type': 'text/plain' }),
        415,
      ],
      [
        'oversized (1 MiB), validly signed',
        () => {
          const body = JSON.stringify({ pad: 'x'.repeat(1024 * 1024) });
          return deliver(body, signed(body));
        },
        413,
      ],
    ];
    const outcomes: Record<string, number> = {};
    for (const [name, send] of cases) outcomes[name] = (await send()).status;
    expect(outcomes).toEqual(Object.fromEntries(cases.map(([name, , status]) => [name, status])));
    expect(await world()).toEqual(before);
  });

  it('answers 401 without the command key and 400 to hostile command bodies and ids, starting no workflow and booking nothing', async () => {
    const before = await world();
    const command = (urlPath: string, body: string | undefined, headers: Record<string, string> = {}) =>
      raw(commands.address, 'POST', urlPath, {
        headers: {
          authorization: `Bearer ${commandKey}`,
          'content-type': 'application/json',
          ...headers,
        },
        ...(body === undefined ? {} : { body }),
      });
    const external = `/commands/paymentLinks/${linkId}/externalPayments`;
    const cases: [string, () => ReturnType<typeof command>, number[]][] = [
      [
        'no key',
        () =>
          raw(commands.address, 'POST', external, {
            headers: { 'content-type': 'application/json' },
            body: '{"amountCents":1,"paidAt":"2026-01-02"}',
          }),
        [401],
      ],
      [
        'wrong key',
        () =>
          command(external, '{"amountCents":1,"paidAt":"2026-01-02"}', {
            authorization: `Bearer ${commandKey}x`,
          }),
        [401],
      ],
      [
        'key as Basic',
        () =>
          command(external, '{"amountCents":1,"paidAt":"2026-01-02"}', {
            authorization: `Basic ${commandKey}`,
          }),
        [401],
      ],
      [
        'emulator key instead',
        () =>
          command(external, '{"amountCents":1,"paidAt":"2026-01-02"}', {
            authorization: `Bearer ${stack.apiKey}`,
          }),
        [401],
      ],
    ];
    for (const amount of [huge, '-1', '0', '1.5', '"100"', 'null']) {
      cases.push([
        `amountCents ${amount}`,
        () => command(external, `{"amountCents":${amount},"paidAt":"2026-01-02"}`),
        [400],
      ]);
      cases.push([
        `debit memo amountCents ${amount}`,
        () =>
          command(
            `/commands/paymentLinks/${linkId}/debitMemos`,
            `{"amountCents":${amount},"description":"fee"}`,
          ),
        [400],
      ]);
    }
    cases.push(
      [
        'reference of 256 characters',
        () =>
          command(
            external,
            JSON.stringify({ amountCents: 1, paidAt: '2026-01-02', externalReferenceId: 'r'.repeat(256) }),
          ),
        [400],
      ],
      [
        'impossible date',
        () => command(external, JSON.stringify({ amountCents: 1, paidAt: '2026-02-30' })),
        [400],
      ],
      [
        'unknown field',
        () =>
          command(
            external,
            JSON.stringify({ amountCents: 1, paidAt: '2026-01-02', account: 'operating-bank' }),
          ),
        [400],
      ],
      ['truncated JSON', () => command(external, '{"amountCents":1,'), [400]],
      // The command API parses text/plain as a string, which its zod body refuses: 400 (the webhook route says 415).
      [
        'wrong content type',
        () => command(external, 'amountCents=1', { 'content-type': 'text/plain' }),
        [400, 415],
      ],
      [
        'oversized body',
        () =>
          command(
            external,
            JSON.stringify({
              amountCents: 1,
              paidAt: '2026-01-02',
              externalReferenceId: 'x'.repeat(2 * 1024 * 1024),
            }),
          ),
        [413],
      ],
      [
        'Idempotency-Key of 256 characters',
        () =>
          command(external, '{"amountCents":1,"paidAt":"2026-01-02"}', {
            'idempotency-key': 'k'.repeat(256),
          }),
        [400],
      ],
    );
    for (const evil of [injections[0], injections[2], injections[5], 'a b', 'a#b', 'a,b']) {
      const segment = encodeURIComponent(evil as string);
      cases.push([
        `link id ${JSON.stringify(evil).slice(0, 24)}`,
        () =>
          command(
            `/commands/paymentLinks/${segment}/externalPayments`,
            '{"amountCents":1,"paidAt":"2026-01-02"}',
          ),
        [400, 404, 414],
      ]);
      cases.push([
        `deposit id ${JSON.stringify(evil).slice(0, 24)}`,
        () => command(`/commands/checkDeposits/${segment}/apply`, JSON.stringify({ paymentLinkId: linkId })),
        [400, 404, 414],
      ]);
    }
    const outcomes: Record<string, number> = {};
    for (const [name, send] of cases) outcomes[name] = (await send()).status;
    const wrong = cases.filter(([name, , status]) => !status.includes(outcomes[name] as number));
    expect(wrong.map(([name, , status]) => `${name}: ${outcomes[name]} (want ${status.join('|')})`)).toEqual(
      [],
    );
    expect(await world()).toEqual(before);
  });

  // Ids end up in workflow ids: a NUL in a path id once started a workflow for a link that cannot exist.
  it('refuses command ids with control characters (NUL) with 400, starting no workflow', async () => {
    const before = await workflowCount();
    const response = await raw(
      commands.address,
      'POST',
      `/commands/paymentLinks/${encodeURIComponent('abc\u0000def')}/sync`,
      {
        headers: { authorization: `Bearer ${commandKey}`, 'content-type': 'application/json' },
        body: '{}',
      },
    );
    expect(response.status).toBe(400);
    expect(await workflowCount()).toBe(before);
  });
});
