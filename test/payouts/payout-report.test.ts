import { newLink } from '@booksync/emulator/harness';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestPayoutPeriodReport, requestPayoutReport } from '../../src/cli/commands/payout.js';
import { payoutReportViewQuery } from '../../src/flows/payout-report/workflow.js';
import { PayoutPeriodReport, PayoutReport } from '../../src/payouts/report-schema.js';
import { workflowIdFor } from '../../src/workflow-safe/workflow-ids.js';
import { booksyncCli } from '../support/booksync-cli.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-world.js';
import { startDevServer, uniqueTaskQueue, workflowBundle } from '../support/temporal.js';

// The payout report over the emulator, the real activities and ledger, on a real Temporal dev server: a
// payout that adds up, one with a refund after the batch and a return after the payout, a payout the bank
// refused, and one the books have not caught up with. Every expected number is worked out by hand below
// (card fee decision “Fees”: round(2.9%) + 30 cents; the payer's share round(fee * passthrough%)).

let env: TestWorkflowEnvironment;
let world: SyncWorld;
let worker: Worker;
let running: Promise<void>;
const taskQueue = uniqueTaskQueue('payouts');

beforeAll(async () => {
  let bundle: { codePath: string };
  [env, bundle, world] = await Promise.all([startDevServer(), workflowBundle(), startSyncWorld()]);
  worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: bundle,
    activities: world.activities,
  });
  running = worker.run();
}, 180_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await world?.close();
  await env?.teardown();
});

