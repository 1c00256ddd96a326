import type { SandboxClient } from '@booksync/emulator/sandbox-client';
import { closeBooks } from '../cli/commands/books.js';
import type { CloseCertificate } from '../close/certificate.js';
import type { ClosePeriod } from '../close/close-input.js';
import type { LedgerPort } from '../ledger/ledger-port.js';
import { dayAfter, dayInZone } from '../ledger/mapping/dates.js';

// The demo's last act: the month of the business day ends and is closed as a bookkeeper
// closes one: reconcile with the service, wait for every flow and push to settle, make the period's
// certificate (the periodClose workflow), and close the ledger through the month's last day only when it
// passes (`booksync books close`'s own code, never forced).

export interface MonthCloseParties {
  /** The emulator's sandbox, with its admin token: the month ends by moving the emulator's clock. */
  sandbox: SandboxClient;
  ledger: LedgerPort;
  timeZone: string;
  /** `booksync reconcile --all`: books what no webhook told of (a link with no money yet has no event). */
  reconcile: () => Promise<{ entriesBooked: number; problems: string[] }>;
  /** Every webhook of the day acknowledged and the books quiet (the business day's own wait). */
  settle: () => Promise<void>;
  /** What each accounting target has not taken yet; empty without targets. */
  targets: () => Promise<{ target: string; pending: number; failed: number }[]>;
  /** The periodClose workflow's certificate of a period. */
  certify: (period: ClosePeriod) => Promise<CloseCertificate>;
  progress: (line: string) => void;
  /** How long the pushes to the targets may take to settle before the certificate is made anyway. */
  pushWaitMs?: number;
}

/** The last day of a YYYY-MM-DD day's month. */
export function monthEnd(day: string): string {
  const [year, month] = day.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
}

/** The first instant of a day in `timeZone` (unix ms), found by stepping over the UTC day's quarter-hours. */
export function dayStartsAt(day: string, timeZone: string): number {
  const utcMidnight = Date.parse(`${day}T00:00:00Z`);
  const quarter = 900_000;
  // Zones run from UTC-12 to UTC+14: the day starts within 14 hours before or 12 after its UTC midnight.
  for (let t = utcMidnight - 14 * 3_600_000; t <= utcMidnight + 12 * 3_600_000; t += quarter) {
    if (dayInZone(t, timeZone) === day) return t;
  }
  throw new Error(`no start of ${day} in ${timeZone}`);
}

const months = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const monthName = (day: string) => `${months[Number(day.slice(5, 7)) - 1]} ${day.slice(0, 4)}`;

export interface MonthCloseOutcome {
  closed: boolean;
  /** The month's last day. */
  through: string;
  /** Why the month stays open; null when closed. */
  why: string | null;
  certificate: CloseCertificate | null;
}

/**
 * Ends the month of the emulator's day and closes it. Never forced: a failing certificate leaves the month
 * open, says why, and answers normally (the demo is a tour; booksync keeps running).
 */
export async function closeDemoMonth(parties: MonthCloseParties): Promise<MonthCloseOutcome> {
  const { sandbox, ledger, timeZone, progress } = parties;
  const step = (line: string) => progress(`  ✓ ${line}`);
  const now = Date.parse((await sandbox.clock()).now);
  const day = dayInZone(now, timeZone);
  const through = monthEnd(day);
  const name = monthName(day);
  const made: { certificate: CloseCertificate | null } = { certificate: null };
  const open = (why: string): MonthCloseOutcome => {
    progress(`  ${name} stays open: ${why}`);
    return { closed: false, through, why, certificate: made.certificate };
  };
  progress('');
  progress(`closing ${name}`);
  const closedThrough = await ledger.booksClosedThrough();
  if (closedThrough !== null && closedThrough >= through) {
    progress(`  the books are closed through ${closedThrough} already`);
    return { closed: true, through: closedThrough, why: null, certificate: null };
  }

  // The month ends in the demo's world: the emulator's clock, which only moves forward, goes to a minute
  // past midnight of the next month's first day in BOOKS_TIME_ZONE. What the move sets off (a payment that
  // settles on its own) is booked before the certificate is made.
  const next = dayAfter(through);
  let today: string;
  try {
    const seconds = Math.ceil((dayStartsAt(next, timeZone) - now) / 1000) + 60;
    const moved = await sandbox.advanceClock({ seconds });
    // The books' "today" is the emulator's day, not the machine's: the demo's month ended on the emulator's
    // clock while the real day may still be in it, and `books close` refuses a day that has not ended (the
    // two-month close test passes the emulator's day the same way).
    today = dayInZone(Date.parse(moved.now), timeZone);
  } catch (error) {
    return open(
      `the emulator's clock could not be moved (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  step(`the emulator's clock moved to ${today}: ${name} has ended`);

  // Anything that goes wrong from here leaves the month open, said in one line: the demo never dies of it.
  try {
    const reconciled = await parties.reconcile();
    step(
      `reconciled with the service: ${reconciled.entriesBooked} entries booked that no webhook told of (links with no money yet)`,
    );
    for (const problem of reconciled.problems) progress(`    problem: ${problem}`);
    await parties.settle();

    const waitMs = parties.pushWaitMs ?? 300_000;
    const deadline = Date.now() + waitMs;
    // A read that fails (the index busy under the worker's writes) is asked again until the deadline.
    const read = () =>
      parties.targets().catch((error: unknown) => (Date.now() < deadline ? null : Promise.reject(error)));
    let targets = await read();
    while ((targets === null || targets.some((t) => t.pending > 0)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      targets = await read();
    }
    targets ??= await parties.targets();
    for (const t of targets) {
      if (t.pending === 0 && t.failed === 0) step(`every entry pushed to ${t.target}`);
      else
        progress(
          `  ! ${t.target}: ${t.pending} entries still pending after ${Math.round(waitMs / 1000)} s, ${t.failed} failed (the certificate checks every push)`,
        );
    }

    const outcome = await closeBooks(
      ledger,
      { through, force: false, reason: null, timeoutSeconds: 600 },
      today,
      async (period) => {
        const c = await parties.certify(period);
        made.certificate = c;
        const n = c.counts;
        progress(`  certificate ${c.from} to ${c.to}: ${c.passes ? 'PASSES' : 'FAILS'}`);
        progress(
          `    objects ${n.objects}: ${n.BOOKED} booked, ${n.SKIPPED} skipped, ${n.MISSING} missing; entries ${n.entries}, orphans ${n.orphans}`,
        );
        const r = c.documentCounts.receivables;
        const p = c.documentCounts.payables;
        progress(
          `    invoices ${r.agree} of ${r.agree + r.differ} agree with the service, bills ${p.agree} of ${p.agree + p.differ}; balances ${c.balances.filter((b) => b.ok).length} of ${c.balances.length} agree`,
        );
        return c;
      },
    );
    if (outcome.exitCode === 0) {
      step(`books closed through ${through}`);
      return { closed: true, through, why: null, certificate: made.certificate };
    }
    // closeBooks' own lines: what the certificate names, and that the books stay open.
    for (const line of outcome.lines) progress(`  ${line}`);
    return open(
      `its certificate fails (${made.certificate?.problems.length ?? 0} problems); the demo never forces a close`,
    );
  } catch (error) {
    return open(error instanceof Error ? error.message : String(error));
  }
}
