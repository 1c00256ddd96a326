import type { Client } from '@temporalio/client';
import type { CloseCertificate } from '../../close/certificate.js';
import type { ClosePeriod } from '../../close/close-input.js';
import type { BooksClosing, LedgerPort } from '../../ledger/ledger-port.js';
import { dayAfter, dayInZone } from '../../ledger/mapping/dates.js';
import { openLedgerStore } from '../../runtime/ledger-store.js';
import { type Command, CommandError } from '../command.js';
import { eachFlag, timeoutSecondsOf } from '../flags.js';
import { connectCliClient } from '../temporal-client.js';
import { requestPeriodClose } from './close.js';

// Closing the books: once a period is closed, nothing dated in it changes. The ledger records
// the day and refuses entries dated on or before it (the database too); anything that happens later about
// that period is booked on the first open day, its own date kept.

export interface BooksCloseArgs {
  through: string;
  force: boolean;
  reason: string | null;
  timeoutSeconds: number;
}

const isDay = (value: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(value) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);

export function parseBooksCloseArgs(args: string[]): BooksCloseArgs {
  let through: string | undefined;
  let force = false;
  let reason = null as string | null;
  let timeoutSeconds = 600;
  eachFlag('books close', args, (flag, value) => {
    if (flag === '--through') through = value();
    else if (flag === '--force') force = true;
    else if (flag === '--reason') reason = value();
    else if (flag === '--timeout') {
      timeoutSeconds = timeoutSecondsOf('books close', value());
    } else throw new CommandError(`books close: unknown argument ${flag}`);
  });
  if (!through) throw new CommandError('books close: give --through YYYY-MM-DD (the last day of the period)');
  if (!isDay(through)) throw new CommandError(`books close: --through is a YYYY-MM-DD day, got ${through}`);
  if (force && (reason === null || reason.trim() === '')) {
    throw new CommandError(
      'books close: --force needs --reason "why the period closes with a failing certificate"',
    );
  }
  return { through, force, reason, timeoutSeconds };
}

/** The period a closing through `through` certifies: from the day after the last closing, else its month's first day. */
export function periodToClose(closedThrough: string | null, through: string): ClosePeriod {
  return { from: closedThrough ? dayAfter(closedThrough) : `${through.slice(0, 8)}01`, to: through };
}

export interface CloseBooksOutcome {
  exitCode: number;
  lines: string[];
}

/**
 * Closes the ledger through `args.through` once the period's certificate passes (or, forced, with the reason
 * recorded). The certificate is made by `certify` (the periodClose workflow in production). `today` is the
 * business day now: a period closes only once it has ended.
 */
export async function closeBooks(
  ledger: LedgerPort,
  args: BooksCloseArgs,
  today: string,
  certify: (period: ClosePeriod) => Promise<CloseCertificate>,
): Promise<CloseBooksOutcome> {
  if (args.through >= today) {
    throw new CommandError(
      `books close: ${args.through} has not ended yet (today is ${today} in BOOKS_TIME_ZONE); a period closes after its last day`,
    );
  }
  const closedThrough = await ledger.booksClosedThrough();
  if (closedThrough !== null && args.through < closedThrough) {
    throw new CommandError(
      `books close: the books are closed through ${closedThrough} already; a closed period never reopens`,
    );
  }
  if (closedThrough === args.through) {
    return { exitCode: 0, lines: [`the books are already closed through ${args.through}`] };
  }
  const period = periodToClose(closedThrough, args.through);
  const certificate = await certify(period);
  const lines: string[] = [];
  if (!certificate.passes) {
    lines.push(
      `the certificate of ${period.from} to ${period.to} fails: ${certificate.problems.length} problem(s); see 'booksync close --from ${period.from} --to ${period.to}'`,
    );
    for (const problem of certificate.problems.slice(0, 10)) lines.push(`  - ${problem}`);
    if (!args.force) {
      lines.push('the books stay open; fix the problems, or close anyway with --force --reason "..."');
      return { exitCode: 2, lines };
    }
  }
  const reason = args.force
    ? `forced with a failing certificate: ${args.reason}`
    : (args.reason ?? `certificate of ${period.from} to ${period.to} passed`);
  await ledger.closeBooks(args.through, { reason, forced: args.force && !certificate.passes });
  lines.push(
    `the books are closed through ${args.through}: anything dated on or before it is booked on ${dayAfter(args.through)}, its own date kept`,
  );
  return { exitCode: 0, lines };
}

function closingLine(c: BooksClosing): string {
  return `${c.through}  closed ${c.at}${c.forced ? '  FORCED' : ''}  ${c.reason}`;
}

export const booksCommand: Command = {
  summary: 'close the books through a day (after its certificate passes); list the closings',
  usesTemporal: true,
  usage: `booksync books close --through YYYY-MM-DD [--reason TEXT] [--force --reason TEXT] [--timeout SECONDS]
booksync books closings [--json]

close: makes the period's certificate (the periodClose workflow, from the day after the last closing, or the
first of the month) and, when it passes, closes the ledger through the day: from then on an entry dated on or
before it (a late event, a return of an old payment) is booked on the first open day with its own date kept,
and the database refuses any entry dated in the closed period. Only forward; only a day that has ended in
BOOKS_TIME_ZONE. A failing certificate refuses the closing (exit 2) unless --force with a --reason, which is
recorded. The worker must be running (the certificate is a workflow).`,
  async run({ args, settings, out }) {
    const [what, ...rest] = args;
    if (what === 'closings') {
      const store = await openLedgerStore(settings);
      try {
        const closings = await store.ledger.booksClosings();
        if (rest.includes('--json')) out(JSON.stringify({ closings }, null, 2));
        else if (closings.length === 0) out('the books have never been closed');
        else for (const c of closings) out(closingLine(c));
        return 0;
      } finally {
        await store.close();
      }
    }
    if (what !== 'close')
      throw new CommandError(`unknown books action '${what ?? ''}': see 'booksync books --help'`);
    const parsed = parseBooksCloseArgs(rest);
    const store = await openLedgerStore(settings);
    let temporal: { client: Client; close(): Promise<void> } | null = null;
    try {
      const outcome = await closeBooks(
        store.ledger,
        parsed,
        dayInZone(Date.now(), settings.BOOKS_TIME_ZONE),
        async (period) => {
          const { client, connection } = await connectCliClient(settings);
          temporal = { client, close: () => connection.close() };
          return requestPeriodClose(client, {
            period,
            taskQueue: settings.TEMPORAL_TASK_QUEUE,
            timeoutSeconds: parsed.timeoutSeconds,
            reports: store.reports,
          });
        },
      );
      for (const line of outcome.lines) out(line);
      return outcome.exitCode;
    } finally {
      await (temporal as { close(): Promise<void> } | null)?.close();
      await store.close();
    }
  },
};
