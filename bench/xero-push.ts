import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { defaultAccountCodes } from '../src/targets/account-mapping.js';
import { RealmLimiter } from '../src/targets/oauth/limiter.js';
import { TokenCipher } from '../src/targets/oauth/token-cipher.js';
import { XERO_LIMITS, XeroTarget, XeroTokenStore } from '../src/targets/xero/index.js';
import { xeroBooksyncChart } from '../test/support/booksync-charts.js';
import { SealedTokenInMemory } from '../test/support/sealed-token-in-memory.js';
import { batched, compression, oneByOne, type PushWay, timedPush } from './target-push.js';

// Stage: a backlog pushed to Xero (the test double, 20 ms a request, held to xero_accounting.yaml and Xero's
// rules) under Xero's limits per organisation, 60 calls a minute and 5 in flight (and 5,000 in a rolling 24
// hours), held by the target's limiter, which also follows the double's X-...Limit-Remaining headers; batched (pushMany: one create call for many invoices, payments, bank transactions) and one by one
// (push; the baseline, same run). The minute is compressed tenfold on both sides (6 calls per 6 s, the same
// rate), and the double asserts the limits. The backlog is a business's, as the quickbooks stage's: 12
// customers, per link an invoice, its payment and the card fee, and a payout every ten payments. Reported:
// calls per booked payment (its invoice, payment and fee, and a tenth of a payout), payments per minute at
// Xero's rate, and how many payments a day the 5,000 calls allow.

export interface XeroPushResult {
  payments: number;
  entries: number;
  /** Payments of the one-by-one baseline (at most 10, 4 in a quick run: it runs at one call a second). */
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

export async function benchXeroPush(options: {
  links: number;
  /** Payments of the one-by-one baseline (it runs at one call a second: a quick run takes fewer). */
  oneByOneLinks: number;
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
    const run = async (label: string, links: number, way: PushWay) => {
      // booksync's accounts already in place: the bench measures the push, not set-up.
      const tenantId = double.createTenant(`bench ${label}`, { chart: xeroBooksyncChart });
      const target = new XeroTarget({
        baseUrl: double.url,
        tenantId,
        tokenStore: new XeroTokenStore({
          tokenUrl: `${double.url}/connect/token`,
          clientId: double.clientId,
          clientSecret: double.clientSecret,
          storage: new SealedTokenInMemory(cipher.seal(double.connect(tenantId))),
          cipher,
        }),
        accounts: defaultAccountCodes,
        matching: 'create',
        limiter: new RealmLimiter({
          perMinute,
          concurrent: XERO_LIMITS.concurrent,
          perDay: XERO_LIMITS.perDay,
          dayWindowMs: XERO_LIMITS.dayWindowMs,
          windowMs,
          // Arrival jitter on a loaded machine is not compressed: half a second of margin on 6 s.
          marginMs: 500,
        }),
      });
      // The same rate as Xero's (a tenth of the calls in a tenth of the minute): elapsed time is real time.
      const {
        entries,
        minutes,
        requests: calls,
      } = await timedPush(target, label, links, way, {
        requests: () => double.stats(tenantId).calls,
        violations: double.violations,
        contract: 'contract',
      });
      const stats = double.stats(tenantId);
      options.progress(`xero ${label}: ${entries} entries (${links} payments), ${calls} calls`);
      const callsPerPayment = Math.round((calls / links) * 100) / 100;
      return {
        entries,
        paymentsPerMinute: Math.round((links / minutes) * 10) / 10,
        callsPerPayment,
        paymentsPerDay: Math.floor(XERO_LIMITS.perDay / callsPerPayment),
        maxInFlight: stats.maxInFlight,
        maxPerMinute: stats.maxPerMinute * compression,
        breaches: stats.breaches.length,
      };
    };
    const batchedRun = await run('batched', options.links, batched);
    // One by one costs ten times the calls at one call a second: measured on at most 10 payments.
    const oneByOneRun = await run('one-by-one', Math.min(options.links, options.oneByOneLinks), oneByOne);
    const shape = (r: typeof batchedRun) => ({
      paymentsPerMinute: r.paymentsPerMinute,
      callsPerPayment: r.callsPerPayment,
      paymentsPerDay: r.paymentsPerDay,
    });
    return {
      payments: options.links,
      entries: batchedRun.entries,
      oneByOnePayments: Math.min(options.links, options.oneByOneLinks),
      limitCallsPerMinute: XERO_LIMITS.perMinute,
      limitCallsPerDay: XERO_LIMITS.perDay,
      batched: shape(batchedRun),
      oneByOne: shape(oneByOneRun),
      ratio: Math.round((batchedRun.paymentsPerMinute / oneByOneRun.paymentsPerMinute) * 100) / 100,
      maxInFlight: Math.max(batchedRun.maxInFlight, oneByOneRun.maxInFlight),
      maxPerMinute: Math.max(batchedRun.maxPerMinute, oneByOneRun.maxPerMinute),
      breaches: batchedRun.breaches + oneByOneRun.breaches,
    };
  } finally {
    await double.stop();
  }
}
