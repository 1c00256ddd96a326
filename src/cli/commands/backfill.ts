import { setTimeout as sleep } from 'node:timers/promises';
import { type Client, WorkflowFailedError } from '@temporalio/client';
import {
  type BackfillProgress,
  backfillPhases,
  backfillProgressQuery,
  backfillWorkflowId,
  backfillWorkflowType,
} from '../../flows/backfill/contract.js';
import { formatUsd } from '../../ledger/money.js';
import { type Command, CommandError } from '../command.js';
import { eachFlag } from '../flags.js';
import { connectCliClient } from '../temporal-client.js';

export interface BackfillArgs {
  since: string;
  requestsPerSecond: number;
  pageSize: number;
  json: boolean;
  timeoutSeconds: number;
}

export function parseBackfillArgs(args: string[]): BackfillArgs {
  let since: string | undefined;
  let requestsPerSecond = 10;
  let pageSize = 100;
  let json = false;
  let timeoutSeconds = 24 * 3600;
  eachFlag('backfill', args, (flag, value) => {
    const positive = (name: string, max = Number.MAX_SAFE_INTEGER) => {
      const n = Number(value());
      if (!Number.isFinite(n) || n <= 0 || n > max) {
        throw new CommandError(
          `backfill: ${name} takes a number above 0${max < 1e9 ? ` and at most ${max}` : ''}`,
        );
      }
      return n;
    };
    if (flag === '--since') {
      since = value();
      if (!/^\d{4}-\d{2}-\d{2}$/.test(since) || Number.isNaN(Date.parse(since))) {
        throw new CommandError(`backfill: --since is YYYY-MM-DD, got ${since}`);
      }
    } else if (flag === '--rate') requestsPerSecond = positive('--rate');
    else if (flag === '--page-size') pageSize = Math.floor(positive('--page-size', 100));
    else if (flag === '--json') json = true;
    else if (flag === '--timeout') timeoutSeconds = positive('--timeout');
    else throw new CommandError(`backfill: unknown argument ${flag}`);
  });
  if (!since) throw new CommandError('backfill: give --since YYYY-MM-DD');
  return { since, requestsPerSecond, pageSize, json, timeoutSeconds };
}

const count = (n: number) => n.toLocaleString('en-US');

/** One line of progress: a bar over the objects the service listed, the counts and the rate. */
export function progressLine(progress: BackfillProgress, elapsedSeconds: number, width = 24): string {
  const examined = backfillPhases.reduce((sum, p) => sum + progress.examined[p], 0);
  const known = backfillPhases.reduce((sum, p) => sum + (progress.totals[p] ?? 0), 0);
  // Phases not listed yet are unknown: the bar covers what is known, never runs backwards past 100%.
  const total = Math.max(known, examined);
  const done = progress.phase === 'done' ? 1 : total === 0 ? 0 : examined / total;
  const filled = Math.round(done * width);
  const rate = elapsedSeconds > 0 ? Math.round(examined / elapsedSeconds) : 0;
  return `[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${count(examined)}/${count(total)} objects (${progress.phase}) ${count(progress.imported)} imported, ${count(progress.settled)} settled before ${progress.since}, ${count(rate)}/s`;
}

export function backfillLines(progress: BackfillProgress): string[] {
  const out = [
    progress.mode === 'again'
      ? `backfill since ${progress.since} again: the opening balances were booked by an earlier run; ${count(progress.imported)} imported object groups synced, ${count(progress.settled)} left in them`
      : `backfill since ${progress.since}: ${count(progress.imported)} object groups imported, ${count(progress.settled)} settled before it (their money in flight is in Opening Balances)`,
    `examined: ${backfillPhases.map((p) => `${p} ${count(progress.examined[p])}`).join(', ')}; ${count(progress.requests)} list requests`,
  ];
  const inFlight = Object.entries(progress.inFlight).filter(([, cents]) => cents !== 0);
  if (progress.openingEntryKey) {
    out.push(
      `opening entry ${progress.openingEntryKey}: ${inFlight.map(([account, cents]) => `${account} ${formatUsd(cents)}`).join(', ')}`,
    );
  } else out.push('no money was in flight before it: no opening entry');
  for (const p of progress.problems) out.push(`! ${p.object} ${p.id}: ${p.error}`);
  return out;
}

