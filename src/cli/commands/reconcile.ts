import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import type { ReconciliationScope } from '../../flows/reconciliation/activities-contract.js';
import {
  type ReconcileRequest,
  type ReconciliationReport,
  reconcileSignal,
  reconciliationRequestsWorkflowId,
  reconciliationRequestsWorkflowType,
  reconciliationRunWorkflowId,
} from '../../flows/reconciliation/contract.js';
import { type Command, CommandError } from '../command.js';
import { eachFlag, timeoutSecondsOf } from '../flags.js';
import { withTemporalClient } from '../temporal-client.js';

// The flow's contract module, not its workflow code: names, ids and the signal definition.

export function parseReconcileArgs(args: string[]): {
  scope: ReconciliationScope;
  timeoutSeconds: number;
  json: boolean;
} {
  let scope: ReconciliationScope | null = null;
  let timeoutSeconds = 600;
  let json = false;
  const set = (next: ReconciliationScope) => {
    if (scope) throw new CommandError('reconcile: give one of --link, --customer, --since, --all');
    scope = next;
  };
  eachFlag('reconcile', args, (flag, value) => {
    if (flag === '--json') json = true;
    else if (flag === '--all') set({ kind: 'all' });
    else if (flag === '--link') set({ kind: 'link', paymentLinkId: value() });
    else if (flag === '--customer') set({ kind: 'customer', customerId: value() });
    else if (flag === '--since') {
      const date = value();
      if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(date))) {
        throw new CommandError(`reconcile: --since takes YYYY-MM-DD, got ${date}`);
      }
      set({ kind: 'paymentsSince', date });
    } else if (flag === '--timeout') {
      timeoutSeconds = timeoutSecondsOf('reconcile', value());
    } else throw new CommandError(`reconcile: unknown argument ${flag}`);
  });
  return { scope: scope ?? { kind: 'all' }, timeoutSeconds, json };
}

/**
 * Signals the `reconcile` workflow (starting it if needed) with a scope and a fresh request id, then waits
 * for that request's run, `reconcile-{requestId}`, and returns its report.
 */
export async function requestReconciliation(
  client: Client,
  options: { scope: ReconciliationScope; taskQueue: string; timeoutSeconds?: number; requestId?: string },
): Promise<{ requestId: string; workflowId: string; report: ReconciliationReport }> {
  const requestId = options.requestId ?? randomUUID();
  const request: ReconcileRequest = { scope: options.scope, requestId };
  await client.workflow.signalWithStart(reconciliationRequestsWorkflowType, {
    workflowId: reconciliationRequestsWorkflowId,
    taskQueue: options.taskQueue,
    args: [{}],
    signal: reconcileSignal,
    signalArgs: [request],
  });
  const workflowId = reconciliationRunWorkflowId(requestId);
  const handle = client.workflow.getHandle<() => Promise<ReconciliationReport>>(workflowId);
  const deadline = Date.now() + (options.timeoutSeconds ?? 600) * 1000;
  // The run starts when the requests ahead of it are done.
  for (;;) {
    try {
      await handle.describe();
      break;
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
    if (Date.now() > deadline) throw new CommandError(`reconcile: request ${requestId} has not started yet`);
    await sleep(500);
  }
  const remaining = Math.max(1, deadline - Date.now());
  const report = await Promise.race([
    handle.result(),
    sleep(remaining).then(() => {
      throw new CommandError(`reconcile: ${workflowId} is still running (see the Temporal UI)`);
    }),
  ]);
  return { requestId, workflowId, report };
}

export function formatReport(report: ReconciliationReport): string[] {
  const kinds = (counts: Record<string, number>) =>
    Object.entries(counts)
      .map(([kind, n]) => `${kind} ${n}`)
      .join(', ') || 'none';
  return [
    `scope: ${JSON.stringify(report.scope)}`,
    `examined: links ${report.examined.paymentLink}, payments ${report.examined.payment}, disbursements ${report.examined.disbursement}, check deposits ${report.examined.checkDeposit ?? 0}`,
    `drift found: links ${report.driftFound.paymentLink}, payments ${report.driftFound.payment}, disbursements ${report.driftFound.disbursement}, check deposits ${report.driftFound.checkDeposit ?? 0}`,
    `fixed: posted ${kinds(report.fixed.posted)}; reversed ${kinds(report.fixed.reversed)} (${report.fixesTotal} entries)`,
    ...report.problems.map((p) => `problem: ${p.object} ${p.id}: ${p.error}`),
  ];
}

export const reconcileCommand: Command = {
  summary: 'compare the books with the service and repair drift now (waits for the report)',
  usesTemporal: true,
  usage: `booksync reconcile [--link ID | --customer ID | --since YYYY-MM-DD | --all] [--timeout SECONDS] [--json]

Signals the 'reconcile' workflow with the scope (default --all) and prints the report of its run (--json:
the report as JSON).
Connects to TEMPORAL_ADDRESS, or to the embedded dev server of 'booksync start' (127.0.0.1:TEMPORAL_DEV_PORT).
Exits 1 when objects could not be reconciled.`,
  async run({ args, settings, out }) {
    const { scope, timeoutSeconds, json } = parseReconcileArgs(args);
    return withTemporalClient(settings, async (client) => {
      const { workflowId, report } = await requestReconciliation(client, {
        scope,
        taskQueue: settings.TEMPORAL_TASK_QUEUE,
        timeoutSeconds,
      });
      if (json) out(JSON.stringify({ workflowId, report }, null, 2));
      else {
        out(`reconciliation ${workflowId} done`);
        for (const line of formatReport(report)) out(line);
      }
      return report.problems.length > 0 ? 1 : 0;
    });
  },
};
