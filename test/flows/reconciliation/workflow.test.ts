import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestReconciliation } from '../../../src/cli/commands/reconcile.js';
import type {
  ReconciliationReport,
  ReconciliationRequestsView,
} from '../../../src/flows/reconciliation/contract.js';
import type { LedgerEntryInput } from '../../../src/ledger/entry.js';
import {
  disbursementEntries,
  invoiceEntryToPost,
  type PaymentSettles,
  paymentEntries,
  paymentLinkEntries,
  paymentSettles,
} from '../../../src/ledger/mapping/index.js';
import {
  ensureReconciliationSchedule,
  reconciliationScheduleId,
} from '../../../src/runtime/temporal/reconciliation-schedule.js';
import { checkWithHledger } from '../../support/hledger.js';
import { fixturesDir, startDevServer, workflowBundle } from '../../support/temporal.js';
import { eventually } from '../../support/wait-for.js';
import { balances, type Stack, startStack } from '../bill-payment/stack.js';

// Reconciliation repairs what dropped webhooks left out. A scenario (card and ACH payments, a refund, an
// external payment, a debit memo, a payout) runs once with webhooks reaching the ingress, once with the
// subscription pointing nowhere; reconciliation (by signal, and by the Schedule) makes the books equal
// what the service's state says, computed independently from the mappings, and the same as the clean run.

let env: TestWorkflowEnvironment;
let stack: Stack;

beforeAll(async () => {
  const [started, bundle] = await Promise.all([startDevServer(), workflowBundle()]);
  env = started;
  stack = await startStack(env, bundle);
});

afterAll(async () => {
  if (env) {
    for await (const wf of env.client.workflow.list({ query: 'ExecutionStatus = "Running"' })) {
      await env.client.workflow
        .getHandle(wf.workflowId)
        .terminate('test over')
        .catch(() => undefined);
    }
  }
  await stack?.close();
  await env?.teardown();
});

const today = () => new Date().toISOString().slice(0, 10);

/** The scenario: returns the customer it created. Every id is fresh, the amounts are the same each time. */
async function scenario(tag: string): Promise<{ customerId: string }> {
  const { service, sandbox } = stack;
  const customer = await service.createCustomer({ name: `Customer ${tag}`, emails: [`${tag}@example.com`] });
  const cardLink = await service.createPaymentLink({
    name: `INV-${tag}-card`,
    requestedAmountCents: 100_00,
    customerId: customer.id,
  });
  const achLink = await service.createPaymentLink({
    name: `INV-${tag}-ach`,
    requestedAmountCents: 250_00,
    customerId: customer.id,
  });
  const offlineLink = await service.createPaymentLink({
    name: `INV-${tag}-offline`,
    requestedAmountCents: 80_00,
    customerId: customer.id,
  });
  const card = await sandbox.payLink(cardLink.id, 'Card');
  const ach = await sandbox.payLink(achLink.id, 'ACH');
  await sandbox.settlePayment(card.id);
  await sandbox.settlePayment(ach.id);
  await service.refundPayment(card.id, { amountCents: 20_00, reason: 'damaged' });
  await service.recordExternalPayment(offlineLink.id, {
    amountCents: 80_00,
    paidAt: today(),
    externalReferenceId: `chk-${tag}`,
  });
  await service.recordDebitMemo(offlineLink.id, {
    amountCents: 15_00,
    description: 'Late fee',
    externalReferenceId: `memo-${tag}`,
  });
  const payout = await sandbox.batchDisbursement();
  await sandbox.succeedDisbursement(payout.id);
  return { customerId: customer.id };
}

/**
 * For every invoice (non-reusable link) at the service: its remainder there, and what it still owes in the
 * books (its receivable open item). Complete books make the two columns equal.
 */
async function owedPerLink(): Promise<{ service: Record<string, number>; books: Record<string, number> }> {
  const open = new Map((await stack.ledger.openItems('receivable')).map((i) => [i.documentId, i.openCents]));
  const service: Record<string, number> = {};
  const books: Record<string, number> = {};
  for await (const link of stack.service.paymentLinks()) {
    if (link.reusable) continue;
    service[link.id] = link.requestedAmountCents - link.completedAmountCents;
    books[link.id] = open.get(link.id) ?? 0;
  }
  return { service, books };
}