/** Starts (or joins) the backfill workflow and waits for it, reporting its progress as it goes. */
export async function runBackfill(
  client: Client,
  options: BackfillArgs & { taskQueue: string; asOf?: string },
  onProgress: (progress: BackfillProgress, elapsedSeconds: number) => void = () => undefined,
): Promise<BackfillProgress> {
  const workflowId = backfillWorkflowId(options.since);
  const handle = await client.workflow.start(backfillWorkflowType, {
    workflowId,
    taskQueue: options.taskQueue,
    args: [
      {
        since: options.since,
        asOf: options.asOf ?? new Date().toISOString().slice(0, 10),
        requestsPerSecond: options.requestsPerSecond,
        pageSize: options.pageSize,
      },
    ],
    // Run again after a crash of this command: it joins the backfill still running, which resumes where it was.
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  const started = Date.now();
  let finished = false;
  const result = handle.result().then(
    (r) => r as BackfillProgress,
    (error: unknown) => {
      if (!(error instanceof WorkflowFailedError)) throw error;
      let cause: Error = error;
      while (cause.cause instanceof Error) cause = cause.cause;
      throw new CommandError(`backfill: ${cause.message}`);
    },
  );
  const poll = (async () => {
    while (!finished) {
      try {
        onProgress(await handle.query(backfillProgressQuery), (Date.now() - started) / 1000);
      } catch {
        // Between runs (continue-as-new) or before the first task: the next poll answers.
      }
      await sleep(500);
    }
  })();
  // Cleared when the result comes: a caller other than the CLI must not be kept alive by the timer.
  const timer = new AbortController();
  const timedOut = sleep(options.timeoutSeconds * 1000, undefined, { signal: timer.signal }).then(
    () => {
      throw new CommandError(`backfill: ${workflowId} is still running (see the Temporal UI)`);
    },
    () => undefined as never,
  );
  try {
    return await Promise.race([result, timedOut]);
  } finally {
    timer.abort();
    finished = true;
    await poll;
  }
}

export const backfillCommand: Command = {
  summary: "backfill: import the account's history since a day, with its opening balances",
  usesTemporal: true,
  usage: `booksync backfill --since YYYY-MM-DD [--rate REQUESTS_PER_SECOND] [--page-size N] [--json] [--timeout SECONDS]

Runs the backfill workflow (id backfill-{since}) for a new installation. The books open on --since: every
payment link, payment, payout and check deposit that moved money from that day on, is still owed, or can
still change (PENDING, an ACH payment inside its 60-day return window, a payout on its way, a deposited
check) is imported whole with its real dates; what was settled before the day is not imported, and the money
it left in flight (at the service, on its way to the bank, in checks) is one entry against Opening Balances,
so the first payout reconciles. It lists at most --rate pages a second (default 10, 100 objects a page).
Idempotent: webhooks arriving meanwhile book nothing twice, and running it again changes nothing. After a
crash it resumes at its page; running the command again joins it. A progress bar shows on a terminal.`,
  async run({ args, settings, out }) {
    const parsed = parseBackfillArgs(args);
    const { client, connection } = await connectCliClient(settings);
    const tty = process.stderr.isTTY === true;
    let lastLine = 0;
    try {
      const progress = await runBackfill(
        client,
        { ...parsed, taskQueue: settings.TEMPORAL_TASK_QUEUE },
        (p, elapsed) => {
          if (tty) process.stderr.write(`\r${progressLine(p, elapsed)}\u001b[K`);
          else if (Date.now() - lastLine >= 10_000) {
            lastLine = Date.now();
            process.stderr.write(`${progressLine(p, elapsed)}\n`);
          }
        },
      );
      if (tty) process.stderr.write('\n');
      for (const line of parsed.json ? [JSON.stringify(progress, null, 2)] : backfillLines(progress))
        out(line);
      return progress.problems.length > 0 ? 1 : 0;
    } finally {
      await connection.close();
    }
  },
};
