import type { Payment } from '@booksync/service-contract/schemas/index';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disbursementViewQuery } from '../../src/flows/disbursement/contract.js';
import { type PaymentView, paymentViewQuery } from '../../src/flows/payment/contract.js';
import { achReturnWindowDays } from '../../src/flows/payment/workflow.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { type E2EStack, startE2EStack } from '../support/e2e-stack.js';
import { startTimeSkipping } from '../support/temporal.js';
import { cardFee, ExpectedBooks, netLines } from './expected-books.js';

// The payment workflow with its REAL activity (HTTP to the emulator, a ledger file) on Temporal's
// time-skipping server, so the 60-day ACH window is the real durable timer. Webhooks are replaced by what
// the ingress does with them (signalWithStart of the emulator's own event envelopes); the ingress itself is
// covered by books-over-webhooks.test.ts.

const dayMs = 86_400_000;

describe('payment workflow, real activities, time skipping', () => {
  let env: TestWorkflowEnvironment;
  let stack: E2EStack;
  const signalled = new Set<string>();

  beforeAll(async () => {
    env = await startTimeSkipping();
    stack = await startE2EStack({ temporal: env, dispatcher: 'none' });
  });
  afterAll(async () => {
    await stack?.stop();
    await env?.teardown();
  });

  /** Signals the emulator's not yet signalled `category` event(s) of the payment, as the ingress would. */
  async function announce(category: string, payment: Pick<Payment, 'id'>): Promise<string> {
    const events = (await stack.events()).filter(
      (e) =>
        e.event.category === category &&
        e.event.associated_object_id === payment.id &&
        !signalled.has(e.event.id),
    );
    expect(events.length).toBe(1);
    const event = events[0]!.event;
    signalled.add(event.id);
    return stack.signalEvent(event);
  }

  /**
   * The view of a workflow once closed. Never `handle.result()`: while a client awaits a result the
   * time-skipping server may skip freely, so the tests move time only with env.sleep.
   */
  async function closedView(workflowId: string): Promise<PaymentView> {
    await stack.waitForWorkflow(workflowId, { closed: true });
    return env.client.workflow.getHandle(workflowId).query(paymentViewQuery);
  }

  const link = (name: string, amountCents: number, feePassthroughPercent?: number) =>
    stack.service.createPaymentLink({
      name,
      requestedAmountCents: amountCents,
      ...(feePassthroughPercent === undefined ? {} : { feePassthroughPercent }),
    });
  /** Everything booked for the payment (its refunds and reversals included): key -> net lines. */
  const entriesOf = async (paymentId: string) =>
    new Map((await stack.ledger.entriesFor({ paymentId })).map((e) => [e.key, netLines(e.lines)]));
  const receivableOf = async (paymentLinkId: string) =>
    (await stack.ledger.entriesFor({ paymentLinkId }))
      .flatMap((e) => e.lines)
      .filter((l) => l.account === Accounts.AccountsReceivable)
      .reduce((sum, l) => sum + l.amountCents, 0);

  it('reverses an ACH payment returned on day 59 (payment.failed), the invoice is owed again, and the workflow closes RETURNED', async () => {
    await stack.alignClock();
    const invoice = await link('TS ACH returned on day 59', 70_00);
    const payment = await stack.pay(invoice.id, 'ACH');
    const workflowId = await announce('payment.made', payment);
    await stack.waitForBooks('ACH payment booked', (b) => `payment:${payment.id}` in b.entries);
    // The invoice (booked first) is paid: nothing owed.
    expect(await receivableOf(invoice.id)).toBe(0);
    expect((await stack.service.getPaymentLink(invoice.id)).status).toBe('PAID');

    await env.sleep('59 days');
    await stack.advanceClock({ days: 59 });
    const returned = await stack.achReturn(payment.id);
    expect(returned.status).toBe('FAILED');
    await announce('payment.failed', payment);
    // The same event delivered again is dropped by event id.
    const failedEvent = (await stack.events()).find(
      (e) => e.event.category === 'payment.failed' && e.event.associated_object_id === payment.id,
    )!.event;
    await stack.signalEvent(failedEvent);

    const view = await closedView(workflowId);
    expect(view.state).toBe('RETURNED');
    expect(view.serviceStatus).toBe('FAILED');
    const livedMs = Date.parse(view.closedAt!) - payment.createdAt;
    expect(livedMs).toBeGreaterThanOrEqual(59 * dayMs);
    expect(livedMs).toBeLessThan(achReturnWindowDays * dayMs);

    const expected = new ExpectedBooks();
    expected.payment(payment.id, 70_00);
    expected.reverse(`payment:${payment.id}`);
    expect(await entriesOf(payment.id)).toEqual(expected.entries);
    expect(await receivableOf(invoice.id)).toBe(70_00);
    const reopened = await stack.service.getPaymentLink(invoice.id);
    expect([reopened.status, reopened.completedAmountCents]).toEqual(['ACTIVE', 0]);
    expect(await receivableOf(invoice.id)).toBe(
      reopened.requestedAmountCents - reopened.completedAmountCents,
    );
  });

  it('keeps an ACH payment with no return open exactly 60 days from payment.made, then closes it CLOSED with the books unchanged', async () => {
    await stack.alignClock();
    const invoice = await link('TS ACH never returned', 45_00);
    const payment = await stack.pay(invoice.id, 'ACH');
    const workflowId = await announce('payment.made', payment);
    const handle = env.client.workflow.getHandle(workflowId);
    await stack.waitForBooks('ACH payment booked', (b) => `payment:${payment.id}` in b.entries);
    const booked = await entriesOf(payment.id);
    await stack.settle(payment.id); // PENDING -> SUCCEEDED: no event, nothing new for the books

    await env.sleep('59 days');
    const onDay59 = await handle.query(paymentViewQuery);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect(onDay59.state).toBe('IN_RETURN_WINDOW');
    expect(Date.parse(onDay59.returnWindowEndsAt!) - payment.createdAt).toBe(60 * dayMs);

    await env.sleep('1 day');
    const view = await closedView(workflowId);
    expect(view.state).toBe('CLOSED');
    expect(view.serviceStatus).toBe('SUCCEEDED');
    const closedAfterWindowMs = Date.parse(view.closedAt!) - Date.parse(view.returnWindowEndsAt!);
    expect(closedAfterWindowMs).toBeGreaterThanOrEqual(0);
    expect(closedAfterWindowMs).toBeLessThan(60_000);
    // The closing look found nothing to do.
    expect(view.lastSync).toMatchObject({ posted: [], reversed: [] });
    expect(await entriesOf(payment.id)).toEqual(booked);
    expect(await receivableOf(invoice.id)).toBe(0);
  });

  it('books a partial card refund, a void before settlement and a returned ACH refund credit as the mapping says', async () => {
    await stack.alignClock();
    const expected = new ExpectedBooks();

    // Card, payer pays half the fee; settled, then partly refunded (a fresh run after the first closed).
    const cardInvoice = await link('TS card 50%', 300_00, 50);
    const card = await stack.pay(cardInvoice.id, 'Card');
    const cardFees = cardFee(300_00, 50);
    expect(card.platformFeeInCents).toBe(cardFees.platformFee);
    await closedView(await announce('payment.made', card));
    await stack.settle(card.id);
    const refunded = await stack.refund(card.id, 120_00);
    const cardRefund = refunded.refunds.at(-1)!;
    const afterRefund = await closedView(await announce('payment.refunded', card));
    expect(afterRefund.lastSync).toMatchObject({
      posted: [`refund:${cardRefund.id}`, `refund-reopen:${cardRefund.id}`],
      reversed: [],
    });
    expected.payment(card.id, 300_00, cardFees.platformFee, cardFees.passedThrough);
    expected.refund(cardRefund.id, 120_00);

    // Card refunded before settlement: payment.voided, the payment and its fee reversed.
    const voidInvoice = await link('TS card voided', 25_00);
    const toVoid = await stack.pay(voidInvoice.id, 'Card');
    await closedView(await announce('payment.made', toVoid));
    const voided = await stack.refund(toVoid.id);
    expect(voided.refunds.at(-1)?.voided).toBe(true);
    const afterVoid = await closedView(await announce('payment.voided', toVoid));
    expect(afterVoid.lastSync?.reversed.sort()).toEqual([`payment-fee:${toVoid.id}`, `payment:${toVoid.id}`]);
    expected.payment(toVoid.id, 25_00, cardFee(25_00, 0).platformFee);
    expected.reverse(`payment:${toVoid.id}`);
    expected.reverse(`payment-fee:${toVoid.id}`);

    // ACH settled and fully refunded; the refund credit comes back (REFUNDED -> SUCCEEDED, payment.failed).
    const achInvoice = await link('TS ACH refund credit returned', 90_00);
    const ach = await stack.pay(achInvoice.id, 'ACH');
    const achWorkflow = await announce('payment.made', ach);
    await stack.settle(ach.id);
    const achRefund = (await stack.refund(ach.id)).refunds.at(-1)!;
    await announce('payment.refunded', ach);
    await stack.waitForBooks('ACH refund booked', (b) => `refund:${achRefund.id}` in b.entries);
    const back = await stack.returnRefund(achRefund.id);
    expect(back.status).toBe('SUCCEEDED');
    await announce('payment.failed', ach);
    await stack.waitForBooks('refund credit reversed', (b) => `reversal:refund:${achRefund.id}` in b.entries);
    await stack.waitForQuiet();
    const achView = await env.client.workflow.getHandle(achWorkflow).query(paymentViewQuery);
    expect([achView.state, achView.serviceStatus]).toEqual(['IN_RETURN_WINDOW', 'SUCCEEDED']);
    expected.payment(ach.id, 90_00);
    expected.refund(achRefund.id, 90_00);
    expected.reverse(`refund:${achRefund.id}`);
    expected.reverse(`refund-reopen:${achRefund.id}`);

    const actual = new Map([
      ...(await entriesOf(card.id)),
      ...(await entriesOf(toVoid.id)),
      ...(await entriesOf(ach.id)),
    ]);
    expect(actual).toEqual(expected.entries);
    expect((await stack.books()).balanced).toBe(true);
    await stack.hledgerCheck();
    await env.client.workflow.getHandle(achWorkflow).terminate('test over');
  });

  it('books a payout and finds its amount matches its payments when one of them is refunded after the batch on the same day', async () => {
    await stack.alignClock();
    const invoice = await link('TS card paid out, refunded after the batch', 200_00);
    const payment = await stack.pay(invoice.id, 'Card');
    await closedView(await announce('payment.made', payment));
    await stack.settle(payment.id);
    const disbursement = await stack.batchDisbursement();
    expect(disbursement.paymentIds).toContain(payment.id);
    // Later the same day: a refund of a payment the payout already took. It lowers a later payout, not this one.
    const refund = (await stack.refund(payment.id, 30_00)).refunds.at(-1)!;
    expect(refund.refundDate.slice(0, 10)).toBe(disbursement.createdAt);
    await announce('payment.refunded', payment);
    await stack.succeedDisbursement(disbursement.id);

    const signal = async (category: string) => {
      const event = (await stack.events()).find(
        (e) => e.event.category === category && e.event.associated_object_id === disbursement.id,
      )!.event;
      return stack.signalEvent(event);
    };
    const workflowId = await signal('disbursement.pending');
    await signal('disbursement.succeeded');
    await stack.waitForWorkflow(workflowId, { closed: true });
    const view = await env.client.workflow.getHandle(workflowId).query(disbursementViewQuery);
    expect(view).toMatchObject({ state: 'PAID', amountInCents: disbursement.amountInCents, lastError: null });
    expect(view.amountMatchesPayments).toBe(true);

    const expected = new ExpectedBooks();
    expected.disbursement(disbursement.id, disbursement.amountInCents, true);
    const booked = new Map(
      (await stack.ledger.entriesFor({ disbursementId: disbursement.id })).map((e) => [
        e.key,
        netLines(e.lines),
      ]),
    );
    expect(booked).toEqual(expected.entries);
    await stack.waitForQuiet();
  });

  it('finds a payout the bank refused (no event, E5) on its daily look and reverses it, so the money is back in Processor Clearing', async () => {
    await stack.alignClock();
    const invoice = await link('TS card in a refused payout', 64_00);
    const payment = await stack.pay(invoice.id, 'Card');
    await closedView(await announce('payment.made', payment));
    await stack.settle(payment.id);
    const clearingBefore = await stack.ledger.balanceOf(Accounts.ProcessorClearing);
    const disbursement = await stack.batchDisbursement();
    const pending = (await stack.events()).find(
      (e) => e.event.category === 'disbursement.pending' && e.event.associated_object_id === disbursement.id,
    )!.event;
    const workflowId = await stack.signalEvent(pending);
    await stack.waitForBooks('payout pending', (b) => `disbursement-pending:${disbursement.id}` in b.entries);
    expect(await stack.ledger.balanceOf(Accounts.ProcessorClearing)).toBe(
      clearingBefore - disbursement.amountInCents,
    );

    const refused = await fetch(`${stack.emulatorUrl}/sandbox/disbursements/${disbursement.id}/fail`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}` },
    });
    expect(refused.status).toBe(200);
    await stack.waitForQuiet();
    expect((await env.client.workflow.getHandle(workflowId).query(disbursementViewQuery)).state).toBe(
      'IN_TRANSIT',
    );
    await env.sleep('1 day');
    await stack.waitForWorkflow(workflowId, { closed: true });
    const view = await env.client.workflow.getHandle(workflowId).query(disbursementViewQuery);
    expect(view).toMatchObject({ state: 'FAILED', serviceStatus: 'FAILED' });

    const expected = new ExpectedBooks();
    expected.disbursement(disbursement.id, disbursement.amountInCents, false);
    expected.reverse(`disbursement-pending:${disbursement.id}`);
    const booked = new Map(
      (await stack.ledger.entriesFor({ disbursementId: disbursement.id })).map((e) => [
        e.key,
        netLines(e.lines),
      ]),
    );
    expect(booked).toEqual(expected.entries);
    expect(await stack.ledger.balanceOf(Accounts.ProcessorClearing)).toBe(clearingBefore);
  });
});
