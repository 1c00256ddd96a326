import { type Harness, startHarness } from '@booksync/emulator/harness';
import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import {
  foundSequences,
  linkStep,
  replay,
  reusableSlipAndClose,
  stepArb,
} from '../../support/open-amounts-steps.js';
import { OpenAmountsWorld } from '../../support/open-amounts-world.js';
import { startTryton, type TrytonServer } from '../../support/tryton.js';

// The open-amounts property (test/targets/open-amounts.property.test.ts; its steps and checks are
// test/support/open-amounts-steps.ts) with a real Tryton 8.2 on PostgreSQL and its task queue's worker
// (test/support/tryton.ts) as a fourth target beside the ledger mirror and the QuickBooks and Xero doubles.
// Random sequences of business steps at the service emulator (links created, raised and lowered, debit memos,
// payments in full, in part and over what is owed, refunds, ACH returns, external payments, check deposits
// applied, cleared and returned, money on a reusable link, external payments taken to the bank on a deposit
// slip, the month closed in the ledger and at every target (Tryton's period through its own API) and what
// follows it) are booked by the real activities and pushed after EACH step by the production push activity
// to every target; one fixed sequence takes each step beside invoices once, the returns after the close
// among them. After each step, beside what the property checks at the other targets:
// - the amount to pay of each link's invoices in Tryton (its own, its charge invoices and credit notes, each
//   line once, as the party's receivable counts them) is the service's remainder, below 0 when the customer
//   paid more than the link now asks; a reusable link's is 0;
// - Tryton's balance of every mapped account, less what it was when the world opened (the file's worlds share
//   Tryton's database; a world's closed month is opened again when it ends), is the ledger's.
// Tryton takes seconds a document, so fewer and shorter sequences than the property's:
// OPEN_AMOUNTS_TRYTON_RUNS and OPEN_AMOUNTS_SEED explore further (a failure prints its seed and path; the
// shrinking replays whole worlds against Tryton, so it takes many minutes).

const double = {
  qbo: new QuickBooksDouble(),
  xero: new XeroDouble({ limits: { concurrent: 5, perMinute: 6_000, perDay: 100_000, windowMs: 1_000 } }),
};
const cipher = new TokenCipher('test-secret-for-the-open-amounts-property-with-tryton');
let harness: Harness;
let tryton: TrytonServer;

beforeAll(async () => {
  harness = await startHarness();
  await double.qbo.start();
  await double.xero.start();
  tryton = await startTryton();
}, 300_000);
afterAll(async () => {
  await tryton?.close();
  await double.qbo.stop();
  await double.xero.stop();
  await harness?.close();
});

const openWorld = () => OpenAmountsWorld.open(harness, double, cipher, { tryton });

// The sequences the property found at the other targets, with Tryton beside them.
describe('Tryton: open amounts, sequences the property found', { timeout: 300_000 }, () => {
  for (const found of foundSequences) {
    it(found.name, async () => {
      for (const steps of found.runs) await replay(openWorld, steps);
    });
  }
});

describe('Tryton: open amounts after each business step', { timeout: 600_000 }, () => {
  it('money on a reusable link, external payments on a deposit slip, a close, then the closed month’s money returned and refunded', async () => {
    await replay(openWorld, reusableSlipAndClose);
  });

  it('every link’s invoices owe in Tryton what the service says, and every account balance is the ledger’s', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(linkStep, fc.array(stepArb, { minLength: 5, maxLength: 7 })),
        ([first, rest]) => replay(openWorld, [first, ...rest]),
      ),
      {
        numRuns: Number(process.env.OPEN_AMOUNTS_TRYTON_RUNS ?? 3),
        seed: Number(process.env.OPEN_AMOUNTS_SEED ?? 30_2026),
      },
    );
    expect(double.qbo.violations).toEqual([]);
    expect(double.xero.violations).toEqual([]);
  });
});
