import type { Disbursement, Payment, PaymentLink } from '@booksync/service-contract/schemas/index';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CloseCertificate } from '../../src/close/certificate.js';
import { type CloseCertificateSummary, fullCertificate } from '../../src/close/certificate-summary.js';
import type { ActivityDependencies } from '../../src/flows/in-activity/context.js';
import { createPayoutReportActivities } from '../../src/flows/payout-report/activities.js';
import { payoutPeriodReportWorkflowType } from '../../src/flows/payout-report/contract.js';
import { createPeriodCloseActivities } from '../../src/flows/period-close/activities.js';
import { periodCloseWorkflowType } from '../../src/flows/period-close/contract.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { readReport, SqliteReportStore } from '../../src/ledger/report-store.js';
import { silentLogger } from '../../src/logging/logger.js';
import { fullPeriodReport, type PayoutPeriodReportSummary } from '../../src/payouts/period-summary.js';
import type { PayoutPeriodReport } from '../../src/payouts/report-schema.js';
import type { ServiceClient } from '../../src/service/client.js';
import { disbursementRecord, linkRecord, paymentRecord } from '../flows/fakes.js';
import { startDevServer, uniqueTaskQueue, workflowBundle } from '../support/temporal.js';

// Workflow results stay bounded whatever the month: a period with 10,000 links paid and never booked makes a
// certificate of megabytes (past Temporal's 2 MiB payload limit), and a period of many payouts a report as
// large. The real workflows and activities on a real Temporal dev server, over a service answering from
// memory and an embedded ledger: the result is a summary of kilobytes, the whole report is read back from
// the ledger's reports by its id.

const links = 10_000;
const payouts = 300;
const paymentsPerPayout = 20;
const period = { from: '2026-03-01', to: '2026-03-31' };
const paidOn = Date.UTC(2026, 2, 3, 15, 30);
const bound = 64 * 1024;

/** The listing methods the close and the payout reports call, answered from memory. */
function memoryService(state: {
  links: PaymentLink[];
  payments: Payment[];
  disbursements: Disbursement[];
}): ServiceClient {
  const payments = new Map(state.payments.map((p) => [p.id, p]));
  const disbursements = new Map(state.disbursements.map((d) => [d.id, d]));
  async function* each<T>(items: T[]): AsyncIterable<T> {
    yield* items;
  }
  const service = {
    paymentLinks: () => each(state.links),
    payments: () => each(state.payments),
    checkDeposits: () => each([]),
    async listDisbursements({ page, pageSize }: { page: number; pageSize: number }) {
      return {
        disbursements: state.disbursements.slice((page - 1) * pageSize, page * pageSize),
        totalResults: state.disbursements.length,
      };
    },
    async getDisbursement(id: string) {
      return disbursements.get(id)!;
    },
    async getPayment(id: string) {
      return payments.get(id)!;
    },
  };
  return service as unknown as ServiceClient;
}

let env: TestWorkflowEnvironment;
let bundle: { codePath: string };
let ledger: EmbeddedLedger;
let reports: SqliteReportStore;

beforeAll(async () => {
  [env, bundle] = await Promise.all([startDevServer(), workflowBundle()]);
  ledger = EmbeddedLedger.open();
  reports = new SqliteReportStore(ledger.database);
}, 180_000);

afterAll(async () => {
  ledger?.close();
  await env?.teardown();
});

async function runWorkflow<T>(type: string, arg: unknown, deps: ActivityDependencies): Promise<T> {
  const taskQueue = uniqueTaskQueue('bounded');
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: bundle,
    activities: { ...createPeriodCloseActivities(deps), ...createPayoutReportActivities(deps) },
  });
  return worker.runUntil(
    env.client.workflow.execute<(input: unknown) => Promise<T>>(type, {
      workflowId: `${type}-bounded-${Date.now()}`,
      taskQueue,
      args: [arg],
    }),
  );
}

