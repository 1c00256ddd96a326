import { markerTextOf, XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/logging/logger.js';
import { verifyOrWait } from '../../../src/runtime/targets/accounting-targets.js';
import { type AccountRole, defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import { TargetUnavailableError } from '../../../src/targets/errors.js';
import { markersIn } from '../../../src/targets/markers.js';
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
import { describeTargetContract, documentsForContract } from '../target-contract.js';

// The Xero adapter (xero-node's AccountingApi) against the stateful double, which holds every request and
// answer to Xero's OpenAPI document (double.violations stays empty) and counts Xero's limits. The minute is
// compressed to a second on both sides (limiter and double), so the tests keep Xero's 60-a-minute shape
// without waiting minutes.

const windowMs = 1_000;
const double = new XeroDouble({
  latencyMs: 3,
  limits: { concurrent: 5, perMinute: 60, perDay: 5_000, windowMs },
});
const cipher = new TokenCipher('test-secret-for-xero-refresh-tokens');
const noIndex: PushContext = { mayExist: () => true, refusals: () => 0, pushed: () => null };

interface Organisation {
  tenantId: string;
  storage: SealedTokenInMemory;
  limiter: RealmLimiter;
  target(matching?: MatchingPolicy): XeroTarget;
}

function organisation(limiter?: RealmLimiter): Organisation {
  // booksync's accounts already in place: these tests are about the adapter's documents, not set-up.
  const tenantId = double.createTenant(undefined, { chart: xeroBooksyncChart });
  const storage = new SealedTokenInMemory(cipher.seal(double.connect(tenantId)));
  const shared =
    limiter ?? new RealmLimiter({ perMinute: 60, concurrent: 5, perDay: 5_000, windowMs, marginMs: 50 });
  return {
    tenantId,
    storage,
    limiter: shared,
    target(matching: MatchingPolicy = 'create') {
      return new XeroTarget({
        baseUrl: double.url,
        tenantId,
        tokenStore: new XeroTokenStore({
          tokenUrl: `${double.url}/connect/token`,
          clientId: double.clientId,
          clientSecret: double.clientSecret,
          storage,
          cipher,
        }),
        accounts: defaultAccountCodes,
        matching,
        limiter: shared,
      });
    },
  };
}

/** What the push activity does under Temporal: TargetUnavailableError is retried. */
async function pushRetried(target: XeroTarget, doc: TargetDocument, context: PushContext = noIndex) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await target.push(doc, context);
    } catch (error) {
      if (!(error instanceof TargetUnavailableError) || attempt > 30) throw error;
    }
  }
}

/** Records at Xero carrying the key's marker; a reversal is its original's cancelled status. */
function countByKey(tenantId: string, key: string): number {
  if (key.startsWith('reversal:')) {
    const original = key.slice('reversal:'.length);
    return double
      .booked(tenantId)
      .filter(
        (d) =>
          markersIn(markerTextOf(d)).some((m) => m.key === original) &&
          ['DELETED', 'VOIDED'].includes(String(d.Status)),
      ).length;
  }
  return double.booked(tenantId).filter((d) => markersIn(markerTextOf(d)).some((m) => m.key === key)).length;
}

const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';

beforeAll(async () => {
  await double.start();
}, 60_000);

afterAll(async () => {
  await double.stop();
});

afterEach(() => {
  double.calm();
  const violations = double.violations.splice(0);
  expect(violations).toEqual([]);
});

describeTargetContract('xero (double held to xero_accounting.yaml)', () => {
  const org = organisation();
  return {
    target: org.target(),
    fresh: async () => org.target(),
    countByKey: async (key) => countByKey(org.tenantId, key),
    reversedAt: async (ids) => ids.map((id) => id.replace(/^deleted:/, '')),
  };
});

