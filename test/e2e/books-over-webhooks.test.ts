import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EventEnvelope, Payment } from '@booksync/service-contract/schemas/index';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentView } from '../../src/flows/payment/contract.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import type { BooksSnapshot } from '../support/books-snapshot.js';
import { type E2EStack, startE2EStack } from '../support/e2e-stack.js';
import { startDevServer } from '../support/temporal.js';
import {
  actualEntries,
  cardFee,
  ExpectedBooks,
  finalStateEntries,
  liveEntries,
  shuffled,
} from './expected-books.js';

// The whole path on a real Temporal dev server: the emulator's sandbox acts, the emulator signs and POSTs
// its events, the ingress verifies and signals, the workflows fetch state over HTTP and write a ledger
// file. The expected books are computed in this file from the scenario's amounts (mapping table, decision “Fees”).

const lastRefund = (payment: Payment) => {
  const refund = payment.refunds.at(-1);
  if (!refund) throw new Error(`payment ${payment.id} has no refund`);
  return refund;
};

// Both senders the emulator has: its in-process HTTP dispatcher, and webhook delivery workflows (decision “Webhook delivery”) run by
// the emulator's delivery worker on the same dev server, as `booksync start` runs them.
describe.each(['direct', 'temporal'] as const)(
  'books over signed webhooks, end to end (%s dispatch)',
  (dispatcher) => {
    let env: TestWorkflowEnvironment;
    let stack: E2EStack;
    const expected = new ExpectedBooks();
    let cleanRun: BooksSnapshot;
    let cleanEvents: EventEnvelope[] = [];

    beforeAll(async () => {
      env = await startDevServer();
      stack = await startE2EStack({ temporal: env, dispatcher });
    });
    afterAll(async () => {
      await stack?.stop();
      await env?.teardown();
    });

    const link = async (name: string, amountCents: number, feePassthroughPercent?: number) =>
      stack.service.createPaymentLink({
        name,
        requestedAmountCents: amountCents,
        ...(feePassthroughPercent === undefined ? {} : { feePassthroughPercent }),
      });
    const hasKeys =
      (...keys: string[]) =>
      (books: BooksSnapshot) =>
        keys.every((k) => k in books.entries);

    it('books card (0% and 50% passthrough), ACH and balance payments, partial and full refunds, a void, an ACH return, a returned refund credit and a paid-out disbursement exactly as the mapping table says', async () => {
      // Links: two cards with different passthrough, two ACH, one service balance, one card to be voided.
      const card0 = await link('E2E card, business absorbs the fee', 100_00, 0);
      const card50 = await link('E2E card, payer pays half the fee', 250_00, 50);
      const achRefunded = await link('E2E ACH, refund credit comes back', 80_00);
      const achReturned = await link('E2E ACH, returned by the bank', 70_00);
      const balance = await link('E2E service balance', 60_00);
      const cardVoided = await link('E2E card, refunded before settlement', 40_00);

      const p0 = await stack.pay(card0.id, 'Card');
      const p50 = await stack.pay(card50.id, 'Card');
      const pAchRefunded = await stack.pay(achRefunded.id, 'ACH');
      const pAchReturned = await stack.pay(achReturned.id, 'ACH');
      const pBalance = await stack.pay(balance.id, 'ServiceBalance');
      const pVoided = await stack.pay(cardVoided.id, 'Card');

      // Decision “Fees”, computed here: the service must agree, and so must the books below.
      const f0 = cardFee(100_00, 0);
      const f50 = cardFee(250_00, 50);
      const fVoided = cardFee(40_00, 0);
      expect(f50).toEqual({ fee: 755, passedThrough: 378, platformFee: 377 });
      expect([p0.platformFeeInCents, p0.chargedAmountInCents]).toEqual([f0.platformFee, 100_00]);
      expect([p50.platformFeeInCents, p50.chargedAmountInCents]).toEqual([f50.platformFee, 250_00 + 378]);
      expect([pAchRefunded.status, pAchRefunded.platformFeeInCents]).toEqual(['PENDING', 0]);

      // Each payment's sync books its link's invoice first.
      expected.invoice(card0.id, 100_00);
      expected.invoice(card50.id, 250_00);
      expected.invoice(achRefunded.id, 80_00);
      expected.invoice(achReturned.id, 70_00);
      expected.invoice(balance.id, 60_00);
      expected.invoice(cardVoided.id, 40_00);
      expected.payment(p0.id, 100_00, f0.platformFee);
      expected.payment(p50.id, 250_00, f50.platformFee, f50.passedThrough);
      expected.payment(pAchRefunded.id, 80_00);
      expected.payment(pAchReturned.id, 70_00);
      expected.payment(pBalance.id, 60_00);
      expected.payment(pVoided.id, 40_00, fVoided.platformFee);
      await stack.waitForBooks(
        'every payment.made booked',
        hasKeys(
          ...[p0, p50, pAchRefunded, pAchReturned, pBalance, pVoided].map((p) => `payment:${p.id}`),
          `payment-fee:${p0.id}`,
          `payment-fee:${p50.id}`,
          `surcharge-fee:${p50.id}`,
          `payment-fee:${pVoided.id}`,
        ),
      );
      // A card payment's workflow closes once booked; keep its run to show the refund starts a fresh one.
      const card50Workflow = `payment-${p50.id}`;
      const firstRun = await stack.waitForWorkflow(card50Workflow, { closed: true });
      expect(firstRun.status.name).toBe('COMPLETED');

      // Settlement (no event), then refunds: partial card, full balance, full ACH credit, void before settlement.
      await stack.settle(p0.id);
      await stack.settle(p50.id);
      await stack.settle(pAchRefunded.id);
      const r50 = lastRefund(await stack.refund(p50.id, 50_00));
      const rBalance = lastRefund(await stack.refund(pBalance.id));
      const rAch = lastRefund(await stack.refund(pAchRefunded.id));
      const voided = await stack.refund(pVoided.id);
      expect(voided.status).toBe('REFUNDED');
      expect(lastRefund(voided).voided).toBe(true);
      const returned = await stack.achReturn(pAchReturned.id);
      expect(returned.status).toBe('FAILED');

      expected.refund(r50.id, 50_00);
      expected.refund(rBalance.id, 60_00);
      expected.refund(rAch.id, 80_00);
      expected.reverse(`payment:${pVoided.id}`);
      expected.reverse(`payment-fee:${pVoided.id}`);
      expected.reverse(`payment:${pAchReturned.id}`);
      await stack.waitForBooks(
        'refunds, the void and the ACH return booked',
        hasKeys(
          `refund:${r50.id}`,
          `refund:${rBalance.id}`,
          `refund:${rAch.id}`,
          `reversal:payment:${pVoided.id}`,
          `reversal:payment-fee:${pVoided.id}`,
          `reversal:payment:${pAchReturned.id}`,
        ),
      );

      // The ACH refund credit comes back: REFUNDED -> SUCCEEDED, payment.failed, the refund entry reversed.
      const afterCreditReturned = await stack.returnRefund(rAch.id);
      expect(afterCreditReturned.status).toBe('SUCCEEDED');
      expected.reverse(`refund:${rAch.id}`);
      expected.reverse(`refund-reopen:${rAch.id}`);
      await stack.waitForBooks('returned refund credit reversed', hasKeys(`reversal:refund:${rAch.id}`));

      // Payout: everything settled and still standing, net of absorbed fees and live refunds (decision “Disbursement statuses”), computed here.
      const payout =
        100_00 -
        f0.platformFee +
        (250_00 - f50.platformFee - 50_00) +
        (80_00 - 80_00 + 80_00) +
        (60_00 - 60_00);
      const disbursement = await stack.batchDisbursement();
      expect(disbursement.amountInCents).toBe(payout);
      await stack.waitForBooks('disbursement pending', hasKeys(`disbursement-pending:${disbursement.id}`));
      await stack.succeedDisbursement(disbursement.id);
      expected.disbursement(disbursement.id, payout, true);
      await stack.waitForBooks('disbursement paid', hasKeys(`disbursement-paid:${disbursement.id}`));
      await stack.waitForQuiet();

      // Account by account, and entry by entry (key, lines, which ones are reversed).
      const books = await stack.books();
      const balances = expected.balances();
      expect(books.balances).toEqual(balances);
      expect(balances[Accounts.ProcessorClearing]).toBe(0); // everything settled was disbursed and paid
      expect(balances[Accounts.PayoutsInTransit]).toBe(0);
      expect(balances[Accounts.OperatingBank]).toBe(payout);
      // The whole card fee, the part the payer paid included (received as Surcharge Income).
      expect(balances[Accounts.ProcessingFees]).toBe(f0.platformFee + f50.fee);
      expect(balances[Accounts.SurchargeIncome]).toBe(-f50.passedThrough);
      // The refunds reopened their invoices (decision “completedAmountCents”): the money is owed again, not a concession.
      expect(balances[Accounts.Refunds]).toBe(0);
      expect(balances[Accounts.AccountsReceivable]).toBe(50_00 + 60_00 + 70_00 + 40_00);
      expect(books.balanced).toBe(true);
      expect(actualEntries(books)).toEqual(expected.entries);
      const reversedKeys = Object.entries(books.entries)
        .filter(([, e]) => e.reversedBy !== null)
        .map(([k]) => k)
        .sort();
      expect(reversedKeys).toEqual([...expected.reversed].sort());

      // The returned ACH payment's invoice is owed again, in the service and in the books.
      const reopened = await stack.service.getPaymentLink(achReturned.id);
      expect([reopened.status, reopened.completedAmountCents]).toEqual(['ACTIVE', 0]);
      const receivableOfReturned = (await stack.ledger.entriesFor({ paymentLinkId: achReturned.id }))
        .flatMap((e) => e.lines)
        .filter((l) => l.account === Accounts.AccountsReceivable)
        .reduce((sum, l) => sum + l.amountCents, 0);
      expect(receivableOfReturned).toBe(70_00);
      expect(receivableOfReturned).toBe(reopened.requestedAmountCents - reopened.completedAmountCents);
      // Every link of the scenario: what the books say it still owes is the service's remainder.
      const open = new Map(
        (await stack.ledger.openItems('receivable')).map((i) => [i.documentId, i.openCents]),
      );
      for (const l of [card0, card50, achRefunded, achReturned, balance, cardVoided]) {
        const fetched = await stack.service.getPaymentLink(l.id);
        expect([l.name, open.get(l.id)]).toEqual([
          l.name,
          fetched.requestedAmountCents - fetched.completedAmountCents,
        ]);
      }

      // The refund of the closed card payment started a fresh run that booked only the refund.
      const latest = await stack.waitForWorkflow(card50Workflow, { closed: true });
      expect(latest.runId).not.toBe(firstRun.runId);
      const firstView: PaymentView = await env.client.workflow
        .getHandle(card50Workflow, firstRun.runId)
        .result();
      const latestView: PaymentView = await env.client.workflow
        .getHandle(card50Workflow, latest.runId)
        .result();
      expect(firstView.lastSync?.posted.sort()).toEqual(
        [
          `payment-fee:${p50.id}`,
          `payment:${p50.id}`,
          `payment-surcharge:${p50.id}`,
          `surcharge-fee:${p50.id}`,
        ].sort(),
      );
      expect(latestView.lastSync).toMatchObject({
        posted: [`refund:${r50.id}`, `refund-reopen:${r50.id}`],
        reversed: [],
      });
      expect(latestView.state).toBe('CLOSED');
      const bookedOnce = await stack.ledger.entriesFor({ paymentId: p50.id });
      expect(bookedOnce.map((e) => e.key).sort()).toEqual(
        [
          `payment-fee:${p50.id}`,
          `payment:${p50.id}`,
          `payment-surcharge:${p50.id}`,
          `surcharge-fee:${p50.id}`,
          `refund:${r50.id}`,
          `refund-reopen:${r50.id}`,
        ].sort(),
      );

      // Every webhook reached the ingress signed and was acknowledged on the first attempt.
      const log = await stack.events();
      expect(log.map((e) => e.event.category).sort()).toEqual(
        [
          ...Array(6).fill('payment.made'),
          ...Array(3).fill('payment.refunded'),
          'payment.voided',
          'payment.failed',
          'payment.failed',
          'disbursement.pending',
          'disbursement.succeeded',
        ].sort(),
      );
      for (const entry of log) expect(entry.attempts.map((a) => a.statusCode)).toEqual([200]);

      cleanRun = books;
      cleanEvents = log.map((e) => e.event);
    });

    it('passes hledger check -s on the export, with closing assertions from the ledger and from the expected balances', async () => {
      expect(cleanRun).toBeDefined();
      const { balanceReport } = await stack.hledgerCheck(expected.balances());
      expect(balanceReport).toContain('assets:receivable');
      // hledger's own figure for the bank, in dollars, equals the payout.
      const bank = expected.balances()[Accounts.OperatingBank];
      expect(balanceReport).toMatch(
        new RegExp(`\\$${(bank / 100).toFixed(2).replace('.', '\\.')}\\s+assets:bank:operating`),
      );
    });

    it('books the same from every event delivered twice, shuffled, on fresh books and fresh workflows', async () => {
      expect(cleanEvents.length).toBe(14);
      await stack.freshBooks();
      expect(Object.keys((await stack.books()).entries)).toEqual([]);

      const deliveries = shuffled([...cleanEvents, ...cleanEvents], 20_260_504);
      // Four at a time, so deliveries of one payment also race each other.
      for (let i = 0; i < deliveries.length; i += 4) {
        const answers = await Promise.all(
          deliveries.slice(i, i + 4).map((event) => stack.deliver(JSON.stringify(event))),
        );
        for (const answer of answers) expect(answer).toMatchObject({ status: 200, json: { routed: true } });
      }
      await stack.waitForQuiet();
      const replay = await stack.books();

      // State is fetched, and a payment returned or cancelled books what it held and its reversal, dated by
      // its event: a replay books the clean run's entries key by key with their lines and dates, reversal
      // pairs (the void, the ACH return) included, and the same trial balance. Absent are only what the final
      // records no longer carry: the refund whose ACH credit came back, the fee of the voided charge.
      expect(replay.balances).toEqual(cleanRun.balances);
      expect(replay.entries).toEqual(finalStateEntries(cleanRun));
      expect(Object.keys(liveEntries(replay)).sort()).toEqual(expected.liveKeys());

      // A second shuffled round on top changes nothing.
      for (const event of shuffled(cleanEvents, 7)) {
        expect((await stack.deliver(JSON.stringify(event))).status).toBe(200);
      }
      await stack.waitForQuiet();
      expect(await stack.books()).toEqual(replay);
      await stack.hledgerCheck(expected.balances());
    });

    it('changes nothing in the books for forged, stale, future, unsigned, malformed, oversize or unknown deliveries, and starts no workflow', async () => {
      // A real payment whose webhook goes nowhere, so only the deliveries below could book it.
      const elsewhere = await stack.service.createWebhook({ url: 'http://127.0.0.1:9/nowhere' });
      expect(elsewhere.secret).not.toBe(stack.webhookSecret);
      const target = await link('E2E never announced', 12_34);
      const payment = await stack.pay(target.id, 'Card');
      const made = (await stack.events()).find(
        (e) => e.event.category === 'payment.made' && e.event.associated_object_id === payment.id,
      );
      expect(made).toBeDefined();
      const envelope = made!.event;
      const body = JSON.stringify(envelope);
      const workflowId = `payment-${payment.id}`;
      const before = await stack.books();

      const unknown = JSON.stringify({ ...envelope, id: randomUUID(), category: 'payment.teleported' });
      const oversize = JSON.stringify({ ...envelope, padding: 'x'.repeat(70 * 1024) });
      const attempts = [
        {
          name: 'forged signature',
          send: () => stack.deliver(body, { signature: { secret: elsewhere.secret! } }),
          status: 401,
        },
        { name: 'stale t (-301 s)', send: () => stack.deliver(body, { skewSeconds: -301 }), status: 401 },
        { name: 'future t (+301 s)', send: () => stack.deliver(body, { skewSeconds: 301 }), status: 401 },
        { name: 'unsigned', send: () => stack.deliver(body, { signature: 'none' }), status: 401 },
        { name: 'malformed JSON', send: () => stack.deliver(`${body.slice(0, -1)},`), status: 400 },
        { name: 'oversize body', send: () => stack.deliver(oversize), status: 413 },
        { name: 'unknown category', send: () => stack.deliver(unknown), status: 200 },
      ];
      const statuses: Record<string, number> = {};
      for (const attempt of attempts) {
        statuses[attempt.name] = (await attempt.send()).status;
      }

      expect(statuses).toEqual(Object.fromEntries(attempts.map((a) => [a.name, a.status])));

      // Give anything wrongly signalled time to run, then: no workflow, not a cent moved.
      await sleep(2_000);
      await stack.waitForQuiet();
      expect(await stack.workflowExists(workflowId)).toBe(false);
      expect(await stack.books()).toEqual(before);

      // Control: the same envelope, properly signed, does book, so the rejections above were the reason.
      expect(await stack.deliver(body)).toMatchObject({ status: 200, json: { routed: true, workflowId } });
      const after = await stack.waitForBooks('the control delivery booked', hasKeys(`payment:${payment.id}`));
      // The invoice, the payment that pays it in full, and the absorbed fee.
      expect(Object.keys(after.entries).length - Object.keys(before.entries).length).toBe(3);
      expect(after.balances[Accounts.AccountsReceivable]).toBe(
        before.balances[Accounts.AccountsReceivable] ?? 0,
      );
      expect(after.balances[Accounts.Revenue]).toBe((before.balances[Accounts.Revenue] ?? 0) - 12_34);
    }, 150_000);
  },
);