async function ok<T = unknown>(method: string, url: string, body?: unknown): Promise<T> {
  const response = await world.emulator.api<T>(method, url, body);
  if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${response.text}`);
  return response.body;
}

/** A customer pays a new link of `amount` cents in full; the payment settles. */
async function paid(amount: number, method: 'Card' | 'ACH', feePassthroughPercent = 0): Promise<string> {
  const link = await newLink(world.emulator.api, amount, { feePassthroughPercent });
  const payment = await ok<{ id: string }>('POST', `/sandbox/paymentLinks/${link.id}/pay`, { method });
  await ok('POST', `/sandbox/payments/${payment.id}/settle`);
  return payment.id;
}

const batch = () =>
  ok<{ id: string; amountInCents: number; createdAt: string }>('POST', '/sandbox/disbursements');
const book = (disbursementId: string) => world.activities.syncDisbursement({ disbursementId, eventIds: [] });
const report = (disbursementId: string) =>
  requestPayoutReport(env.client, { disbursementId, taskQueue, timeoutSeconds: 60 });

const booksync = (args: string[]) =>
  booksyncCli(args, {
    TEMPORAL_ADDRESS: env.address,
    TEMPORAL_NAMESPACE: env.namespace ?? 'default',
    TEMPORAL_TASK_QUEUE: taskQueue,
    // `payout list` reads the period's report back from the ledger the worker stores it in.
    LEDGER_DB: world.ledger.database.name,
  });

describe('payout report', { timeout: 120_000 }, () => {
  let day0: string;
  let good: string;
  let short: string;

  it('a payout of card and ACH payments with a refund before the batch adds up to what reached the bank', async () => {
    const p1 = await paid(10_000, 'Card'); // fee 290 + 30 = 320, all absorbed
    const p2 = await paid(5_000, 'Card', 50); // fee 145 + 30 = 175; payer pays round(87.5) = 88; absorbed 87
    const p3 = await paid(20_000, 'ACH'); // no fee
    await ok('POST', `/payment/${p1}/refund`, { amountCents: 2_500 });
    const payout = await batch();
    // (10000 - 320 - 2500) + (5000 - 87) + 20000 = 7180 + 4913 + 20000
    expect(payout.amountInCents).toBe(32_093);
    await ok('POST', `/sandbox/disbursements/${payout.id}/succeed`);
    await book(payout.id);
    good = payout.id;
    day0 = payout.createdAt;

    const got = await report(payout.id);
    expect(got).toMatchObject({
      disbursementId: payout.id,
      status: 'SUCCEEDED',
      amountCents: 32_093,
      reachedBankCents: 32_093,
      differenceCents: 0,
      books: { bankCents: 32_093, inTransitCents: 0 },
      mismatches: [],
      reconciles: true,
    });
    const line = { refundedAfterBatchCents: 0, returnedCents: 0 };
    expect(got.payments).toEqual([
      {
        ...line,
        paymentId: p1,
        method: 'Card',
        status: 'SUCCEEDED',
        grossCents: 10_000,
        absorbedFeeCents: 320,
        refundedBeforeBatchCents: 2_500,
        netCents: 7_180,
        paymentLinkId: expect.any(String),
      },
      {
        ...line,
        paymentId: p2,
        method: 'Card',
        status: 'SUCCEEDED',
        grossCents: 5_000,
        absorbedFeeCents: 87,
        refundedBeforeBatchCents: 0,
        netCents: 4_913,
        paymentLinkId: expect.any(String),
      },
      {
        ...line,
        paymentId: p3,
        method: 'ACH',
        status: 'SUCCEEDED',
        grossCents: 20_000,
        absorbedFeeCents: 0,
        refundedBeforeBatchCents: 0,
        netCents: 20_000,
        paymentLinkId: expect.any(String),
      },
    ]);
    expect(got.totals).toEqual({
      payments: 3,
      grossCents: 35_000,
      absorbedFeeCents: 407,
      refundedBeforeBatchCents: 2_500,
      refundedAfterBatchCents: 0,
      returnedCents: 0,
      netCents: 32_093,
    });
    // The refund was made the batch day, before it: placed there by the amount.
    expect(got.refunds).toMatchObject([{ paymentId: p1, amountCents: 2_500, timing: 'BEFORE_BATCH' }]);

    // The stored result is the workflow's: its view query answers the same report.
    const view = await env.client.workflow
      .getHandle(workflowIdFor('payoutReport', payout.id))
      .query(payoutReportViewQuery);
    expect(view).toEqual({ state: 'DONE', report: got });
  });

  it('a refund after the batch and a return after the payout are each flagged with their amount', async () => {
    const p4 = await paid(8_000, 'ACH');
    const p5 = await paid(3_000, 'Card'); // fee 87 + 30 = 117
    const payout = await batch();
    expect(payout.amountInCents).toBe(8_000 + 2_883);
    await ok('POST', `/sandbox/disbursements/${payout.id}/succeed`);
    const refund = await ok<{ refunds: { id: string }[] }>('POST', `/payment/${p5}/refund`, {
      amountCents: 1_000,
    });
    await world.emulator.admin('POST', '/sandbox/clock/advance', { days: 1 });
    await ok('POST', `/sandbox/payments/${p4}/achReturn`);
    await book(payout.id);
    short = payout.id;

    const got = await report(payout.id);
    // Worth now: (3000 - 117 - 1000) + (8000 returned: 0) = 1883; sent 10883; 9000 apart.
    expect(got.totals).toMatchObject({
      grossCents: 11_000,
      absorbedFeeCents: 117,
      refundedAfterBatchCents: 1_000,
      returnedCents: 8_000,
      netCents: 1_883,
    });
    expect(got).toMatchObject({
      amountCents: 10_883,
      reachedBankCents: 10_883,
      differenceCents: 9_000,
      reconciles: false,
    });
    expect(
      got.mismatches.map(({ reason, amountCents, paymentId, refundId }) => ({
        reason,
        amountCents,
        paymentId,
        refundId,
      })),
    ).toEqual([
      { reason: 'REFUND_AFTER_BATCH', amountCents: 1_000, paymentId: p5, refundId: refund.refunds[0]!.id },
      { reason: 'RETURN_AFTER_PAYOUT', amountCents: 8_000, paymentId: p4, refundId: undefined },
    ]);
    expect(got.mismatches[0]!.detail).toContain('after the batch');
  });

  it('a payout the bank refused reached nothing; one not yet booked is flagged as differing from the books', async () => {
    await paid(4_000, 'ACH');
    const refused = await batch();
    await ok('POST', `/sandbox/disbursements/${refused.id}/fail`);
    await book(refused.id);
    const failed = await report(refused.id);
    expect(failed).toMatchObject({
      status: 'FAILED',
      amountCents: 4_000,
      reachedBankCents: 0,
      differenceCents: 0,
    });
    expect(failed.mismatches).toMatchObject([{ reason: 'PAYOUT_FAILED', amountCents: 4_000 }]);

    await paid(1_500, 'Card'); // fee round(43.5) = 44 + 30 = 74: sent 1426
    const unbooked = await batch();
    const pending = await report(unbooked.id);
    expect(pending).toMatchObject({
      status: 'PENDING',
      amountCents: 1_426,
      reachedBankCents: null,
      differenceCents: 0,
    });
    expect(pending.books).toEqual({ bankCents: 0, inTransitCents: 0 });
    expect(pending.mismatches).toMatchObject([{ reason: 'BOOKS_DIFFER', amountCents: 1_426 }]);
    await book(unbooked.id);
    expect((await report(unbooked.id)).reconciles).toBe(true);
  });

  it('an ACH refund credit made before the batch and sent back by the payer bank is named from the books', async () => {
    const p8 = await paid(6_000, 'ACH');
    const refunded = await ok<{ refunds: { id: string }[] }>('POST', `/payment/${p8}/refund`, {
      amountCents: 1_000,
    });
    const refundId = refunded.refunds[0]!.id;
    const syncPayment = () =>
      world.activities.syncPayment({ paymentId: p8, eventIds: [], workflowId: 'test' });
    await syncPayment(); // the books have the refund
    const payout = await batch();
    expect(payout.amountInCents).toBe(5_000); // 6000 less the 1000 refunded before the batch
    await ok('POST', `/sandbox/disbursements/${payout.id}/succeed`);
    await book(payout.id);
    await ok('POST', `/sandbox/refunds/${refundId}/return`);
    await syncPayment(); // the service no longer lists the refund; the books reverse it

    const got = await report(payout.id);
    // Worth now: 6000 (no live refund); sent 5000: 1000 short, because of the refund that came back.
    expect(got).toMatchObject({ amountCents: 5_000, differenceCents: -1_000, reconciles: false });
    expect(got.totals).toMatchObject({ grossCents: 6_000, refundedBeforeBatchCents: 0, netCents: 6_000 });
    expect(got.refunds).toMatchObject([
      { refundId, amountCents: 1_000, timing: 'BEFORE_BATCH', returned: true },
    ]);
    expect(got.mismatches).toMatchObject([
      { reason: 'REFUND_CREDIT_RETURNED', amountCents: -1_000, paymentId: p8, refundId },
    ]);
  });

  it('a period lists its payouts with their sums', async () => {
    const period = await requestPayoutPeriodReport(env.client, {
      period: { from: day0, to: day0 },
      taskQueue,
      reports: world.reports,
    });
    expect(period.payouts.map((p) => p.disbursementId)).toEqual([good, short]);
    expect(period.totals).toEqual({
      payouts: 2,
      amountCents: 32_093 + 10_883,
      reachedBankCents: 32_093 + 10_883,
      netCents: 32_093 + 1_883,
      mismatched: 1,
    });
    expect(period.reconciles).toBe(false);
  });

  it('booksync payout show and list print a table, and the report with --json', async () => {
    const shown = await booksync(['payout', 'show', good]);
    expect(shown.stderr).toBe('');
    expect(shown.code).toBe(0);
    const lines = shown.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(
      `payout ${good}: SUCCEEDED, batched ${day0}, paid ${day0}, to ${(await report(good)).bankAccount}`,
    );
    expect(lines[1]).toMatch(/^payment\s+method\s+status\s+gross\s+fee\s+refunds\s+returns\s+net$/);
    expect(lines).toContainEqual(
      expect.stringMatching(/^total \(3 payments\)\s+\$350\.00\s+\$4\.07\s+\$25\.00\s+\$0\.00\s+\$320\.93$/),
    );
    expect(lines).toContain(
      'amount $320.93; net of its payments $320.93; difference $0.00; reached the bank $320.93',
    );
    expect(lines.at(-1)).toBe('reconciles: yes');

    const json = await booksync(['payout', 'show', short, '--json']);
    expect(json.code).toBe(0);
    const parsed = PayoutReport.parse(JSON.parse(json.stdout));
    expect(parsed.mismatches.map((m) => m.reason)).toEqual(['REFUND_AFTER_BATCH', 'RETURN_AFTER_PAYOUT']);

    const listed = await booksync(['payout', 'list', '--from', day0, '--to', day0]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`payouts batched ${day0} to ${day0}`);
    expect(listed.stdout).toMatch(
      new RegExp(
        `^${good}\\s+${day0}\\s+SUCCEEDED\\s+3\\s+\\$320\\.93\\s+\\$320\\.93\\s+\\$320\\.93\\s+ok$`,
        'm',
      ),
    );
    expect(listed.stdout).toMatch(
      new RegExp(
        `^${short}\\s.*\\$108\\.83\\s+\\$18\\.83\\s+\\$108\\.83\\s+REFUND_AFTER_BATCH, RETURN_AFTER_PAYOUT$`,
        'm',
      ),
    );
    const listedJson = await booksync(['payout', 'list', '--from', day0, '--to', day0, '--json']);
    expect(PayoutPeriodReport.parse(JSON.parse(listedJson.stdout)).totals.payouts).toBe(2);

    const unknown = await booksync(['payout', 'show', 'dis_nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^booksync: payout: .*dis_nope/);
    const bad = await booksync(['payout', 'list', '--from', '2026-03-31', '--to', '2026-03-01']);
    expect(bad.stderr.trim()).toBe('booksync: payout list: --from 2026-03-31 is after --to 2026-03-01');
  });
});
