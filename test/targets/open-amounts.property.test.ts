import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenCipher } from '../../src/targets/oauth/token-cipher.js';
import { type Harness, startHarness } from '../emulator/harness.js';
import { type DepositState, OpenAmountsWorld, Refused } from '../support/open-amounts-world.js';
import { QuickBooksDouble } from '../support/quickbooks/double.js';
import { XeroDouble } from '../support/xero/double.js';

// Its last "done when": random sequences of business steps at
// the service emulator (a link created, its amount raised or lowered, debit memos, payments in full, in part
// and over what is owed (refused by the service), refunds, ACH returns, external payments, check deposits
// applied in part, applied after clearing, returned with a fee) are booked by the real activities, in the
// order their workflows call them, and pushed after EACH step by the production push activity to every
// target: the ledger mirror, the QuickBooks Online double and the Xero double. After each step:
// - every link's open amount is the service's remainder (requestedAmountCents - completedAmountCents; the
//   requested amount includes the live debit memos, so the remainder is what the link's invoice and its
//   charge invoices owe together): the ledger's open receivable and the mirror's A/R lines of the link's
//   entries exactly; QBO's Invoice Balance and Xero's AmountDue summed over the link's invoices (its own,
//   its memos' and reopened amounts' charge invoices) the remainder when it is owed, 0 when the customer paid
//   more than the link now asks (that excess is the customer's credit, not an invoice's);
// - each target's balance of every mapped account (defaultAccountCodes) equals the ledger's;
// - a customer none of whose links is overpaid has no negative Accounts Receivable in the ledger.
// The steps lower links below what was paid on them too. A failure prints fast-check's seed, path and shrunk steps; the shrinking
// replays whole worlds, so it takes minutes.
// Tryton is left out: a real Tryton on PostgreSQL takes ~20 s to start and seconds per document, so even a
// handful of runs would not stay within a minute (the Tryton books scenario, tryton-books.test.ts, covers
// it with the demo day).

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

/** A share of an amount, in percent (1..99): a part of it, at least a cent. */
const share = fc.integer({ min: 1, max: 99 });
const cents = fc.integer({ min: 1_00, max: 2_000_00 });
const pick = fc.nat({ max: 7 });

type Step =
  | { kind: 'link'; cents: number; customer: number }
  | { kind: 'amount'; link: number; cents: number }
  | { kind: 'memo'; link: number; cents: number }
  | { kind: 'pay'; link: number; method: 'Card' | 'ACH'; part: 'full' | 'over' | number; settle: boolean }
  | { kind: 'refund'; payment: number; part: 'full' | number }
  | { kind: 'achReturn'; payment: number }
  | { kind: 'external'; link: number; part: 'full' | number }
  | { kind: 'deposit'; cents: number }
  | { kind: 'apply'; deposit: number; link: number; part: 'default' | number }
  | { kind: 'clear'; deposit: number }
  | { kind: 'return'; deposit: number; feeCents: number };

const linkStep = fc.record({ kind: fc.constant('link' as const), cents, customer: fc.nat({ max: 1 }) });
// The first of oneof's arbitraries is the one fast-check favours and shrinks towards: the check deposits'
// steps first, so they are not crowded out by new links.
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('apply' as const),
      deposit: pick,
      link: pick,
      part: fc.oneof(fc.constant('default' as const), share),
    }),
    weight: 5,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('pay' as const),
      link: pick,
      method: fc.constantFrom('Card' as const, 'ACH' as const),
      part: fc.oneof(fc.constant('full' as const), fc.constant('over' as const), share),
      settle: fc.boolean(),
    }),
    weight: 4,
  },
  { arbitrary: fc.record({ kind: fc.constant('deposit' as const), cents }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('clear' as const), deposit: pick }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant('return' as const),
      deposit: pick,
      feeCents: fc.constantFrom(0, 25_00),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant('achReturn' as const), payment: pick }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant('refund' as const),
      payment: pick,
      part: fc.oneof(fc.constant('full' as const), share),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('memo' as const),
      link: pick,
      cents: fc.integer({ min: 1, max: 50_00 }),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant('amount' as const), link: pick, cents }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant('external' as const),
      link: pick,
      part: fc.oneof(fc.constant('full' as const), share),
    }),
    weight: 1,
  },
  { arbitrary: linkStep, weight: 2 },
);

/** A part of `whole` cents: all of it, or `percent` of it (at least a cent). */
const partOf = (whole: number, part: 'full' | number) =>
  part === 'full' ? whole : Math.max(1, Math.floor((whole * part) / 100));