/** A business's documents for one link, built by hand like the ledger's. */
function day(run: string) {
  const customer = { serviceId: `cus_${run}`, name: `Amy Lane ${run}`, email: `amy-${run}@example.test` };
  const vendor = { serviceId: `ven_${run}`, name: `Paper Co ${run}`, email: null };
  const invoice = { paymentLinkId: `pl_${run}`, number: `INV-${run}` };
  let n = 0;
  const doc = (
    kind: TargetDocument['kind'],
    id: string,
    lines: [AccountRole, number][],
    extra: Partial<TargetDocument> = {},
  ): TargetDocument => ({
    key: `${kind}:${id}`,
    kind,
    date: '2026-11-03',
    description: `${kind} ${id}`,
    amountCents: lines.reduce((s, [, c]) => s + Math.max(c, 0), 0),
    lines: lines.map(([role, amountCents]) => ({ role, amountCents })),
    contentHash: (n++).toString(16).padStart(64, '0'),
    invoice,
    customer,
    ...extra,
  });
  const bill = { billId: `bill_${run}`, number: `PO-${run}` };
  return {
    invoice: doc('invoice', `pl_${run}`, [
      ['AccountsReceivable', 200_00],
      ['Revenue', -200_00],
    ]),
    payment: doc('payment', `pay_${run}`, [
      ['ProcessorClearing', 120_00],
      ['AccountsReceivable', -120_00],
    ]),
    fee: doc('payment-fee', `pay_${run}`, [
      ['ProcessingFees', 3_78],
      ['ProcessorClearing', -3_78],
    ]),
    check: doc('external-payment', `ext_${run}`, [
      ['ChecksToDeposit', 80_00],
      ['AccountsReceivable', -80_00],
    ]),
    refund: doc('refund', `re_${run}`, [
      ['Refunds', 20_00],
      ['ProcessorClearing', -20_00],
    ]),
    reopen: doc('refund-reopen', `re_${run}`, [
      ['AccountsReceivable', 20_00],
      ['Refunds', -20_00],
    ]),
    memo: doc('debit-memo', `dm_${run}`, [
      ['AccountsReceivable', 15_00],
      ['FeeIncome', -15_00],
    ]),
    writeOff: doc('invoice-adjustment', `pl_${run}:1`, [
      ['Revenue', 5_00],
      ['AccountsReceivable', -5_00],
    ]),
    payout: doc('disbursement-pending', `po_${run}`, [
      ['PayoutsInTransit', 96_22],
      ['ProcessorClearing', -96_22],
    ]),
    paid: doc('disbursement-paid', `po_${run}`, [
      ['OperatingBank', 96_22],
      ['PayoutsInTransit', -96_22],
    ]),
    bill: doc(
      'bill',
      `bill_${run}`,
      [
        ['BillExpenses', 300_00],
        ['AccountsPayable', -300_00],
      ],
      { invoice: undefined, customer: undefined, bill, vendor },
    ),
    billPayment: doc(
      'bill-payment-sent',
      `bp_${run}`,
      [
        ['AccountsPayable', 300_00],
        ['OutgoingPaymentsClearing', -300_00],
      ],
      { invoice: undefined, customer: undefined, bill, vendor },
    ),
    cashed: doc(
      'bill-payment-paid',
      `bp_${run}`,
      [
        ['OutgoingPaymentsClearing', 300_00],
        ['OperatingBank', -300_00],
      ],
      { invoice: undefined, customer: undefined, bill, vendor },
    ),
  };
}

function reversalOf(doc: TargetDocument): TargetDocument {
  return {
    ...doc,
    key: `reversal:${doc.key}`,
    kind: 'reversal',
    lines: doc.lines.map((l) => ({ ...l, amountCents: -l.amountCents })),
    contentHash: 'e'.repeat(64),
    reverses: doc.key,
    reason: 'payment.failed',
  };
}

