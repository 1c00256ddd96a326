import { type Client, type ScheduleOptions, ScheduleOverlapPolicy } from '@temporalio/client';
import { reconciliationWorkflowType } from '../../flows/reconciliation/contract.js';
import { WORKFLOW_ID_PREFIXES } from '../../workflow-safe/workflow-ids.js';
import { ensureSchedule } from './ensure-schedule.js';

export const reconciliationScheduleId = 'booksync-reconcile';
/** Runs started by the Schedule are `reconcile-scheduled-{timestamp}` (Temporal appends the time). */
export const scheduledReconciliationWorkflowId = WORKFLOW_ID_PREFIXES.scheduledReconciliation;

export interface ReconciliationScheduleOptions {
  taskQueue: string;
  /** RECONCILE_INTERVAL, a duration such as '1h' or '15m'. */
  interval: string;
}

function scheduleOptions(options: ReconciliationScheduleOptions) {
  return {
    scheduleId: reconciliationScheduleId,
    memo: { purpose: 'compare the books with the service and repair drift' },
    spec: { intervals: [{ every: options.interval }] },
    action: {
      type: 'startWorkflow' as const,
      workflowType: reconciliationWorkflowType,
      workflowId: scheduledReconciliationWorkflowId,
      taskQueue: options.taskQueue,
      args: [{ scope: { kind: 'all' } }],
    },
    policies: {
      // A run still going when the next is due: skip the next, never pile up.
      overlap: ScheduleOverlapPolicy.SKIP,
      catchupWindow: '1 minute',
    },
  } satisfies ScheduleOptions;
}

/**
 * The reconciliation Schedule, created at start-up. Idempotent: when it already exists, its spec, action
 * and policies are updated to the current settings (interval, task queue), and a paused state is kept.
 */
export function ensureReconciliationSchedule(client: Client, options: ReconciliationScheduleOptions) {
  return ensureSchedule(client, scheduleOptions(options));
}
