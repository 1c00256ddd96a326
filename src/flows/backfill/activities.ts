import { Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { AccountName } from '../../ledger/chart-of-accounts.js';
import { booksOpeningCacheMs } from '../../ledger/derived-ledger-reads.js';
import { openingEntry, openingEntryKey } from '../../ledger/opening-balances.js';
import { type ActivityDependencies, activityLogger } from '../in-activity/context.js';
import { translatingFailures } from '../in-activity/failures.js';
import { heartbeating, pause } from '../in-activity/heartbeating.js';
import { paymentEventRoute, paymentWorkflowId } from '../payment/contract.js';
import {
  addInFlight,
  type BackfillActivities,
  type BackfillPageInput,
  type BackfillPageResult,
  type BackfillStepInput,
  type BackfillStepResult,
  noBackfillCounts,
} from './contract.js';
import { BackfillPage, type BackfillRunShared, importingWhole } from './page.js';
import { pageTokenAt, parsePageToken } from './page-token.js';

// The backfill's activities: open the books, import the service's history in paced steps of pages
// (backfill-page.ts), book the money in flight at the opening, and hand the payments still in their return
// window to their workflows.

export function createBackfillActivities(deps: ActivityDependencies): BackfillActivities {
  // Built on first use: a worker may be created before its ledger is opened (tests build one without).
  let importingDeps: ActivityDependencies | undefined;
  const importing = () => (importingDeps ??= { ...deps, ledger: importingWhole(deps.ledger) });
  // Which link each check deposit application is on, listed once for the run (every page of the deposit
  // phase listed every link again) and listed again only when a deposit names an application it lacks.
  let applications: { run: string; linkOf: Record<string, string> } | null = null;
  const applicationLinksOf = async (run: string, fresh: boolean, counted: (requests: number) => void) => {
    if (fresh || applications?.run !== run) {
      applications = { run, linkOf: await applicationLinks(deps, counted) };
    }
    return applications.linkOf;
  };
  const shared: BackfillRunShared = { importing, applicationLinksOf };
  const backfillPage = (input: BackfillPageInput) =>
    translatingFailures(() => new BackfillPage(deps, shared, input).run());
  return {
    openBooks: ({ since }) =>
      heartbeating(() =>
        translatingFailures(async () => {
          const { created } = await deps.ledger.openBooks(since);
          // Other workers may still hold "not open" (kept booksOpeningCacheMs): wait until none can before the
          // first page is summed, so no webhook books an old object whose money goes to the opening entry.
          if (created) await pause(2 * booksOpeningCacheMs);
          const opening = await deps.ledger.booksOpening();
          const mode = opening?.balancesBooked ? 'again' : 'opening';
          activityLogger(deps, { since }).info({ created, mode }, 'books open for the backfill');
          return { opensOn: since, mode };
        }),
      ),

    backfillPages: (input) => heartbeating(() => pacedPages(input, backfillPage)),

    bookOpeningBalances: (input) => heartbeating(() => bookOpeningBalances(input)),

    async watchPaymentWindows({ paymentIds }) {
      const { client, info } = Context.current();
      let started = 0;
      const queue = [...paymentIds];
      // A few starts at a time: a step may hand over thousands.
      const starter = async () => {
        for (let paymentId = queue.shift(); paymentId !== undefined; paymentId = queue.shift()) {
          try {
            await client.workflow.start(paymentEventRoute.workflowType, {
              workflowId: paymentWorkflowId(paymentId),
              taskQueue: info.taskQueue,
              args: [{ paymentId, syncOnStart: true }],
            });
            started++;
          } catch (error) {
            // Running already (its own events started it): it watches the window.
            if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
          }
          heartbeat(started);
        }
      };
      await heartbeating(() => Promise.all(Array.from({ length: Math.min(16, queue.length) }, starter)));
      activityLogger(deps, {}).info({ watched: paymentIds.length, started }, 'return windows watched');
      return started;
    },
  };

  async function bookOpeningBalances({
    since,
    inFlight,
  }: {
    since: string;
    inFlight: Partial<Record<AccountName, number>>;
  }): Promise<string | null> {
    return translatingFailures(async () => {
      const log = activityLogger(deps, { since });
      const opening = await deps.ledger.booksOpening();
      if (opening?.balancesBooked) {
        // An earlier backfill since the day booked them: what it booked stands.
        return (await deps.ledger.get(openingEntryKey(since))) ? openingEntryKey(since) : null;
      }
      const entry = openingEntry(since, inFlight);
      if (entry) {
        const { created } = await deps.ledger.post(entry);
        log.info({ key: entry.key, lines: entry.lines, created }, 'opening balances booked');
      } else log.info('nothing was in flight before the books open: no opening entry');
      await deps.ledger.markOpeningBalancesBooked(since);
      return entry?.key ?? null;
    });
  }
}

/**
 * Pages, one after the other, paced to the rate; returns after `maxPages`, after its time budget, or when
 * every phase is done. A failure of a page fails the step, retried whole from its first page (idempotent).
 */
async function pacedPages(
  input: BackfillStepInput,
  backfillPage: (input: BackfillPageInput) => Promise<BackfillPageResult>,
): Promise<BackfillStepResult> {
  const step: BackfillStepResult = {
    pages: 0,
    phase: parsePageToken(input.pageToken).phase,
    nextPageToken: input.pageToken,
    totals: {},
    examined: {},
    ...noBackfillCounts(),
  };
  const started = Date.now();
  // A wait the previous step handed on: slept here, at most maxPaceWaitMs a step.
  const { notBefore } = parsePageToken(input.pageToken);
  if (notBefore !== null) {
    const wait = notBefore - Date.now();
    if (wait > maxPaceWaitMs) {
      await pause(maxPaceWaitMs);
      return step;
    }
    if (wait > 0) await pause(wait);
    step.nextPageToken = pageTokenAt(input.pageToken, null);
  }
  do {
    const pageStarted = Date.now();
    const page = await backfillPage({ ...input, pageToken: step.nextPageToken });
    addPage(step, page);
    // The bound on the service's load: a page's requests take at least requests / rate seconds.
    const due = (page.requests / input.requestsPerSecond) * 1000 - (Date.now() - pageStarted);
    if (due > maxPaceWaitMs) {
      // A low rate: the wait goes to the next step (in the token), within the activity's timeout.
      step.nextPageToken = pageTokenAt(step.nextPageToken, Date.now() + due);
      break;
    }
    if (due > 0) await pause(due);
    heartbeat(step.pages);
  } while (step.nextPageToken !== null && step.pages < input.maxPages && Date.now() - started < stepBudgetMs);
  return step;
}

/**
 * How long one step may take before it returns what it did (the workflow records it and goes on): short, so
 * the progress a person watches moves and a retried step repeats little.
 */
const stepBudgetMs = 2_000;

/** The longest a step sleeps to keep the rate: far inside the activity's 10 minutes start-to-close. */
export const maxPaceWaitMs = 60_000;

function heartbeat(pages: number): void {
  try {
    Context.current().heartbeat(pages);
  } catch {
    // Called outside an activity (a test calling it directly): nothing to report to.
  }
}

function addPage(step: BackfillStepResult, page: BackfillPageResult): void {
  step.pages++;
  step.phase = page.phase;
  step.nextPageToken = page.nextPageToken;
  step.totals[page.phase] = page.total;
  step.examined[page.phase] = (step.examined[page.phase] ?? 0) + page.examined;
  step.imported += page.imported;
  step.settled += page.settled;
  step.requests += page.requests;
  addInFlight(step.inFlight, page.inFlight);
  step.problems.push(...page.problems);
  step.paymentsToWatch.push(...page.paymentsToWatch);
}

/** application (external payment) id -> payment link id, from every link's external payments. */
async function applicationLinks(
  deps: ActivityDependencies,
  counted: (requests: number) => void,
): Promise<Record<string, string>> {
  const linkOf: Record<string, string> = {};
  const pageSize = 100;
  for (let page = 1; ; page++) {
    const list = await deps.service.listPaymentLinks({ page, pageSize });
    counted(1);
    for (const link of list.paymentLinks) {
      for (const ep of link.externalPayments)
        if (ep.serviceBankingTransferId != null) linkOf[ep.id] = link.id;
    }
    if (list.paymentLinks.length === 0 || page * pageSize >= list.totalResults) return linkOf;
  }
}
