import type { Context as ActivityContext } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** The worker's Prometheus metrics: activity outcomes (a non-retryable failure flags a workflow) and ledger writes. */
export function createWorkerMetrics(registry = new Registry()) {
  collectDefaultMetrics({ register: registry, prefix: 'booksync_worker_' });
  const activityExecutions = new Counter({
    name: 'booksync_activity_executions_total',
    help: 'Activity attempts by activity type and outcome (ok, retryable_failure, final_failure).',
    labelNames: ['activity', 'outcome'],
    registers: [registry],
  });
  const activityDuration = new Histogram({
    name: 'booksync_activity_duration_seconds',
    help: 'Duration of activity attempts.',
    labelNames: ['activity'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const ledgerWrites = new Counter({
    name: 'booksync_ledger_entries_total',
    help: 'Ledger entries written by sync activities (posted or reversed).',
    labelNames: ['action'],
    registers: [registry],
  });

  const interceptor: ActivityInterceptorsFactory = (context: ActivityContext) => ({
    inbound: {
      async execute(input, next) {
        const activity = context.info.activityType;
        const stop = activityDuration.startTimer({ activity });
        try {
          const result = await next(input);
          activityExecutions.inc({ activity, outcome: 'ok' });
          countLedgerWrites(result);
          return result;
        } catch (error) {
          const final = error instanceof ApplicationFailure && error.nonRetryable;
          activityExecutions.inc({ activity, outcome: final ? 'final_failure' : 'retryable_failure' });
          throw error;
        } finally {
          stop();
        }
      },
    },
  });

  // Sync activities report the keys they wrote; counting them here keeps the activities free of metrics code.
  function countLedgerWrites(result: unknown): void {
    if (typeof result !== 'object' || result === null) return;
    const { posted, reversed } = result as { posted?: unknown; reversed?: unknown };
    if (Array.isArray(posted)) ledgerWrites.inc({ action: 'posted' }, posted.length);
    if (Array.isArray(reversed)) ledgerWrites.inc({ action: 'reversed' }, reversed.length);
  }

  return { registry, interceptor };
}

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;