describe('Xero target (the double)', { timeout: 60_000 }, () => {
  it('books each kind of entry as its Xero document, balances equal to the lines, AmountDue moving with payments', async () => {
    const org = organisation();
    const target = org.target();
    const docs = day('k1');
    const results: Record<string, PushResult> = {};
    const index = new Map<string, RemoteRecord>();
    const context: PushContext = {
      mayExist: () => true,
      refusals: () => 0,
      pushed: (k) => index.get(k) ?? null,
    };
    for (const [name, doc] of Object.entries(docs)) {
      results[name] = await target.push(doc, context);
      index.set(doc.key, results[name] as RemoteRecord);
    }
    const entity = (name: string) => results[name]?.remoteIds[0]?.split(':')[0];
    expect(Object.fromEntries(Object.keys(docs).map((n) => [n, entity(n)]))).toEqual({
      invoice: 'Invoice',
      payment: 'Payment',
      fee: 'BankTransaction',
      check: 'Payment',
      refund: 'BankTransaction',
      reopen: 'Invoice',
      memo: 'Invoice',
      writeOff: 'CreditNote',
      payout: 'BankTransfer',
      paid: 'BankTransfer',
      bill: 'Invoice',
      billPayment: 'Payment',
      cashed: 'BankTransfer',
    });
    const invoice = double.get(org.tenantId, 'Invoices', idOf(results.invoice?.remoteIds[0]));
    expect(invoice).toMatchObject({
      Type: 'ACCREC',
      InvoiceNumber: 'INV-k1',
      Status: 'PAID',
      AmountDue: 0,
    });
    const bill = double.get(org.tenantId, 'Invoices', idOf(results.bill?.remoteIds[0]));
    expect(bill).toMatchObject({ Type: 'ACCPAY', InvoiceNumber: 'PO-k1', Status: 'PAID', AmountDue: 0 });
    const fee = double.get(org.tenantId, 'BankTransactions', idOf(results.fee?.remoteIds[0]));
    expect(fee).toMatchObject({ Type: 'SPEND', BankAccount: { Code: '1020' } });
    expect((fee?.Contact as { Name: string } | undefined)?.Name).toBe('Card processor (booksync)');

    // Every account equals the sum of the documents' lines, role by role.
    const expected = new Map<string, number>();
    for (const doc of Object.values(docs))
      for (const line of doc.lines) {
        const code = defaultAccountCodes[line.role];
        expected.set(code, (expected.get(code) ?? 0) + line.amountCents);
      }
    for (const [code, cents] of expected)
      expect([code, double.balanceOf(org.tenantId, code)]).toEqual([code, cents]);

    // The payment fails (an ACH return): DELETED, and the invoice is owed again.
    const returned = await target.push(reversalOf(docs.payment), context);
    expect(returned.remoteIds).toEqual([`deleted:${results.payment?.remoteIds[0]}`]);
    expect(double.get(org.tenantId, 'Payments', idOf(results.payment?.remoteIds[0]))?.Status).toBe('DELETED');
    expect(double.get(org.tenantId, 'Invoices', idOf(results.invoice?.remoteIds[0]))).toMatchObject({
      Status: 'AUTHORISED',
      AmountDue: 120,
    });
    // The bill payment's check is returned: the bill is owed again.
    await target.push(reversalOf(docs.billPayment), context);
    expect(double.get(org.tenantId, 'Invoices', idOf(results.bill?.remoteIds[0]))).toMatchObject({
      Status: 'AUTHORISED',
      AmountDue: 300,
    });
    // Every write carried an Idempotency-Key of at most 128 characters.
    const writes = double.requests.filter((r) => r.tenantId === org.tenantId && r.method !== 'GET');
    expect(writes.length).toBeGreaterThan(10);
    expect(writes.every((w) => w.idempotencyKey && w.idempotencyKey.length <= 128)).toBe(true);
  });

  it('replays a create whose answer was lost, and finds what a crashed worker created: one document per key', async () => {
    const org = organisation();
    const docs = day('k2');
    await org.target().push(docs.invoice, noIndex);
    double.loseResponses(1);
    const first = await org
      .target()
      .push(docs.payment, noIndex)
      .catch((e: Error) => e);
    expect(first).toBeInstanceOf(TargetUnavailableError);
    // The retry looks the key up first and finds the payment the lost answer was about.
    const again = await pushRetried(org.target(), docs.payment);
    expect(again.created).toBe(false);
    expect(countByKey(org.tenantId, docs.payment.key)).toBe(1);
    // Same Idempotency-Key, same answer: a replay is not a second document.
    const key = double.requests.filter(
      (r) => r.tenantId === org.tenantId && r.method === 'PUT' && r.url.startsWith('/api.xro/2.0/Payments?'),
    )[0]?.idempotencyKey as string;
    const token = await fetch(`${double.url}/connect/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${double.clientId}:${double.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: cipher.open(org.storage.sealed as string),
      }),
    }).then((r) => r.json() as Promise<{ access_token: string; refresh_token: string }>);
    org.storage.sealed = cipher.seal(token.refresh_token);
    const payments = double.all(org.tenantId, 'Payments');
    const replay = await fetch(`${double.url}/api.xro/2.0/Payments?summarizeErrors=false`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${token.access_token}`,
        'xero-tenant-id': org.tenantId,
        'idempotency-key': key,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        Payments: [
          {
            Invoice: { InvoiceID: (payments[0]?.Invoice as { InvoiceID: string } | undefined)?.InvoiceID },
            Amount: 1,
          },
        ],
      }),
    });
    expect(replay.status).toBe(200);
    expect(((await replay.json()) as { Payments: { PaymentID: string }[] }).Payments[0]?.PaymentID).toBe(
      payments[0]?.PaymentID,
    );
    expect(double.all(org.tenantId, 'Payments')).toHaveLength(1);
  });

  it('retries a 429 after its Retry-After, and refuses with Xero’s own validation message', async () => {
    const org = organisation();
    const target = org.target();
    const docs = day('k3');
    double.throttle(1);
    const throttled = await target.push(docs.invoice, noIndex).catch((e: Error) => e);
    expect(throttled).toBeInstanceOf(TargetUnavailableError);
    expect((throttled as TargetUnavailableError).retryAfterMs).toBe(1_000);
    expect((throttled as Error).message).toMatch(/throttled \(minute limit\)/);
    await pushRetried(target, docs.invoice);

    double.refuseNext('The document date cannot be before the period lock date.');
    const refused = (await target.push(docs.payment, noIndex).catch((e: Error) => e)) as Error;
    expect(refused?.name).toBe('TargetRefusedError');
    expect(refused?.message).toBe(
      'xero refused: ValidationException: The document date cannot be before the period lock date.',
    );
    // A journal touching the receivable (Xero's system account) is Xero's refusal too, in Xero's words.
    const odd: TargetDocument = {
      ...docs.payment,
      key: 'invoice-adjustment:odd_k3:1',
      kind: 'invoice-adjustment',
      amountCents: 2_00,
      lines: [
        { role: 'ProcessingFees', amountCents: 1_00 },
        { role: 'Revenue', amountCents: 1_00 },
        { role: 'AccountsReceivable', amountCents: -2_00 },
      ],
    };
    const system = (await target.push(odd, noIndex).catch((e: Error) => e)) as Error;
    expect(system?.name).toBe('TargetRefusedError');
    expect(system?.message).toMatch(/ValidationException: .*system account/);
  });

  it('holds the contract: a wrong field type and a missing required property are caught and answered 400', async () => {
    const org = organisation();
    const token = await fetch(`${double.url}/connect/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${double.clientId}:${double.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: cipher.open(org.storage.sealed as string),
      }),
    }).then((r) => r.json() as Promise<{ access_token: string; refresh_token: string }>);
    org.storage.sealed = cipher.seal(token.refresh_token);
    const send = (body: unknown) =>
      fetch(`${double.url}/api.xro/2.0/BankTransfers`, {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${token.access_token}`,
          'xero-tenant-id': org.tenantId,
          'idempotency-key': `bs-contract-${Math.random()}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
      });
    const wrongType = await send({
      BankTransfers: [
        { FromBankAccount: { Code: '1020' }, ToBankAccount: { Code: '1030' }, Amount: '12.00' },
      ],
    });
    const missing = await send({
      BankTransfers: [{ FromBankAccount: { Code: '1020' }, ToBankAccount: { Code: '1030' } }],
    });
    expect([wrongType.status, missing.status]).toEqual([400, 400]);
    const messageOf = async (r: Response) =>
      ((await r.json()) as { Elements: { ValidationErrors: { Message: string }[] }[] }).Elements[0]
        ?.ValidationErrors[0]?.Message;
    const messages = [await messageOf(wrongType), await messageOf(missing)];
    expect(messages[0]).toMatch(/contract violation: .*Amount: expected number, got "12.00"/);
    expect(messages[1]).toMatch(/contract violation: .*missing required property Amount/);
    expect(double.violations).toHaveLength(2);
    expect(double.all(org.tenantId, 'BankTransfers')).toHaveLength(0);
    double.violations.length = 0;
  });

  it('pushes a backlog in batches inside 5 in flight and 60 a minute; a second run finds everything', async () => {
    const org = organisation();
    const backlog = Array.from({ length: 12 }, (_, i) => day(`b${i}`)).flatMap((d) => [
      d.invoice,
      d.payment,
      d.fee,
    ]);
    const before = double.stats(org.tenantId).calls;
    const outcomes = await org.target().pushMany(backlog, noIndex);
    expect(outcomes.filter((o) => o instanceof Error)).toEqual([]);
    const stats = double.stats(org.tenantId);
    const batchedCalls = stats.calls - before;
    // Looked up and created a few requests per entity, not per document (36 documents, 12 customers).
    expect(stats.batches).toBeGreaterThanOrEqual(3);
    expect(batchedCalls).toBeLessThan(backlog.length);
    expect(stats.maxInFlight).toBeLessThanOrEqual(5);
    expect(stats.maxPerMinute).toBeLessThanOrEqual(60);
    expect(stats.breaches).toEqual([]);
    for (const d of backlog) expect(countByKey(org.tenantId, d.key)).toBe(1);
    const again = await org.target().pushMany(backlog, noIndex);
    expect(again.every((o) => !(o instanceof Error) && o.created === false)).toBe(true);
    expect(double.stats(org.tenantId).creates).toBe(stats.creates);
    const paid = double.all(org.tenantId, 'Invoices').filter((i) => i.Type === 'ACCREC');
    expect(paid.map((i) => i.AmountDue)).toEqual(paid.map(() => 80));
  });

  it('keeps 5 in flight under concurrent pushes, and flags the daily limit before it is spent', async () => {
    const flagged: unknown[] = [];
    const limiter = new RealmLimiter({
      perMinute: 60,
      concurrent: 5,
      perDay: 40,
      dayWindowMs: 86_400_000,
      windowMs,
      marginMs: 50,
      onNearingDailyCap: (usage) => flagged.push(usage),
    });
    const org = organisation(limiter);
    const target = org.target();
    const docs = Array.from({ length: 6 }, (_, i) => day(`c${i}`).invoice);
    await Promise.all(docs.map((d) => target.push(d, noIndex)));
    const stats = double.stats(org.tenantId);
    expect(stats.maxInFlight).toBeLessThanOrEqual(5);
    expect(stats.breaches).toEqual([]);
    expect(flagged).toHaveLength(1);
    expect(target.dailyUsage()).toMatchObject({ limit: 40, nearingLimit: true });
    // What the push workflow shows (NeedsAttention, LastError) while pushes still go.
    expect(target.warning()).toMatch(/^Xero daily call limit nearly spent: \d+ of 40 calls in the last 24 h/);
    // Past the cap nothing is sent: the push waits until the first calls leave the rolling 24 hours.
    const more = Array.from({ length: 10 }, (_, i) => day(`d${i}`).invoice);
    const errors = await Promise.all(more.map((d) => target.push(d, noIndex).catch((e: Error) => e)));
    const capped = errors.find((e) => e instanceof TargetUnavailableError) as TargetUnavailableError;
    expect(capped.message).toMatch(/daily limit of 40 requests is spent/);
    expect(capped.retryAfterMs).toBeGreaterThan(86_400_000 - 60_000);
    expect(double.stats(org.tenantId).today).toBeLessThanOrEqual(40);
  });

  it('verifies a revoked connection as disconnected, not as a configuration problem: the worker starts (verifyOrWait)', async () => {
    const org = organisation();
    const target = org.target();
    double.revoke(org.tenantId);
    double.expireAccessTokens();
    const error = (await target.verify().catch((e: Error) => e)) as Error;
    expect(error?.name).toBe('TargetDisconnectedError');
    expect(await verifyOrWait(target, silentLogger)).toBe('waiting');
  });

  it('refreshes tokens invisibly; a revoked connection is flagged with the command, and recovers after reconnecting', async () => {
    const org = organisation();
    const target = org.target();
    const docs = day('k4');
    await target.push(docs.invoice, noIndex);
    const grants = double.refreshGrants;
    double.expireAccessTokens();
    await target.push(docs.payment, noIndex);
    expect(double.refreshGrants).toBe(grants + 1);

    double.revoke(org.tenantId);
    const error = (await target.push(docs.fee, noIndex).catch((e: Error) => e)) as Error;
    expect(error?.name).toBe('TargetDisconnectedError');
    expect(error?.message).toMatch(
      /Xero refused the connection \(invalid_grant\): run booksync targets connect xero/,
    );
    org.storage.sealed = cipher.seal(double.connect(org.tenantId));
    expect((await target.push(docs.fee, noIndex)).created).toBe(true);
  });

  it('books a payment the invoice cannot take (a link paid again after a refund reopened it) as the customer’s credit, one by one and batched', async () => {
    for (const how of ['push', 'pushMany'] as const) {
      const org = organisation();
      const d = day(`o${how}`);
      const full: TargetDocument = {
        ...d.payment,
        amountCents: 200_00,
        lines: [
          { role: 'ProcessorClearing', amountCents: 200_00 },
          { role: 'AccountsReceivable', amountCents: -200_00 },
        ],
      };
      const again: TargetDocument = {
        ...d.payment,
        key: `payment:again_${how}`,
        amountCents: 20_00,
        lines: [
          { role: 'ProcessorClearing', amountCents: 20_00 },
          { role: 'AccountsReceivable', amountCents: -20_00 },
        ],
      };
      const docs = [d.invoice, full, d.refund, d.reopen, again];
      const index = new Map<string, RemoteRecord>();
      const context: PushContext = {
        mayExist: () => true,
        refusals: () => 0,
        pushed: (k) => index.get(k) ?? null,
      };
      if (how === 'push') {
        for (const doc of docs) index.set(doc.key, await org.target().push(doc, context));
      } else {
        const outcomes = await org.target().pushMany(docs, context);
        expect(outcomes.filter((o) => o instanceof Error)).toEqual([]);
        for (const [i, o] of outcomes.entries())
          index.set((docs[i] as TargetDocument).key, o as RemoteRecord);
      }
      const credit = index.get(again.key)?.remoteIds[0] ?? '';
      expect(credit).toMatch(/^BankTransaction:/);
      expect(double.get(org.tenantId, 'BankTransactions', idOf(credit))).toMatchObject({
        Type: 'RECEIVE-OVERPAYMENT',
        Total: 20,
      });
      // The books still equal the lines, account by account; a second push finds the credit.
      for (const role of ['ProcessorClearing', 'AccountsReceivable', 'Revenue', 'Refunds'] as const) {
        const cents = docs
          .flatMap((doc) => doc.lines)
          .filter((l) => l.role === role)
          .reduce((sum, l) => sum + l.amountCents, 0);
        expect([role, double.balanceOf(org.tenantId, defaultAccountCodes[role])]).toEqual([role, cents]);
      }
      expect((await org.target().push(again, context)).created).toBe(false);
      expect(countByKey(org.tenantId, again.key)).toBe(1);
    }
  });

  it('books a sale with no invoice as receive money into the clearing account on Revenue, found again by key, one by one and batched', async () => {
    for (const how of ['push', 'pushMany'] as const) {
      const org = organisation();
      const d = day(`s${how}`);
      // A reusable link's payment (its customer known) and a payment on no link (no customer, no link).
      const onLink: TargetDocument = {
        ...d.payment,
        key: `sale:pay_s${how}_1`,
        kind: 'sale',
        amountCents: 25_00,
        lines: [
          { role: 'ProcessorClearing', amountCents: 25_00 },
          { role: 'Revenue', amountCents: -25_00 },
        ],
      };
      const { invoice: _i, customer: _c, ...bare } = onLink;
      const walkIn: TargetDocument = {
        ...bare,
        key: `sale:pay_s${how}_2`,
        amountCents: 40_00,
        lines: [
          { role: 'ProcessorClearing', amountCents: 40_00 },
          { role: 'Revenue', amountCents: -40_00 },
        ],
        contentHash: 'a'.repeat(64),
      };
      const docs = [onLink, walkIn];
      const results =
        how === 'push'
          ? [await org.target().push(onLink, noIndex), await org.target().push(walkIn, noIndex)]
          : await org.target().pushMany(docs, noIndex);
      expect(results.filter((r) => r instanceof Error)).toEqual([]);
      const [first, second] = results as PushResult[];
      expect(first?.remoteIds[0]).toMatch(/^BankTransaction:/);
      const received = double.get(org.tenantId, 'BankTransactions', idOf(first?.remoteIds[0]));
      expect(received).toMatchObject({
        Type: 'RECEIVE',
        BankAccount: { Code: defaultAccountCodes.ProcessorClearing },
        Total: 25,
        LineItems: [{ AccountCode: defaultAccountCodes.Revenue }],
      });
      expect((received?.Contact as { Name?: string } | undefined)?.Name).toBe(d.payment.customer?.name);
      const walked = double.get(org.tenantId, 'BankTransactions', idOf(second?.remoteIds[0]));
      expect(walked).toMatchObject({ Type: 'RECEIVE', Total: 40 });
      expect((walked?.Contact as { Name?: string } | undefined)?.Name).toBe('booksync unnamed customer');
      // Xero's books: the money in the clearing account, the sale in Revenue, nothing receivable.
      expect(double.balanceOf(org.tenantId, defaultAccountCodes.ProcessorClearing)).toBe(65_00);
      expect(double.balanceOf(org.tenantId, defaultAccountCodes.Revenue)).toBe(-65_00);
      expect(double.balanceOf(org.tenantId, defaultAccountCodes.AccountsReceivable)).toBe(0);
      // A second push, from a restarted worker: found by its marker, nothing made twice.
      expect(await org.target().push(onLink, noIndex)).toMatchObject({
        created: false,
        remoteIds: first?.remoteIds,
      });
      expect((await org.target().find(walkIn.key))?.remoteIds).toEqual(second?.remoteIds);
      for (const doc of docs) expect(countByKey(org.tenantId, doc.key)).toBe(1);
      // Returned in the same month (a failed ACH debit): the receive money is DELETED.
      await org.target().push({ ...reversalOf(walkIn), originalDate: walkIn.date }, noIndex);
      expect(double.get(org.tenantId, 'BankTransactions', idOf(second?.remoteIds[0]))?.Status).toBe(
        'DELETED',
      );
      expect(double.balanceOf(org.tenantId, defaultAccountCodes.ProcessorClearing)).toBe(25_00);
    }
  });

  it('numbers a second link of the same name apart, and adopts an invoice keyed in Xero under match-existing only', async () => {
    const org = organisation();
    const a = day('k5');
    const b = { ...day('k5b').invoice, invoice: { paymentLinkId: 'pl_k5b', number: 'INV-k5' } };
    await org.target().push(a.invoice, noIndex);
    const second = await org.target().push(b, noIndex);
    const numbered = double.get(org.tenantId, 'Invoices', idOf(second.remoteIds[0]));
    expect(String(numbered?.InvoiceNumber)).toMatch(/^INV-k5-[a-z2-7]{4}$/);

    const keyed = double.createTenant();
    void keyed;
    const c = day('k6');
    const contact = double.seed(org.tenantId, 'Contacts', { Name: 'Someone keyed', ContactStatus: 'ACTIVE' });
    const existing = double.seed(org.tenantId, 'Invoices', {
      Type: 'ACCREC',
      InvoiceNumber: 'INV-k6',
      Contact: { ContactID: contact.ContactID, Name: contact.Name },
      Status: 'AUTHORISED',
      LineItems: [],
      Total: 200,
      AmountDue: 200,
      AmountPaid: 0,
    });
    const refused = (await org
      .target('create')
      .push(c.invoice, noIndex)
      .catch((e: Error) => e)) as Error;
    expect(refused?.message).toMatch(/INV-k6 already exists in Xero .* 'create' does not adopt it/);
    const adopted = await org.target('match-existing').push(c.invoice, noIndex);
    expect(adopted).toMatchObject({ created: false, remoteIds: [`Invoice:${existing.InvoiceID}`] });
    expect(await org.target().find(c.invoice.key)).toMatchObject({
      remoteIds: [`Invoice:${existing.InvoiceID}`],
    });
  });
});

void documentsForContract;