/** Does the step at the service and books it; false when it did not apply (nothing to act on, or the service refused it). */
async function run(world: OpenAmountsWorld, step: Step): Promise<boolean> {
  const link = 'link' in step ? world.links[step.link % Math.max(1, world.links.length)] : undefined;
  const payment =
    'payment' in step ? world.payments[step.payment % Math.max(1, world.payments.length)] : undefined;
  const deposit =
    'deposit' in step && typeof step.deposit === 'number'
      ? world.deposits[step.deposit % Math.max(1, world.deposits.length)]
      : undefined;
  try {
    switch (step.kind) {
      case 'link':
        await world.createLink(step.cents, step.customer);
        return true;
      case 'amount': {
        if (!link) return false;
        // Also below what the link's money already covers: the lowering's credit beyond what the invoices
        // owe is the customer's, applied again to the invoices a later reversal reopens.
        await world.changeAmount(link, Math.max(step.cents, 1));
        return true;
      }
      case 'memo':
        if (!link) return false;
        await world.addDebitMemo(link, step.cents);
        return true;
      case 'pay': {
        if (!link) return false;
        const left = await world.remainderOf(link.id);
        // Over what is left: the service refuses it (a payer cannot pay more than the link asks).
        const amount = step.part === 'over' ? Math.max(left, 0) + 1 : left > 0 ? partOf(left, step.part) : 1;
        await world.pay(link, step.method, amount, step.settle);
        return true;
      }
      case 'refund': {
        if (!payment) return false;
        const paid = (await world.service.getPayment(payment.id)).amountInCents;
        await world.refund(payment, step.part === 'full' ? undefined : partOf(paid, step.part));
        return true;
      }
      case 'achReturn': {
        const ach = world.payments.filter((p) => p.method === 'ACH');
        const returned = ach[step.payment % Math.max(1, ach.length)];
        if (!returned) return false;
        await world.achReturn(returned);
        return true;
      }
      case 'external': {
        if (!link) return false;
        const left = await world.remainderOf(link.id);
        if (left <= 0) return false;
        await world.externalPayment(link, partOf(left, step.part));
        return true;
      }
      case 'deposit':
        await world.depositCheck(step.cents);
        return true;
      case 'apply': {
        const target = world.links[step.link % Math.max(1, world.links.length)];
        if (!target) return false;
        const left = await world.remainderOf(target.id);
        // No check deposited yet: the business deposits one for what the link owes, then applies it.
        if (!deposit) await world.depositCheck(Math.max(left, 1_00));
        const check = deposit ?? (world.deposits.at(-1) as DepositState);
        await world.applyDeposit(
          check,
          target,
          step.part === 'default' || left <= 1 ? undefined : partOf(left, step.part),
        );
        return true;
      }
      case 'clear':
        if (!deposit) return false;
        await world.clearDeposit(deposit);
        return true;
      case 'return':
        if (!deposit) return false;
        await world.returnDeposit(deposit, step.feeCents);
        return true;
    }
  } catch (error) {
    if (error instanceof Refused) return false;
    throw error;
  }
}

/** After a step: every target pushed, then the books agree with the service and with each other. */
async function expectBooksAgree(world: OpenAmountsWorld, done: string[]): Promise<void> {
  await world.push();
  const where = done.join(' → ');
  const balances = await world.balances();
  expect({ mirror: balances.mirror, quickbooks: balances.quickbooks, xero: balances.xero }, where).toEqual({
    mirror: balances.ledger,
    quickbooks: balances.ledger,
    xero: balances.ledger,
  });
  const owedBy = new Map<string, { open: number; credit: boolean }>();
  for (const [i, link] of world.links.entries()) {
    const remainder = await world.remainderOf(link.id);
    const open = await world.openAmounts(link.id);
    expect({ link: i, ...open }, where).toEqual({
      link: i,
      ledger: remainder,
      mirror: remainder,
      quickbooks: Math.max(remainder, 0),
      xero: Math.max(remainder, 0),
    });
    const customer = owedBy.get(link.customerId) ?? { open: 0, credit: false };
    owedBy.set(link.customerId, {
      open: customer.open + open.ledger,
      credit: customer.credit || remainder < 0,
    });
  }
  const receivables = await world.ledger.openItems('receivable');
  for (const [customerId, { credit }] of owedBy) {
    if (credit) continue;
    const ar = receivables
      .filter((i) => i.counterpartyId === customerId)
      .reduce((s, i) => s + i.openCents, 0);
    expect({ customerId, negative: ar < 0 }, where).toEqual({ customerId, negative: false });
  }
}

/** The steps in order, the books checked after each that happened. */
async function replay(steps: readonly Step[]): Promise<void> {
  const world = await OpenAmountsWorld.open(harness, double, cipher);
  try {
    const done: string[] = [];
    for (const step of steps) {
      if (!(await run(world, step))) continue;
      done.push(JSON.stringify(step));
      await expectBooksAgree(world, done);
    }
  } finally {
    await world.close();
  }
}

// Sequences the property found, kept as plain tests (each failed before its fix).
describe('open amounts: sequences the property found', { timeout: 120_000 }, () => {
  it('a raised link owes the raise on an invoice at QuickBooks (it was a journal entry: the invoice showed the old amount)', async () => {
    await replay([
      { kind: 'link', cents: 100_00, customer: 0 },
      { kind: 'amount', link: 0, cents: 150_00 },
      { kind: 'pay', link: 0, method: 'Card', part: 50, settle: true },
      { kind: 'pay', link: 0, method: 'ACH', part: 'full', settle: false },
    ]);
  });

  it('a link lowered below what was paid, then its payment cancelled: the invoices owe the service’s remainder (the lowering’s credit stayed unapplied beside the reopened invoices at QuickBooks and Xero)', async () => {
    await replay([
      { kind: 'link', cents: 100, customer: 0 },
      { kind: 'amount', link: 0, cents: 101 },
      { kind: 'pay', link: 0, method: 'Card', part: 'full', settle: false },
      { kind: 'amount', link: 0, cents: 100 },
      { kind: 'refund', payment: 0, part: 'full' },
    ]);
  });

  it('a raised then lowered link: the lowering credits the raise’s invoice too, not only the link’s own (its credit beyond the own invoice stayed unapplied at QuickBooks and Xero)', async () => {
    await replay([
      { kind: 'link', cents: 10_00, customer: 0 },
      { kind: 'amount', link: 0, cents: 100_00 },
      { kind: 'amount', link: 0, cents: 20_00 },
      { kind: 'pay', link: 0, method: 'Card', part: 'full', settle: true },
    ]);
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