/** What the books should hold, from the service's state through the mappings (sums per account). */
async function expectedBalances(parts: { links: boolean }): Promise<Record<string, number>> {
  const entries: LedgerEntryInput[] = [];
  for await (const link of stack.service.paymentLinks()) {
    if (parts.links) entries.push(...paymentLinkEntries(link, { timeZone: 'UTC' }));
    // The invoice: booked by a payment's sync for a link with payments, by reconciliation for the others.
    if (parts.links || link.payments.length > 0) {
      const invoice = invoiceEntryToPost(link, [], today(), 'UTC');
      if (invoice) entries.push(invoice);
    }
  }
  const settles = new Map<string, PaymentSettles>();
  for await (const link of stack.service.paymentLinks()) settles.set(link.id, paymentSettles(link));
  for await (const payment of stack.service.payments()) {
    const ofLink = payment.paymentLinkId ? settles.get(payment.paymentLinkId) : 'sale';
    entries.push(...paymentEntries(payment, 'UTC', ofLink ?? 'invoice'));
  }
  const { disbursements } = await stack.service.listDisbursements({ pageSize: 100 });
  for (const disbursement of disbursements) entries.push(...disbursementEntries(disbursement));
  const result: Record<string, number> = {};
  for (const entry of entries) {
    for (const line of entry.lines) result[line.account] = (result[line.account] ?? 0) + line.amountCents;
  }
  for (const [account, cents] of Object.entries(result)) if (cents === 0) delete result[account];
  return result;
}

async function reconcileBySignal(
  scope: Parameters<typeof requestReconciliation>[1]['scope'],
): Promise<ReconciliationReport> {
  const { report } = await requestReconciliation(env.client, {
    scope,
    taskQueue: stack.taskQueue,
    timeoutSeconds: 120,
  });
  return report;
}

function subtract(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const result: Record<string, number> = {};
  for (const account of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const cents = (a[account] ?? 0) - (b[account] ?? 0);
    if (cents !== 0) result[account] = cents;
  }
  return result;
}

