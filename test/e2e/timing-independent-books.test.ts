import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@booksync/service-contract/schemas/index';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandApiClient } from '../../src/command-api/client.js';
import type { ReconciliationReport } from '../../src/flows/reconciliation/contract.js';
import type { BooksSnapshot } from '../support/books-snapshot.js';
import { type E2EStack, startE2EStack } from '../support/e2e-stack.js';
import { startDevServer } from '../support/temporal.js';
import { waitFor } from '../support/wait-for.js';
import { shuffled } from './expected-books.js';

// booksync's rule, over every record type with a lifecycle: the same events give the same ledger entries
// (keys, dates, lines, reversal pairs) whatever the order and timing of their deliveries. One scenario is
// booked three ways on fresh books each time: (1) every delivery as it happens, the scenario waiting for the
// books after each step; (2) every delivery held until the scenario is over, then delivered in the order
// the events happened; (3) held until the end, shuffled (fixed seed), each delivered twice. Payment links
// and check deposits have no webhook: booksync learns them from the business's commands, and a run that
// never saw those commands learns them from reconciliation (the final records), which each run ends with.

const commandApiKey = 'timing-independent-books-key';

/** An entry as the comparison sees it: its date, its lines as net cents per account, its reversal pair. */
type Comparable = Record<
  string,
  { date: string; lines: Record<string, number>; reverses: string | null; reversedBy: string | null }
>;

function comparable(books: BooksSnapshot): Comparable {
  const out: Comparable = {};
  for (const [key, entry] of Object.entries(books.entries)) {
    const lines: Record<string, number> = {};
    for (const line of entry.lines) lines[line.account] = (lines[line.account] ?? 0) + line.amountCents;
    out[key] = { date: entry.date, lines, reverses: entry.reverses, reversedBy: entry.reversedBy };
  }
  return out;
}

/** The keys only one side has, and the keys both have with different contents: empty when equal. */
function differences(a: Comparable, b: Comparable) {
  const onlyA = Object.keys(a).filter((k) => !(k in b));
  const onlyB = Object.keys(b).filter((k) => !(k in a));
  const changed = Object.keys(a)
    .filter((k) => k in b && JSON.stringify(a[k]) !== JSON.stringify(b[k]))
    .map((k) => ({ key: k, a: a[k], b: b[k] }));
  return { onlyA: onlyA.sort(), onlyB: onlyB.sort(), changed };
}

const none = { onlyA: [], onlyB: [], changed: [] };

/**
 * What books made from the final records hold of a run followed step by step: everything except what the
 * final records no longer carry (docs/service-decisions.md):
 * - an external payment or a debit memo recorded then voided: a link lists only its live records, and only
 *   the void's own answer returns a voided record (decision “Void an external payment”);
 * - a check deposit's applications (check-application entries): an application does not name its link, so
 *   booksync books one only for the link it applied it to itself (syncCheckDepositBooks), and a returned
 *   deposit lists no application at all (the return voids them, 4.1).
 */
function finalStateOnly(books: BooksSnapshot): BooksSnapshot {
  const gone = (key: string) => {
    const original = key.startsWith('reversal:') ? key.slice('reversal:'.length) : key;
    return (
      original.startsWith('check-application:') ||
      ((original.startsWith('external-payment:') || original.startsWith('debit-memo:')) &&
        books.entries[original]?.reversedBy != null)
    );
  };
  return { ...books, entries: Object.fromEntries(Object.entries(books.entries).filter(([k]) => !gone(k))) };
}

