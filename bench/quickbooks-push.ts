import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { defaultAccountCodes } from '../src/targets/account-mapping.js';
import {
  OAuthTokenStore,
  QuickBooksLimiter,
  QuickBooksTarget,
  quickBooksBudget,
  TokenCipher,
} from '../src/targets/quickbooks/index.js';
import { quickBooksBooksyncChart } from '../test/support/booksync-charts.js';
import { SealedTokenInMemory } from '../test/support/sealed-token-in-memory.js';
import { batched, compression, oneByOne, type PushWay, timedPush } from './target-push.js';

// Stage: a backlog pushed to QuickBooks Online (the test double, 20 ms a request like a distant API) under
// QBO's limits (500 requests a minute, 10 a second, 10 in flight, 40 batch requests a minute), which the
// double enforces with a 429, with the batch endpoint and one by one (the baseline, same run). The
// limiter's minute is a tenth of a minute with a tenth of the requests and batches (50 and 4 per 6 s, the
// same rates, and within the double's real minute), so the limit binds from the first seconds instead of
// after a first minute's burst of 500; its second is QBO's. Every request refused for a limit is counted
// (refusedForLimit, expected 0). The backlog is a business's: 12 customers, per link an invoice, its
// payment and the card fee, and a payout every ten payments.

export interface QuickBooksPushResult {
  entries: number;
  /** QBO's own limit, requests per minute per company. */
  limitRequestsPerMinute: number;
  batched: { entriesPerMinute: number; requestsPerEntry: number };
  oneByOne: { entriesPerMinute: number; requestsPerEntry: number };
  /** batched / one by one entries per minute. */
  ratio: number;
  maxInFlight: number;
  /** Requests the double refused (429) for one of QBO's limits, both runs: 0 when the limiter holds them. */
  refusedForLimit: number;
}

export async function benchQuickBooksPush(options: {
  links: number;
  progress: (line: string) => void;
}): Promise<QuickBooksPushResult> {
  const double = await new QuickBooksDouble({ latencyMs: 20 }).start();
  const cipher = new TokenCipher('bench-secret-for-the-sealed-token');
  try {
    const run = async (label: string, way: PushWay) => {
      // booksync's accounts already in place: the bench measures the push, not set-up.
      const realmId = double.createRealm(undefined, { chart: quickBooksBooksyncChart });
      const target = new QuickBooksTarget({
        baseUrl: double.url,
        realmId,
        tokenStore: new OAuthTokenStore({
          tokenUrl: `${double.url}/oauth2/v1/tokens/bearer`,
          clientId: double.clientId,
          clientSecret: double.clientSecret,
          storage: new SealedTokenInMemory(cipher.seal(double.connect(realmId))),
          cipher,
        }),
        accounts: defaultAccountCodes,
        matching: 'create',
        limiter: new QuickBooksLimiter({
          ...quickBooksBudget,
          perMinute: quickBooksBudget.perMinute / compression,
          batchesPerMinute: quickBooksBudget.batchesPerMinute / compression,
          windowMs: 60_000 / compression,
        }),
      });
      const { entries, minutes, requests } = await timedPush(target, label, options.links, way, {
        requests: () => double.requests.length,
        violations: double.violations,
        contract: 'XSD',
      });
      const refused = Object.values(double.refusedForLimit(realmId)).reduce((a, b) => a + b, 0);
      options.progress(
        `quickbooks ${label}: ${entries} entries, ${requests} requests, ${refused} refused for a limit`,
      );
      return {
        entries,
        refused,
        maxInFlight: double.maxInFlight(realmId),
        entriesPerMinute: Math.round(entries / minutes),
        requestsPerEntry: Math.round((requests / entries) * 100) / 100,
      };
    };
    const batchedRun = await run('batched', batched);
    const oneByOneRun = await run('one-by-one', oneByOne);
    return {
      entries: batchedRun.entries,
      limitRequestsPerMinute: 500,
      batched: {
        entriesPerMinute: batchedRun.entriesPerMinute,
        requestsPerEntry: batchedRun.requestsPerEntry,
      },
      oneByOne: {
        entriesPerMinute: oneByOneRun.entriesPerMinute,
        requestsPerEntry: oneByOneRun.requestsPerEntry,
      },
      ratio: Math.round((batchedRun.entriesPerMinute / oneByOneRun.entriesPerMinute) * 100) / 100,
      maxInFlight: Math.max(batchedRun.maxInFlight, oneByOneRun.maxInFlight),
      refusedForLimit: batchedRun.refused + oneByOneRun.refused,
    };
  } finally {
    await double.stop();
  }
}
