import { defaultAccountCodes } from '../src/accounting/targets/account-mapping.js';
import {
  OAuthTokenStore,
  QuickBooksTarget,
  RealmLimiter,
  type SealedTokenStorage,
  TokenCipher,
} from '../src/accounting/targets/quickbooks/index.js';
import type { TargetDocument } from '../src/accounting/targets/target-port.js';
import { QuickBooksDouble } from '../test/support/quickbooks/double.js';

// Stage: a backlog pushed to QuickBooks Online (the test double, 20 ms a request like a distant API) under
// QBO's limit of 500 requests a minute and 10 in flight, with the batch endpoint and one by one (the
// baseline, same run). The limiter's window is a tenth of a minute with a tenth of the requests (50 per
// 6 s, the same rate), so the limit binds from the first seconds instead of after a first minute's burst
// of 500. The backlog is a business's: 12 customers, per
// link an invoice, its payment and the card fee, and a payout every ten payments.

export interface QuickBooksPushResult {
  entries: number;
  /** QBO's own limit, requests per minute per company. */
  limitRequestsPerMinute: number;
  batched: { entriesPerMinute: number; requestsPerEntry: number };
  oneByOne: { entriesPerMinute: number; requestsPerEntry: number };
  /** batched / one by one entries per minute. */
  ratio: number;
  maxInFlight: number;
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

export async function benchQuickBooksPush(options: {
  links: number;
  progress: (line: string) => void;
}): Promise<QuickBooksPushResult> {
  const double = await new QuickBooksDouble({ latencyMs: 20 }).start();
  const cipher = new TokenCipher('bench-secret-for-the-sealed-token');
  try {
    const run = async (
      label: string,
      push: (target: QuickBooksTarget, docs: TargetDocument[]) => Promise<void>,
    ) => {
      const realmId = double.createRealm();
      let sealed = cipher.seal(double.connect(realmId));
      const storage: SealedTokenStorage = {
        load: async () => sealed,
        save: async (next) => {
          sealed = next;
        },
      };
      const target = new QuickBooksTarget({
        baseUrl: double.url,
        realmId,
        tokenStore: new OAuthTokenStore({
          tokenUrl: `${double.url}/oauth2/v1/tokens/bearer`,
          clientId: double.clientId,
          clientSecret: double.clientSecret,
          storage,
          cipher,
        }),
        accounts: defaultAccountCodes,
        matching: 'create',
        limiter: new RealmLimiter({
          perMinute: 500 / compression,
          concurrent: 10,
          windowMs: 60_000 / compression,
        }),
      });
      await target.verify();
      const docs = backlog(`${label}${Date.now().toString(36)}`, options.links);
      const requestsBefore = double.requests.length;
      const started = performance.now();
      await push(target, docs);
      const minutes = (performance.now() - started) / 60_000;
      const requests = double.requests.length - requestsBefore;
      if (double.violations.length > 0) throw new Error(`XSD violations: ${double.violations.join('; ')}`);
      options.progress(`quickbooks ${label}: ${docs.length} entries, ${requests} requests`);
      return {
        entries: docs.length,
        maxInFlight: double.maxInFlight(realmId),
        entriesPerMinute: Math.round(docs.length / minutes),
        requestsPerEntry: Math.round((requests / docs.length) * 100) / 100,
      };
    };
    // The push workflow's slices: a hundred entries at a time.
    const batched = await run('batched', async (target, docs) => {
      for (let i = 0; i < docs.length; i += 100) {
        for (const outcome of await target.pushMany(docs.slice(i, i + 100), { pushed: () => null }))
          if (outcome instanceof Error) throw outcome;
      }
    });
    const oneByOne = await run('one-by-one', async (target, docs) => {
      for (const doc of docs) await target.push(doc, { pushed: () => null });
    });
    return {
      entries: batched.entries,
      limitRequestsPerMinute: 500,
      batched: { entriesPerMinute: batched.entriesPerMinute, requestsPerEntry: batched.requestsPerEntry },
      oneByOne: { entriesPerMinute: oneByOne.entriesPerMinute, requestsPerEntry: oneByOne.requestsPerEntry },
      ratio: Math.round((batched.entriesPerMinute / oneByOne.entriesPerMinute) * 100) / 100,
      maxInFlight: Math.max(batched.maxInFlight, oneByOne.maxInFlight),
    };
  } finally {
    await double.stop();
  }
}
