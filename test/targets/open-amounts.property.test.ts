import { type Harness, startHarness } from '@booksync/emulator/harness';
import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenCipher } from '../../src/targets/oauth/token-cipher.js';
import {
  foundSequences,
  linkStep,
  replay as replaySteps,
  reusableSlipAndClose,
  type Step,
  stepArb,
} from '../support/open-amounts-steps.js';
import { OpenAmountsWorld } from '../support/open-amounts-world.js';

// Random sequences of business steps at the service emulator (a link created, its amount raised or lowered,
// debit memos, payments in full, in part and over what is owed (refused by the service), refunds, ACH returns,
// external payments, check deposits applied in part, applied after clearing, returned with a fee, money on a
// reusable link (card, ACH or received outside the service), external payments taken to the bank on a deposit
// slip, and the month closed in the ledger and at every target, what follows it booked in the next month)
// are booked by the real activities, in the order their workflows call them, and pushed after EACH step by the
// production push activity to every target: the ledger mirror, the QuickBooks Online double and the Xero
// double (test/support/open-amounts-steps.ts, open-amounts-world.ts). After each step:
// - every link's open amount is the service's remainder (requestedAmountCents - completedAmountCents; the
//   requested amount includes the live debit memos, so the remainder is what the link's invoice and its
//   charge invoices owe together): the ledger's open receivable and the mirror's A/R lines of the link's
//   entries exactly; QBO's Invoice Balance and Xero's AmountDue summed over the link's invoices (its own,
//   its memos' and reopened amounts' charge invoices) the remainder when it is owed, 0 when the customer paid
//   more than the link now asks (that excess is the customer's credit, not an invoice's);
// - a reusable link is owed nothing anywhere (its money is a sale, never a receivable);
// - each target's balance of every mapped account (defaultAccountCodes) equals the ledger's;
// - a customer none of whose links is overpaid has no negative Accounts Receivable in the ledger.
// The steps lower links below what was paid on them too, and draw money and lowerings on a link after money
// it received in the closed month was reversed after the close (owed again on the reversal's charge invoice
// at QuickBooks and Xero, applications.ts). A failure prints fast-check's seed, path and shrunk steps; the
// shrinking replays whole worlds, so it takes minutes.
// Tryton takes ~20 s to start and seconds a document: the same steps against a real Tryton, fewer and
// shorter, are tryton/open-amounts.property.test.ts.

const double = {
  qbo: new QuickBooksDouble(),
  xero: new XeroDouble({ limits: { concurrent: 5, perMinute: 6_000, perDay: 100_000, windowMs: 1_000 } }),
};
const cipher = new TokenCipher('test-secret-for-the-open-amounts-property');
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
  await double.qbo.start();
  await double.xero.start();
});
afterAll(async () => {
  await double.qbo.stop();
  await double.xero.stop();
  await harness?.close();
});

const openWorld = () => OpenAmountsWorld.open(harness, double, cipher);
const replay = (steps: readonly Step[]) => replaySteps(openWorld, steps);

// Sequences the property found, kept as plain tests (each failed before its fix).
describe('open amounts: sequences the property found', { timeout: 120_000 }, () => {
  for (const found of foundSequences) {
    it(found.name, async () => {
      for (const steps of found.runs) await replay(steps);
    });
  }
});

describe('open amounts: the steps the property draws beside invoices', { timeout: 120_000 }, () => {
  it('money on a reusable link, external payments on a deposit slip, a close, then the closed month’s money returned and refunded', async () => {
    await replay(reusableSlipAndClose);
  });
});

describe('open amounts at every target after each business step', { timeout: 600_000 }, () => {
  it('every link owes at QuickBooks, Xero, the mirror and the ledger what the service says, and every account balance is the ledger’s', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(linkStep, fc.array(stepArb, { minLength: 8, maxLength: 16 })),
        ([first, rest]) => replay([first, ...rest]),
      ),
      // Fixed for CI; OPEN_AMOUNTS_RUNS / OPEN_AMOUNTS_SEED explore further (a failure prints its seed and path).
      {
        numRuns: Number(process.env.OPEN_AMOUNTS_RUNS ?? 8),
        seed: Number(process.env.OPEN_AMOUNTS_SEED ?? 30_2026),
      },
    );
    expect(double.qbo.violations).toEqual([]);
    expect(double.xero.violations).toEqual([]);
  });
});
