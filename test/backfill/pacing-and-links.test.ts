import { type Harness, newDeposit, newLink, startHarness } from '@booksync/emulator/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackfillActivities, maxPaceWaitMs } from '../../src/flows/backfill/activities.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { silentLogger } from '../../src/logging/logger.js';
import { ServiceClient } from '../../src/service/client.js';

// The backfill's deposit phase listed every payment link again on every page (to learn
// which link each application is on), and a low rate made a step sleep past the activity's 10 minutes, so it
// was retried forever. Now the links are listed once for the run (again only when a deposit names an
// application the list lacks), and a wait longer than a step may sleep goes to the next step in the token.

let emulator: Harness;
let ledger: EmbeddedLedger;
let service: ServiceClient;
let linkListings = 0;
const today = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  emulator = await startHarness();
  ledger = EmbeddedLedger.open();
  const client = new ServiceClient({ baseUrl: emulator.baseUrl, apiKey: emulator.keys.full });
  // Counts the listings of payment links the backfill makes; everything else goes straight through.
  service = new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'listPaymentLinks') linkListings++;
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  for (let i = 0; i < 4; i++) {
    const deposit = await newDeposit(emulator.api, 10_000);
    const link = await newLink(emulator.api, 5_000);
    const applied = await emulator.api('POST', `/serviceBanking/checkDeposits/${deposit.id}/apply`, {
      paymentLinkId: link.id,
      amountCents: 5_000,
    });
    expect(applied.status).toBe(200);
  }
}, 120_000);

afterAll(async () => {
  ledger?.close();
  await emulator?.close();
});

const activities = () => createBackfillActivities({ service, ledger, logger: silentLogger, timeZone: 'UTC' });
const step = (pageToken: string | null, requestsPerSecond = 1_000, maxPages = 50) =>
  activities().backfillPages({
    since: today,
    asOf: today,
    mode: 'opening',
    pageToken,
    pageSize: 1,
    requestsPerSecond,
    maxPages,
  });

describe('the backfill deposit phase and its pacing', () => {
  it('lists the payment links once for the whole run, not once a page of deposits', async () => {
    const before = linkListings;
    let token: string | null = 'checkDeposits:1';
    let pages = 0;
    const backfill = activities();
    while (token !== null) {
      const result = await backfill.backfillPages({
        since: today,
        asOf: today,
        mode: 'opening',
        pageToken: token,
        pageSize: 1,
        requestsPerSecond: 1_000,
        maxPages: 1,
      });
      pages += result.pages;
      expect(result.problems).toEqual([]);
      token = result.nextPageToken;
    }
    expect(pages).toBe(4);
    // Four pages of one deposit each: one listing of the links (of a single page: four links), not four.
    expect(linkListings - before).toBe(1);
    expect(
      (await ledger.allEntries()).filter((e) => e.links.checkDepositId !== undefined).length,
    ).toBeGreaterThanOrEqual(4);
  });

  it('hands a wait longer than a step may sleep to the next step in the token, never sleeping past it', async () => {
    // 0.01 requests a second: a page's request asks for 100 s, more than the 60 s a step may sleep.
    const started = Date.now();
    const first = await step('checkDeposits:1', 0.01, 5);
    expect(Date.now() - started).toBeLessThan(maxPaceWaitMs);
    expect(first.pages).toBe(1);
    const [phase, page, notBefore] = (first.nextPageToken as string).split(':');
    expect([phase, page]).toEqual(['checkDeposits', '2']);
    expect(Number(notBefore)).toBeGreaterThan(Date.now() + maxPaceWaitMs);
    // A wait already over: the page is read at once and the token loses its wait.
    const resumed = await step(`checkDeposits:2:${Date.now() - 1}`, 1_000, 1);
    expect(resumed.pages).toBe(1);
    expect(resumed.nextPageToken?.split(':')).toHaveLength(2);
  }, 30_000);
});
