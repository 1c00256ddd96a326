import { defaultAccountCodes } from '../src/accounting/targets/account-mapping.js';
import { RealmLimiter } from '../src/accounting/targets/oauth/limiter.js';
import { TokenCipher } from '../src/accounting/targets/oauth/token-cipher.js';
import type { SealedTokenStorage } from '../src/accounting/targets/oauth/token-store.js';
import type { TargetDocument } from '../src/accounting/targets/target-port.js';
import { XERO_LIMITS, XeroTarget, XeroTokenStore } from '../src/accounting/targets/xero/index.js';
import { XeroDouble } from '../test/support/xero/double.js';

// Stage: a backlog pushed to Xero (the test double, 20 ms a request, held to xero_accounting.yaml) under
// Xero's limits per organisation, 60 calls a minute and 5 in flight (and 5,000 a day), held by the target's
// limiter; batched (pushMany: one create call for many invoices, payments, bank transactions) and one by one
// (push; the baseline, same run). The minute is compressed tenfold on both sides (6 calls per 6 s, the same
// rate), and the double asserts the limits. The backlog is a business's, as the quickbooks stage's: 12
// customers, per link an invoice, its payment and the card fee, and a payout every ten payments. Reported:
// calls per booked payment (its invoice, payment and fee, and a tenth of a payout), payments per minute at
// Xero's rate, and how many payments a day the 5,000 calls allow.

export interface XeroPushResult {
  payments: number;
  entries: number;
  /** Payments of the one-by-one baseline (at most 10: it runs at one call a second). */
  oneByOnePayments: number;
  limitCallsPerMinute: number;
  limitCallsPerDay: number;
  batched: { paymentsPerMinute: number; callsPerPayment: number; paymentsPerDay: number };
  oneByOne: { paymentsPerMinute: number; callsPerPayment: number; paymentsPerDay: number };
  /** batched / one by one payments per minute. */
  ratio: number;
  maxInFlight: number;
  /** Most calls the double saw in one (compressed) minute, scaled back to a real minute. */
  maxPerMinute: number;
  breaches: number;
}

const compression = 10;

function backlog(run: string, links: number): TargetDocument[] {
  const date = new Date().toISOString().slice(0, 10);
  const docs: TargetDocument[] = [];
  const hash = (c: string) => c.repeat(64);
  for (let i = 0; i < links; i++) {
    const customer = {
      serviceId: `cus_${run}_${i % 12}`,
      name: `Bench Customer ${run} ${i % 12}`,
      email: null,
    };
    const invoice = { paymentLinkId: `pl_${run}_${i}`, number: `B${run}-${i}` };
    docs.push({
      key: `invoice:pl_${run}_${i}`,
      kind: 'invoice',
      date,
      description: 'Bench invoice',
      amountCents: 100_00,
      lines: [
        { role: 'AccountsReceivable', amountCents: 100_00 },
        { role: 'Revenue', amountCents: -100_00 },
      ],
      contentHash: hash('a'),
      invoice,
      customer,
    });
    docs.push({
      key: `payment:pay_${run}_${i}`,
      kind: 'payment',
      date,
      description: 'Bench payment',
      amountCents: 100_00,
      lines: [
        { role: 'ProcessorClearing', amountCents: 100_00 },
        { role: 'AccountsReceivable', amountCents: -100_00 },
      ],
      contentHash: hash('b'),
      invoice,
      customer,
    });
    docs.push({
      key: `payment-fee:pay_${run}_${i}`,
      kind: 'payment-fee',
      date,
      description: 'Bench card fee',
      amountCents: 3_20,
      lines: [
        { role: 'ProcessingFees', amountCents: 3_20 },
        { role: 'ProcessorClearing', amountCents: -3_20 },
      ],
      contentHash: hash('c'),
    });
    if (i % 10 === 9) {
      docs.push({
        key: `disbursement-paid:po_${run}_${i}`,
        kind: 'disbursement-paid',
        date,
        description: 'Bench payout',
        amountCents: 968_00,
        lines: [
          { role: 'OperatingBank', amountCents: 968_00 },
          { role: 'ProcessorClearing', amountCents: -968_00 },
        ],
        contentHash: hash('d'),
      });
    }
  }
  return docs;
}

