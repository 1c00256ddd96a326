import fc from 'fast-check';
import { expect } from 'vitest';
import { type DepositState, type LinkState, type OpenAmountsWorld, Refused } from './open-amounts-world.js';

// The business steps of the open-amounts property (test/targets/open-amounts.property.test.ts, and with a
// real Tryton test/targets/tryton/open-amounts.property.test.ts): what fast-check draws, how each is done at
// the service emulator and booked (OpenAmountsWorld), and what is checked after each.

/** A share of an amount, in percent (1..99): a part of it, at least a cent. */
const share = fc.integer({ min: 1, max: 99 });
const cents = fc.integer({ min: 1_00, max: 2_000_00 });
const pick = fc.nat({ max: 7 });

export type Step =
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
  | { kind: 'return'; deposit: number; feeCents: number }
  | {
      kind: 'reusable';
      link: number;
      how: 'Card' | 'ACH' | 'external';
      cents: number;
      settle: boolean;
      customer: number;
    }
  | { kind: 'slip'; link: number; part: 'full' | number; take: number }
  | { kind: 'close' };

export const linkStep = fc.record({
  kind: fc.constant('link' as const),
  cents,
  customer: fc.nat({ max: 1 }),
});
// The first of oneof's arbitraries is the one fast-check favours and shrinks towards: the check deposits'
// steps first, so they are not crowded out by new links.
export const stepArb: fc.Arbitrary<Step> = fc.oneof(
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
  {
    arbitrary: fc.record({
      kind: fc.constant('reusable' as const),
      link: fc.nat({ max: 2 }),
      how: fc.constantFrom('Card' as const, 'ACH' as const, 'external' as const),
      cents,
      settle: fc.boolean(),
      customer: fc.nat({ max: 1 }),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('slip' as const),
      link: pick,
      part: fc.oneof(fc.constant('full' as const), share),
      take: fc.integer({ min: 1, max: 3 }),
    }),
    weight: 2,
  },
  { arbitrary: fc.constant({ kind: 'close' as const }), weight: 1 },
  { arbitrary: linkStep, weight: 2 },
);

/**
 * The steps beside invoices once each, in an order the property may not draw: money on a reusable link
 * (card and external), external payments taken to the bank on a deposit slip, the month closed, then an ACH
 * return, a returned check and refunds of the closed month's money, money again after the close, and links
 * lowered below what was paid on them: one paid in full, and one paid in part while its memo is owed (75.00
 * of 125.00 paid, then lowered by 50.00: the credit spread over its invoice and the memo).
 */
export const reusableSlipAndClose: readonly Step[] = [
  { kind: 'link', cents: 120_00, customer: 0 },
  { kind: 'pay', link: 0, method: 'ACH', part: 'full', settle: true },
  { kind: 'link', cents: 80_00, customer: 1 },
  { kind: 'pay', link: 1, method: 'Card', part: 50, settle: true },
  { kind: 'reusable', link: 0, how: 'Card', cents: 30_00, settle: true, customer: 0 },
  { kind: 'reusable', link: 0, how: 'external', cents: 45_00, settle: false, customer: 0 },
  { kind: 'external', link: 1, part: 'full' },
  { kind: 'slip', link: 0, part: 'full', take: 3 },
  { kind: 'link', cents: 60_00, customer: 0 },
  { kind: 'apply', deposit: 0, link: 2, part: 50 },
  { kind: 'close' },
  { kind: 'achReturn', payment: 0 },
  { kind: 'return', deposit: 0, feeCents: 25_00 },
  { kind: 'refund', payment: 1, part: 'full' },
  { kind: 'refund', payment: 2, part: 50 },
  { kind: 'reusable', link: 0, how: 'ACH', cents: 10_00, settle: true, customer: 1 },
  { kind: 'slip', link: 1, part: 50, take: 1 },
  { kind: 'pay', link: 1, method: 'Card', part: 'full', settle: true },
  { kind: 'amount', link: 1, cents: 10_00 },
  { kind: 'link', cents: 100_00, customer: 1 },
  { kind: 'memo', link: 3, cents: 25_00 },
  { kind: 'pay', link: 3, method: 'Card', part: 60, settle: true },
  { kind: 'amount', link: 3, cents: 50_00 },
];

/** A link paid by ACH in a month then closed, the payment returned in the next. */
const achReturnedAfterClose: readonly Step[] = [
  { kind: 'link', cents: 120_00, customer: 0 },
  { kind: 'pay', link: 0, method: 'ACH', part: 'full', settle: true },
  { kind: 'close' },
  { kind: 'achReturn', payment: 0 },
];

/**
 * Sequences the property found, kept as plain tests (each failed before its fix): a name and its runs,
 * each a new world's steps. The property's files run them against their targets.
 */