describe('workflow results stay bounded', { timeout: 600_000 }, () => {
  it('a month of 10,000 unbooked links closes with a summary of kilobytes; the whole certificate is read back by id', async () => {
    const paid = Array.from({ length: links }, (_, n) => {
      const linkId = `pl_${String(n).padStart(5, '0')}`;
      const payment = paymentRecord({ id: `pay_${linkId}`, paymentLinkId: linkId, createdAt: paidOn });
      return { link: linkRecord({ id: linkId, payments: [payment], completedAmountCents: 10_000 }), payment };
    });
    const service = memoryService({
      links: paid.map((p) => p.link),
      payments: paid.map((p) => p.payment),
      disbursements: [],
    });
    const deps = { service, ledger, reports, logger: silentLogger, timeZone: 'UTC' };

    const summary = await runWorkflow<CloseCertificateSummary>(periodCloseWorkflowType, period, deps);
    const resultBytes = Buffer.byteLength(JSON.stringify(summary));
    expect(resultBytes).toBeLessThan(bound);
    expect(summary.passes).toBe(false);
    expect(summary.counts).toMatchObject({ MISSING: links });
    expect(summary.problems.length).toBeLessThan(summary.problemCount + 1);
    expect(summary.problems.length).toBeLessThanOrEqual(20);

    const whole = await fullCertificate(summary, reports);
    const missing = whole.objects.filter((o) => o.status === 'MISSING');
    expect(missing).toHaveLength(links);
    expect(new Set(missing.map((o) => o.id))).toEqual(new Set(paid.map((p) => p.payment.id)));
    expect(whole.problems).toHaveLength(summary.problemCount);
    // The whole certificate is what would not fit a workflow result; the store says how large it is.
    expect(summary.bytes).toBe(Buffer.byteLength(JSON.stringify(whole)));
    expect(summary.bytes).toBeGreaterThan(2 * 1024 * 1024);
    expect(await readReport<CloseCertificate>(reports, summary.reportId, 'close-certificate')).toEqual(whole);
  });

  it('a period of many payouts reports a summary of kilobytes; the whole report, every payout, is read back by id', async () => {
    const payments: Payment[] = [];
    const disbursements: Disbursement[] = [];
    for (let d = 0; d < payouts; d++) {
      const ids = Array.from({ length: paymentsPerPayout }, (_, n) => `pay_${d}_${n}`);
      for (const id of ids) payments.push(paymentRecord({ id, createdAt: paidOn }));
      // Every tenth payout is short of what its payments are worth: it does not reconcile.
      const amount = ids.length * 10_000 - (d % 10 === 0 ? 500 : 0);
      disbursements.push(
        disbursementRecord({
          id: `dis_${String(d).padStart(4, '0')}`,
          amountInCents: amount,
          paymentIds: ids,
        }),
      );
    }
    const service = memoryService({ links: [], payments, disbursements });
    const deps = { service, ledger, reports, logger: silentLogger, timeZone: 'UTC' };
    // Every payout is batched in the period (disbursementRecord's day, 2026-03-05).
    const summary = await runWorkflow<PayoutPeriodReportSummary>(
      payoutPeriodReportWorkflowType,
      period,
      deps,
    );
    expect(Buffer.byteLength(JSON.stringify(summary))).toBeLessThan(bound);
    expect(summary.totals.payouts).toBe(payouts);
    expect(summary.reconciles).toBe(false);
    expect(summary.mismatched.length).toBeLessThanOrEqual(20);
    expect(summary.mismatched[0]?.disbursementId).toBe('dis_0000');

    const whole: PayoutPeriodReport = await fullPeriodReport(summary, reports);
    expect(whole.payouts).toHaveLength(payouts);
    expect(whole.payouts.flatMap((p) => p.payments)).toHaveLength(payouts * paymentsPerPayout);
    expect(whole.totals).toEqual(summary.totals);
    expect(summary.bytes).toBe(Buffer.byteLength(JSON.stringify(whole)));
    expect(summary.bytes).toBeGreaterThan(bound * 10);
  });
});
