import { type Client, type ScheduleOptions, ScheduleOverlapPolicy } from '@temporalio/client';
import { periodCloseWorkflowType } from '../../flows/period-close/contract.js';
import { WORKFLOW_ID_PREFIXES } from '../../workflow-safe/workflow-ids.js';
import { ensureSchedule } from './ensure-schedule.js';

export const periodCloseScheduleId = 'booksync-period-close';
/** Runs started by the Schedule are `scheduled-period-close-{timestamp}` (Temporal appends the time). */
export const scheduledPeriodCloseWorkflowId = WORKFLOW_ID_PREFIXES.scheduledPeriodClose;

export interface PeriodCloseScheduleOptions {
  taskQueue: string;
  /** BOOKS_TIME_ZONE: the Schedule fires on the 1st in this zone, for the month just ended there. */
  timeZone: string;
  /** PERIOD_CLOSE_CLOSES_BOOKS: close the ledger through the month's last day when its certificate passes. */
  closeBooks: boolean;
}

function scheduleOptions(options: PeriodCloseScheduleOptions) {
  return {
    scheduleId: periodCloseScheduleId,
    memo: { purpose: 'the completeness certificate of the month just ended' },
    // 02:00 on the 1st of each month in the books' time zone: the month just ended there, with two hours for
    // late webhooks and the reconciliation Schedule's runs to settle it.
    spec: {
      calendars: [{ dayOfMonth: 1, hour: 2, minute: 0, comment: 'the month just ended' }],
      timezone: options.timeZone,
    },
    action: {
      type: 'startWorkflow' as const,
      // By name: the client side never imports workflow code. The workflow works out the month itself.
      workflowType: periodCloseWorkflowType,
      workflowId: scheduledPeriodCloseWorkflowId,
      taskQueue: options.taskQueue,
      args: [{ lastMonth: true, timeZone: options.timeZone, closeBooks: options.closeBooks }],
    },
    policies: {
      overlap: ScheduleOverlapPolicy.SKIP,
      // A worker down over the 1st still closes the month when it comes back within a week.
      catchupWindow: '7 days',
    },
  } satisfies ScheduleOptions;
}

/**
 * The monthly period-close Schedule, created at start-up beside the reconciliation one. Idempotent: when it
 * exists, its spec, action and policies are updated (the task queue may have changed), a pause is kept.
 */
export function ensurePeriodCloseSchedule(client: Client, options: PeriodCloseScheduleOptions) {
  return ensureSchedule(client, scheduleOptions(options));
}