export const foundSequences: readonly { name: string; runs: readonly (readonly Step[])[] }[] = [
  {
    name: 'a raised link owes the raise on an invoice at QuickBooks (it was a journal entry: the invoice showed the old amount)',
    runs: [
      [
        { kind: 'link', cents: 100_00, customer: 0 },
        { kind: 'amount', link: 0, cents: 150_00 },
        { kind: 'pay', link: 0, method: 'Card', part: 50, settle: true },
        { kind: 'pay', link: 0, method: 'ACH', part: 'full', settle: false },
      ],
    ],
  },
  {
    name: 'a link lowered below what was paid, then its payment cancelled: the invoices owe the service’s remainder (the lowering’s credit stayed unapplied beside the reopened invoices at QuickBooks and Xero)',
    runs: [
      [
        { kind: 'link', cents: 100, customer: 0 },
        { kind: 'amount', link: 0, cents: 101 },
        { kind: 'pay', link: 0, method: 'Card', part: 'full', settle: false },
        { kind: 'amount', link: 0, cents: 100 },
        { kind: 'refund', payment: 0, part: 'full' },
      ],
    ],
  },
  {
    name: 'a raised then lowered link: the lowering credits the raise’s invoice too, not only the link’s own (its credit beyond the own invoice stayed unapplied at QuickBooks and Xero)',
    runs: [
      [
        { kind: 'link', cents: 10_00, customer: 0 },
        { kind: 'amount', link: 0, cents: 100_00 },
        { kind: 'amount', link: 0, cents: 20_00 },
        { kind: 'pay', link: 0, method: 'Card', part: 'full', settle: true },
      ],
    ],
  },
  {
    name: 'money after the closed month’s ACH payment was returned pays the return’s charge invoice (QuickBooks refused it on the link’s paid invoice)',
    runs: [
      [...achReturnedAfterClose, { kind: 'external', link: 0, part: 50 }],
      [...achReturnedAfterClose, { kind: 'pay', link: 0, method: 'Card', part: 50, settle: true }],
    ],
  },
  {
    name: 'a lowering after the closed month’s money was returned credits the return’s charge invoice (QuickBooks and Xero owed 120.00 for 50.00)',
    runs: [[...achReturnedAfterClose, { kind: 'amount', link: 0, cents: 50_00 }]],
  },
  {
    name: 'a customer credit a later memo takes in part: the memo is paid, the rest stays the customer’s (Tryton applied a credit note only whole, and the memo owed in full)',
    runs: [
      [
        { kind: 'link', cents: 100_00, customer: 0 },
        { kind: 'pay', link: 0, method: 'Card', part: 40, settle: true },
        { kind: 'amount', link: 0, cents: 30_00 },
        { kind: 'memo', link: 0, cents: 5_00 },
      ],
    ],
  },
  {
    name: 'money after the closed month’s check was returned pays the return’s charge invoice',
    runs: [
      [
        { kind: 'link', cents: 120_00, customer: 0 },
        { kind: 'apply', deposit: 0, link: 0, part: 'default' },
        { kind: 'close' },
        { kind: 'return', deposit: 0, feeCents: 0 },
        { kind: 'pay', link: 0, method: 'Card', part: 50, settle: true },
      ],
    ],
  },
];

/** A part of `whole` cents: all of it, or `percent` of it (at least a cent). */
const partOf = (whole: number, part: 'full' | number) =>
  part === 'full' ? whole : Math.max(1, Math.floor((whole * part) / 100));

/** Does the step at the service and books it; false when it did not apply (nothing to act on, or the service refused it). */
export async function run(world: OpenAmountsWorld, step: Step): Promise<boolean> {
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
      case 'reusable': {
        // Money on a reusable link (a new one when there is none yet): a sale, any amount the payer chooses.
        if (world.reusableLinks.length === 0) await world.createReusableLink(25_00, step.customer);
        const shop = world.reusableLinks[step.link % world.reusableLinks.length] as LinkState;
        if (step.how === 'external') await world.externalPayment(shop, step.cents);
        else await world.pay(shop, step.how, step.cents, step.settle);
        return true;
      }
      case 'slip': {
        // A check received outside the service taken to the bank: the ones held in Checks To Deposit (after
        // an external payment on the link when none is held, a part of what it owes).
        if (await world.depositSlip(step.take)) return true;
        if (!link) return false;
        const left = await world.remainderOf(link.id);
        if (left <= 0) return false;
        await world.externalPayment(link, partOf(left, step.part));
        return world.depositSlip(step.take);
      }
      case 'close':
        return world.closeMonth();
    }
  } catch (error) {
    if (error instanceof Refused) return false;
    throw error;
  }
}

/** After a step: every target pushed, then the books agree with the service and with each other. */
export async function expectBooksAgree(world: OpenAmountsWorld, done: string[]): Promise<void> {
  await world.push();
  const where = done.join(' → ');
  const { ledger, ...targets } = await world.balances();
  expect(targets, where).toEqual(Object.fromEntries(Object.keys(targets).map((name) => [name, ledger])));
  // Tryton's amount to pay of the link's invoices, each line once (a credit note's too, as the party's
  // receivable counts it): the remainder, below 0 when the customer paid more than the link now asks.
  // Its invoices, credit notes left out, owe the remainder, none when the customer holds a credit.
  const atTryton = (remainder: number) =>
    world.tryton ? { tryton: remainder, trytonInvoices: Math.max(remainder, 0) } : {};
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
      ...atTryton(remainder),
    });
    const customer = owedBy.get(link.customerId) ?? { open: 0, credit: false };
    owedBy.set(link.customerId, {
      open: customer.open + open.ledger,
      credit: customer.credit || remainder < 0,
    });
  }
  // A reusable link is owed nothing anywhere: its money is a sale, never a receivable or an invoice's.
  for (const [i, shop] of world.reusableLinks.entries()) {
    expect({ reusable: i, ...(await world.openAmounts(shop.id)) }, where).toEqual({
      reusable: i,
      ledger: 0,
      mirror: 0,
      quickbooks: 0,
      xero: 0,
      ...atTryton(0),
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

/** The steps in order in a new world, the books checked after each that happened. */
export async function replay(open: () => Promise<OpenAmountsWorld>, steps: readonly Step[]): Promise<void> {
  const world = await open();
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