describe('reconciliation', { timeout: 240_000 }, () => {
  let clean: Record<string, number>;

  it('the clean run: webhooks book payments and the payout; reconciliation adds what has no event', async () => {
    await scenario('clean');
    await stack.deliveriesIdle();
    const eventDriven = await expectedBalances({ links: false });
    const sorted = (b: Record<string, number>) => JSON.stringify(Object.entries(b).sort());
    await eventually(
      async () => sorted(await balances(stack.ledger)) === sorted(eventDriven),
      'webhook-driven books',
    );
    await checkWithHledger(stack.ledger);

    // External payments and debit memos emit no events (6.5): reconciliation is what books them here, and
    // the invoices of the links nothing else told booksync about (the offline one, the seed's two).
    const report = await reconcileBySignal({ kind: 'all' });
    expect(report.fixed.posted).toEqual({ 'external-payment': 1, 'debit-memo': 1, invoice: 3 });
    expect(report.fixed.reversed).toEqual({});
    expect(report.driftFound).toEqual({ paymentLink: 3, payment: 0, disbursement: 0, checkDeposit: 0 });
    expect(report.examined.payment).toBe(2);
    expect(report.examined.disbursement).toBe(1);
    expect(report.problems).toEqual([]);
    clean = await balances(stack.ledger);
    expect(clean).toEqual(await expectedBalances({ links: true }));
    const cleanOwed = await owedPerLink();
    expect(Object.keys(cleanOwed.service).length).toBeGreaterThanOrEqual(5);
    expect(cleanOwed.books).toEqual(cleanOwed.service);
    await checkWithHledger(stack.ledger);
  });

  it('repairs dropped webhooks: by signal for a customer, then by the Schedule for the rest', async () => {
    await stack.webhooksNowhere();
    const { customerId } = await scenario('dropped');
    await stack.deliveriesIdle();
    await stack.webhooksToIngress();

    // Every delivery of this scenario failed, all attempts spent: the books did not move.
    const dropped = [];
    for await (const item of stack.sandbox.allEvents()) {
      if (
        item.attempts.length > 0 &&
        item.attempts.every((a) => a.statusCode === null || a.statusCode >= 300)
      ) {
        dropped.push(item);
      }
    }
    expect(dropped.map((d) => d.event.category).sort()).toEqual([
      'disbursement.pending',
      'disbursement.succeeded',
      'payment.made',
      'payment.made',
      'payment.refunded',
    ]);
    expect(dropped.every((d) => d.attempts.length === 5)).toBe(true);
    expect(await balances(stack.ledger)).toEqual(clean);

    // (a) the `reconcile` signal, scoped to the customer: its links, their records and payments.
    const byCustomer = await reconcileBySignal({ kind: 'customer', customerId });
    expect(byCustomer.examined).toEqual({ paymentLink: 3, payment: 2, disbursement: 0, checkDeposit: 0 });
    expect(byCustomer.driftFound).toEqual({ paymentLink: 3, payment: 2, disbursement: 0, checkDeposit: 0 });
    expect(byCustomer.fixed.posted).toEqual({
      'external-payment': 1,
      'debit-memo': 1,
      payment: 2,
      'payment-fee': 1,
      refund: 1,
      'refund-reopen': 1,
      invoice: 3,
    });
    expect(byCustomer.fixesTotal).toBe(10);

    // (b) the Schedule, created at start-up (twice is fine), triggered now: scope all finds the payout.
    const first = await ensureReconciliationSchedule(env.client, {
      taskQueue: stack.taskQueue,
      interval: '1h',
    });
    const again = await ensureReconciliationSchedule(env.client, {
      taskQueue: stack.taskQueue,
      interval: '2h',
    });
    expect([first.created, again.created]).toEqual([true, false]);
    const schedule = env.client.schedule.getHandle(reconciliationScheduleId);
    const described = await schedule.describe();
    expect(described.spec.intervals?.[0]?.every).toBe(2 * 60 * 60 * 1000);
    expect(described.action).toMatchObject({ workflowType: 'reconciliation', taskQueue: stack.taskQueue });
    await schedule.trigger();
    const workflowId = await eventually(async () => {
      const recent = (await schedule.describe()).info.recentActions;
      return recent[0]?.action.workflow.workflowId;
    }, 'schedule started a run');
    const bySchedule = (await env.client.workflow.getHandle(workflowId).result()) as ReconciliationReport;
    expect(bySchedule.scope).toEqual({ kind: 'all' });
    expect(bySchedule.fixed.posted).toEqual({ 'disbursement-pending': 1, 'disbursement-paid': 1 });
    expect(bySchedule.driftFound).toEqual({ paymentLink: 0, payment: 0, disbursement: 1, checkDeposit: 0 });
    const memo = (await env.client.workflow.getHandle(workflowId).describe()).memo as {
      report: ReconciliationReport;
    };
    expect(memo.report.fixesTotal).toBe(2);

    // The books equal the service's state, and the dropped run added exactly what the clean run did.
    const repaired = await balances(stack.ledger);
    expect(repaired).toEqual(await expectedBalances({ links: true }));
    const repairedOwed = await owedPerLink();
    expect(repairedOwed.books).toEqual(repairedOwed.service);
    // (The clean run's reconciliation also booked the seed's two invoices, once; the dropped run adds none.)
    const seedInvoices: Record<string, number> = {};
    for await (const link of stack.service.paymentLinks()) {
      if (/^INV-(clean|dropped)-/.test(link.name)) continue;
      for (const line of invoiceEntryToPost(link, [], today(), 'UTC')?.lines ?? []) {
        seedInvoices[line.account] = (seedInvoices[line.account] ?? 0) + line.amountCents;
      }
    }
    expect(Object.keys(seedInvoices)).toHaveLength(2);
    expect(subtract(repaired, clean)).toEqual(subtract(clean, seedInvoices));
    await checkWithHledger(stack.ledger);
  });

  it('a second run finds no drift (several continue-as-new runs of small pages)', async () => {
    const report = await reconcileBySignal({ kind: 'all' });
    expect(report.fixesTotal).toBe(0);
    expect(report.fixed).toEqual({ posted: {}, reversed: {} });
    expect(report.driftFound).toEqual({ paymentLink: 0, payment: 0, disbursement: 0, checkDeposit: 0 });

    const handle = await env.client.workflow.start('reconciliation', {
      workflowId: `reconcile-small-pages-${Date.now()}`,
      taskQueue: stack.taskQueue,
      args: [{ scope: { kind: 'all' }, pageSize: 2 }],
    });
    const small = (await handle.result()) as ReconciliationReport;
    expect(small.runs).toBeGreaterThan(1);
    expect(small.pages).toBeGreaterThan(3);
    expect(small.examined).toEqual(report.examined);
    expect(small.fixesTotal).toBe(0);
    if (process.env.BOOKSYNC_RECORD_HISTORIES) {
      const firstRun = env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
      writeFileSync(
        path.join(fixturesDir, 'histories', 'reconciliation-small-pages-first-run.json'),
        `${historyToJSON(await firstRun.fetchHistory())}\n`,
      );
    }

    // The requests workflow keeps the last reports in its view, and a repeated request id is ignored.
    const view = await env.client.workflow.getHandle('reconcile').query<ReconciliationRequestsView>('view');
    expect(view.reports.map((r) => r.report?.fixesTotal)).toEqual([5, 10, 0]);
    expect(view.running).toBeNull();
  });

  it('a link scope checks that link and its payments only', async () => {
    const [link] = (await stack.service.listPaymentLinks({ pageSize: 100 })).paymentLinks.filter((l) =>
      l.name.endsWith('dropped-card'),
    );
    const report = await reconcileBySignal({ kind: 'link', paymentLinkId: link!.id });
    expect(report.examined).toEqual({ paymentLink: 1, payment: 1, disbursement: 0, checkDeposit: 0 });
    expect(report.fixesTotal).toBe(0);
  });
});