export async function benchXeroPush(options: {
  links: number;
  progress: (line: string) => void;
}): Promise<XeroPushResult> {
  const windowMs = 60_000 / compression;
  const perMinute = XERO_LIMITS.perMinute / compression;
  const double = await new XeroDouble({
    latencyMs: 20,
    limits: { concurrent: XERO_LIMITS.concurrent, perMinute, perDay: XERO_LIMITS.perDay, windowMs },
  }).start();
  const cipher = new TokenCipher('bench-secret-for-the-sealed-token');
  try {
    const run = async (
      label: string,
      links: number,
      push: (target: XeroTarget, docs: TargetDocument[]) => Promise<void>,
    ) => {
      const tenantId = double.createTenant(`bench ${label}`);
      let sealed = cipher.seal(double.connect(tenantId));
      const storage: SealedTokenStorage = {
        load: async () => sealed,
        save: async (next) => {
          sealed = next;
        },
      };
      const target = new XeroTarget({
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
        matching: 'create',
        limiter: new RealmLimiter({
          perMinute,
          concurrent: XERO_LIMITS.concurrent,
          perDay: XERO_LIMITS.perDay,
          windowMs,
          // Arrival jitter on a loaded machine is not compressed: half a second of margin on 6 s.
          marginMs: 500,
        }),
      });
      await target.verify();
      const docs = backlog(`${label}${Date.now().toString(36)}`, links);
      const callsBefore = double.stats(tenantId).calls;
      const started = performance.now();
      await push(target, docs);
      // The same rate as Xero's (a tenth of the calls in a tenth of the minute): elapsed time is real time.
      const minutes = (performance.now() - started) / 60_000;
      const stats = double.stats(tenantId);
      const calls = stats.calls - callsBefore;
      if (double.violations.length > 0)
        throw new Error(`contract violations: ${double.violations.join('; ')}`);
      options.progress(`xero ${label}: ${docs.length} entries (${links} payments), ${calls} calls`);
      const callsPerPayment = Math.round((calls / links) * 100) / 100;
      return {
        entries: docs.length,
        paymentsPerMinute: Math.round((links / minutes) * 10) / 10,
        callsPerPayment,
        paymentsPerDay: Math.floor(XERO_LIMITS.perDay / callsPerPayment),
        maxInFlight: stats.maxInFlight,
        maxPerMinute: stats.maxPerMinute * compression,
        breaches: stats.breaches.length,
      };
    };
    // The push workflow's slices: a hundred entries at a time.
    const batched = await run('batched', options.links, async (target, docs) => {
      for (let i = 0; i < docs.length; i += 100) {
        for (const outcome of await target.pushMany(docs.slice(i, i + 100), { pushed: () => null }))
          if (outcome instanceof Error) throw outcome;
      }
    });
    // One by one costs ten times the calls at one call a second: measured on at most 10 payments.
    const oneByOne = await run('one-by-one', Math.min(options.links, 10), async (target, docs) => {
      for (const doc of docs) await target.push(doc, { pushed: () => null });
    });
    const shape = (r: typeof batched) => ({
      paymentsPerMinute: r.paymentsPerMinute,
      callsPerPayment: r.callsPerPayment,
      paymentsPerDay: r.paymentsPerDay,
    });
    return {
      payments: options.links,
      entries: batched.entries,
      oneByOnePayments: Math.min(options.links, 10),
      limitCallsPerMinute: XERO_LIMITS.perMinute,
      limitCallsPerDay: XERO_LIMITS.perDay,
      batched: shape(batched),
      oneByOne: shape(oneByOne),
      ratio: Math.round((batched.paymentsPerMinute / oneByOne.paymentsPerMinute) * 100) / 100,
      maxInFlight: Math.max(batched.maxInFlight, oneByOne.maxInFlight),
      maxPerMinute: Math.max(batched.maxPerMinute, oneByOne.maxPerMinute),
      breaches: batched.breaches + oneByOne.breaches,
    };
  } finally {
    await double.stop();
  }
}
