import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTimeSkipping, workflowBundle } from '../test/support/temporal.js';
import { serviceEventSignal } from '../workflows/service-event.js';
import { startChild } from './child.js';
import { onInterrupt } from './interrupt.js';
import { type ProcWindow, sampleProc } from './proc-stats.js';
import { inParallel } from './stats.js';

// Stage 4: N ACH payments open in their 60-day return window at once, on Temporal's time-skipping test
// server. booksync's payment workflow (the real bundle) runs in a child worker whose syncPayment answers
// "ACH, PENDING" (bench/ach-worker.ts). Measures: how fast N windows open (signalWithStart + first sync),
// the worker's memory and CPU while all N wait on their timers, then, after skipping 61 days, how long the
// N closing syncs take (time skipping unlocked: the server jumps from timer to timer).

export interface AchWindowsOptions {
  windows: number;
  idleMs: number;
  /** Bound on each of the opening and closing phases; what did not finish by then is reported as such. */
  phaseTimeoutMs: number;
  profile?: string | undefined;
  progress: (line: string) => void;
}

export interface AchWindowsResult {
  windows: number;
  /** Windows whose first sync ran within the bound (all of them unless the machine was too slow). */
  opened: number;
  signalConcurrency: number;
  /** signalWithStart of all N, until the last one was accepted. */
  startSeconds: number;
  startedPerSecond: number;
  /** Until all N had their first sync (window open, timer set). */
  openSeconds: number;
  openedPerSecond: number;
  workerWhileOpening: ProcWindow;
  /** All N waiting on their timers, nothing else to do. */
  workerIdle: ProcWindow;
  /** From the 61-day skip until every window's closing sync ran. */
  closeSeconds: number;
  closedPerSecond: number;
  closed: number;
  /** How far the server's clock moved while closing (at least 60 days once every window closed). */
  serverDaysSkipped: number;
  workerWhileClosing: ProcWindow;
}

const signalConcurrency = 32;

export async function benchAchWindows(options: AchWindowsOptions): Promise<AchWindowsResult> {
  const env = await startTimeSkipping();
  let worker: Awaited<ReturnType<typeof startChild<{ type: 'ready' }>>> | undefined;
  const forget = onInterrupt(async () => {
    await worker?.stop();
    await env.teardown();
  });
  try {
    const bundle = await workflowBundle();
    const taskQueue = `bench-ach-${process.pid}`;
    worker = await startChild<{ type: 'ready' }>(
      'ach-worker.ts',
      {
        temporalAddress: env.address,
        namespace: env.namespace ?? 'default',
        taskQueue,
        workflowBundlePath: bundle.codePath,
      },
      { profile: options.profile },
    );
    const counts = () => worker!.ask<{ opened: number; closing: number }>('counts');
    const waitUntil = async (what: string, done: (c: { opened: number; closing: number }) => boolean) => {
      const deadline = Date.now() + options.phaseTimeoutMs;
      let last = await counts();
      let lastLog = Date.now();
      while (!done(last)) {
        if (Date.now() > deadline) return last;
        await sleep(250);
        last = await counts();
        if (Date.now() - lastLog > 5_000) {
          options.progress(`ach: ${what}: ${JSON.stringify(last)}`);
          lastLog = Date.now();
        }
      }
      return last;
    };

    options.progress(
      `ach: opening ${options.windows} return windows (${signalConcurrency} signalWithStart in flight)`,
    );
    const opening = sampleProc(worker.pid);
    const started = performance.now();
    await inParallel(options.windows, signalConcurrency, async (i) => {
      const paymentId = `pay_ach${i}`;
      await env.client.workflow.signalWithStart('payment', {
        workflowId: `payment-${paymentId}`,
        taskQueue,
        args: [{ paymentId }],
        signal: serviceEventSignal,
        signalArgs: [
          {
            eventId: randomUUID(),
            category: 'payment.made',
            objectType: 'payment',
            objectId: paymentId,
            createdAt: new Date().toISOString(),
          },
        ],
      });
    });
    const startSeconds = (performance.now() - started) / 1000;
    const afterOpen = await waitUntil('opening', (c) => c.opened >= options.windows);
    const opened = afterOpen.opened;
    if (opened < options.windows) {
      options.progress(
        `ach: only ${opened} of ${options.windows} windows opened within the bound; going on with those`,
      );
    }
    // The first sync ran; give the workflow tasks that set the timers a moment to complete.
    await sleep(1_000);
    const openSeconds = (performance.now() - started) / 1000 - 1;
    const workerWhileOpening = opening.stop();

    options.progress(`ach: all open; sampling the idle worker for ${options.idleMs / 1000} s`);
    const idle = sampleProc(worker.pid);
    await sleep(options.idleMs);
    const workerIdle = idle.stop();

    options.progress('ach: letting the server skip time past the 60-day windows');
    const openedAtServerMs = await env.currentTimeMs();
    const closing = sampleProc(worker.pid);
    const closeStarted = performance.now();
    // Unlocking time skipping lets the server jump to the next timer whenever nothing is running, which
    // is what env.sleep('61 days') does too, without a call that stays open (and may outlive the bound).
    const testService = env.connection.testService;
    if (!testService) throw new Error('not a time-skipping server');
    await testService.unlockTimeSkipping({});
    const afterClose = await waitUntil('closing', (c) => c.closing >= opened);
    const serverDays = ((await env.currentTimeMs()) - openedAtServerMs) / 86_400_000;
    await testService.lockTimeSkipping({}).catch(() => undefined);
    const closeSeconds = (performance.now() - closeStarted) / 1000;
    const workerWhileClosing = closing.stop();
    const round = (n: number) => Math.round(n * 10) / 10;
    return {
      windows: options.windows,
      opened,
      signalConcurrency,
      startSeconds: round(startSeconds),
      startedPerSecond: round(options.windows / startSeconds),
      openSeconds: round(openSeconds),
      openedPerSecond: round(opened / openSeconds),
      workerWhileOpening,
      workerIdle,
      closeSeconds: round(closeSeconds),
      closedPerSecond: round(afterClose.closing / closeSeconds),
      closed: afterClose.closing,
      serverDaysSkipped: Math.round(serverDays * 10) / 10,
      workerWhileClosing,
    };
  } finally {
    forget();
    await worker?.stop();
    await env.teardown();
  }
}