describe('books independent of delivery timing, every record with a lifecycle (direct dispatch)', () => {
  let env: TestWorkflowEnvironment;
  let stack: E2EStack;
  let commands: CommandApiClient;
  const runs: Record<'immediate' | 'heldInOrder' | 'heldShuffled', BooksSnapshot | undefined> = {
    immediate: undefined,
    heldInOrder: undefined,
    heldShuffled: undefined,
  };
  let events: EventEnvelope[] = [];
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    env = await startDevServer();
    stack = await startE2EStack({ temporal: env, dispatcher: 'direct', commandApiKey });
  });
  afterAll(async () => {
    await stack?.stop();
    await env?.teardown();
  });

  const newCommands = () => new CommandApiClient({ baseUrl: stack.ingressUrl, apiKey: commandApiKey });
  const hasKeys =
    (...keys: string[]) =>
    (books: BooksSnapshot) =>
      keys.every((k) => k in books.entries);

  /** Reconciliation over everything, as the Schedule runs it; answers its report once the run closed. */
  async function reconcile(): Promise<ReconciliationReport> {
    const workflowId = `timing-reconcile-${randomUUID()}`;
    await stack.client.workflow.start('reconciliation', {
      taskQueue: stack.taskQueue,
      workflowId,
      args: [{ scope: { kind: 'all' } }],
    });
    await stack.waitForWorkflow(workflowId, { closed: true }, 120_000);
    const report: ReconciliationReport = await stack.client.workflow.getHandle(workflowId).result();
    await stack.waitForQuiet(120_000);
    return report;
  }

  const link = (name: string, requestedAmountCents: number) =>
    stack.service.createPaymentLink({ name, requestedAmountCents });

  it('(1) books the scenario with every delivery as it happens', async () => {
    commands = newCommands();
    const today = (await stack.clock()).now.slice(0, 10);

    // A link with an external payment and a debit memo, both recorded then voided; one whose stay.
    const voided = await link('Timing: external payment and memo voided', 500_00);
    const kept = await link('Timing: external payment and memo kept', 300_00);
    ids.voidedLink = voided.id;
    ids.keptLink = kept.id;
    await commands.call(
      'recordExternalPayment',
      { id: voided.id },
      { amountCents: 200_00, paidAt: today, externalReferenceId: 'timing-wire-1' },
    );
    await commands.call(
      'recordDebitMemo',
      { id: voided.id },
      { amountCents: 25_00, description: 'Late fee', externalReferenceId: 'timing-memo-1' },
    );
    await commands.call(
      'recordExternalPayment',
      { id: kept.id },
      { amountCents: 100_00, paidAt: today, externalReferenceId: 'timing-wire-2' },
    );
    await commands.call(
      'recordDebitMemo',
      { id: kept.id },
      { amountCents: 10_00, description: 'Delivery fee', externalReferenceId: 'timing-memo-2' },
    );
    const recorded = await waitFor('the voided link holds its records', async () => {
      const l = await stack.service.getPaymentLink(voided.id);
      return l.externalPayments.length === 1 && l.debitMemos.length === 1 ? l : undefined;
    });
    const external = recorded.externalPayments[0]!;
    const memo = recorded.debitMemos[0]!;
    ids.voidedExternalPayment = external.id;
    ids.voidedDebitMemo = memo.id;
    await stack.waitForBooks(
      'external payments and memos booked',
      hasKeys(`external-payment:${external.id}`, `debit-memo:${memo.id}`),
    );
    await commands.call('voidExternalPayment', { id: voided.id, externalPaymentId: external.id });
    await commands.call('voidDebitMemo', { id: voided.id, debitMemoId: memo.id });
    await stack.waitForBooks(
      'the voids booked',
      hasKeys(`reversal:external-payment:${external.id}`, `reversal:debit-memo:${memo.id}`),
    );

    // Two checks deposited and applied to a link each: one cleared, one returned unpaid.
    const clearedLink = await link('Timing: paid by a cleared check', 700_00);
    const returnedLink = await link('Timing: paid by a returned check', 300_00);
    const cleared = await stack.sandbox.depositCheck(700_00, 'Timing check cleared');
    const returned = await stack.sandbox.depositCheck(300_00, 'Timing check returned');
    ids.clearedDeposit = cleared.id;
    ids.returnedDeposit = returned.id;
    await commands.call('applyDeposit', { checkDepositId: cleared.id }, { paymentLinkId: clearedLink.id });
    await commands.call('applyDeposit', { checkDepositId: returned.id }, { paymentLinkId: returnedLink.id });
    for (const deposit of [cleared, returned]) {
      await waitFor(`deposit ${deposit.id} applied`, async () =>
        (await stack.service.getCheckDeposit(deposit.id)).applications.length === 1 ? true : undefined,
      );
    }
    const applied = await stack.waitForBooks('the applications booked', (books) =>
      [cleared, returned].every(
        (d) =>
          Object.keys(books.entries).some((k) => k.startsWith('check-application:')) &&
          `check-deposited:${d.id}` in books.entries,
      ),
    );
    expect(Object.keys(applied.entries).filter((k) => k.startsWith('check-application:')).length).toBe(2);
    await stack.sandbox.settleCheckDeposit(cleared.id, 'clear');
    await commands.call('refreshDeposit', { checkDepositId: cleared.id });
    await stack.waitForBooks('the cleared check booked', hasKeys(`check-cleared:${cleared.id}`));
    await stack.sandbox.settleCheckDeposit(returned.id, 'return');
    await commands.call('refreshDeposit', { checkDepositId: returned.id });
    await stack.waitForBooks(
      'the returned check reversed',
      hasKeys(`reversal:check-deposited:${returned.id}`),
    );

    // A vendor paid by check twice: one check deposited by the vendor, one returned.
    const vendor = await stack.service.createVendor({ name: 'Timing Mill', email: 'ar@timing.example' });
    const method = await stack.sandbox.submitVendorOnboardingForm(vendor.id, {
      type: 'CHECK',
      checkAddress: { name: 'Timing Mill', street: '1 Mill Rd', city: 'Salina', state: 'KS', zip: '67401' },
    });
    const paidBill = await stack.service.createBill({
      vendorId: vendor.id,
      amountCents: 975_00,
      invoiceNumber: 'TM-1',
    });
    const returnedBill = await stack.service.createBill({
      vendorId: vendor.id,
      amountCents: 120_00,
      invoiceNumber: 'TM-2',
    });
    const paidCheck = await stack.service.createBillPayment(paidBill.id, method.id);
    const returnedCheck = await stack.service.createBillPayment(returnedBill.id, method.id);
    ids.paidCheck = paidCheck.id;
    ids.returnedCheck = returnedCheck.id;
    for (const moment of ['sent', 'delivered', 'deposited'] as const) {
      await stack.sandbox.advanceBillCheck(paidCheck.id, moment);
      await stack.waitForQuiet();
    }
    for (const moment of ['sent', 'returned'] as const) {
      await stack.sandbox.advanceBillCheck(returnedCheck.id, moment);
      await stack.waitForQuiet();
    }

    // Card and ACH payments: a card refund, an ACH left standing, an ACH returned by the bank.
    const card = await stack.pay((await link('Timing: card, partly refunded', 100_00)).id, 'Card');
    const ach = await stack.pay((await link('Timing: ACH', 80_00)).id, 'ACH');
    const achReturned = await stack.pay((await link('Timing: ACH returned', 70_00)).id, 'ACH');
    ids.card = card.id;
    ids.ach = ach.id;
    ids.achReturned = achReturned.id;
    await stack.waitForQuiet();
    await stack.settle(card.id);
    await stack.refund(card.id, 30_00);
    await stack.waitForQuiet();
    await stack.achReturn(achReturned.id);
    await stack.waitForQuiet();

    // The payout of what settled, sent and paid.
    const disbursement = await stack.batchDisbursement();
    ids.disbursement = disbursement.id;
    await stack.waitForQuiet();
    await stack.succeedDisbursement(disbursement.id);
    await stack.waitForQuiet();

    // Reconciliation finds nothing to repair but the invoices of the emulator's seeded links, which no step touched.
    const report = await reconcile();
    expect(report.problems).toEqual([]);
    expect(report.fixed).toEqual({ posted: { invoice: report.fixed.posted.invoice }, reversed: {} });

    const books = await stack.books();
    expect(books.balanced).toBe(true);
    runs.immediate = books;
    events = (await stack.events()).map((e) => e.event);
    for (const category of [
      'payment.made',
      'payment.refunded',
      'payment.failed',
      'disbursement.pending',
      'disbursement.succeeded',
      'check.sent',
      'check.delivered',
      'check.deposited',
      'check.returned',
    ]) {
      expect(events.map((e) => e.category)).toContain(category);
    }
  }, 600_000);

  it('(2) books the same from every delivery held until the end, then delivered in order', async () => {
    expect(runs.immediate).toBeDefined();
    await stack.freshBooks();
    for (const event of events) {
      expect(await stack.deliver(JSON.stringify(event))).toMatchObject({ status: 200 });
    }
    await stack.waitForQuiet(120_000);
    const report = await reconcile();
    expect(report.problems).toEqual([]);
    runs.heldInOrder = await stack.books();
    expect(runs.heldInOrder.balanced).toBe(true);
    expect(differences(comparable(finalStateOnly(runs.immediate!)), comparable(runs.heldInOrder))).toEqual(
      none,
    );
    // The returned vendor check, first seen returned, books its send and the reversal of it.
    expect(runs.heldInOrder.entries[`bill-payment-sent:${ids.returnedCheck}`]?.reversedBy).toBe(
      `reversal:bill-payment-sent:${ids.returnedCheck}`,
    );
  }, 600_000);

  it('(3) books the same from every delivery held until the end, shuffled, each twice', async () => {
    expect(runs.immediate).toBeDefined();
    await stack.freshBooks();
    const deliveries = shuffled([...events, ...events], 20_261_129);
    for (let i = 0; i < deliveries.length; i += 4) {
      const answers = await Promise.all(
        deliveries.slice(i, i + 4).map((event) => stack.deliver(JSON.stringify(event))),
      );
      for (const answer of answers) expect(answer).toMatchObject({ status: 200 });
    }
    await stack.waitForQuiet(120_000);
    const report = await reconcile();
    expect(report.problems).toEqual([]);
    runs.heldShuffled = await stack.books();
    expect(differences(comparable(finalStateOnly(runs.immediate!)), comparable(runs.heldShuffled))).toEqual(
      none,
    );
    // Held in order or shuffled and twice: the very same ledger, descriptions and balances included.
    expect(runs.heldShuffled.entries).toEqual(runs.heldInOrder?.entries);
    expect(runs.heldShuffled.balances).toEqual(runs.heldInOrder?.balances);
  }, 600_000);
});
