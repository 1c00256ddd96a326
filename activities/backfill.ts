import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { AccountName } from '../src/accounting/chart-of-accounts.js';
import { booksOpeningCacheMs } from '../src/accounting/derived-ledger-reads.js';
import type { EntryLinks, LedgerPort } from '../src/accounting/ledger-port.js';
import { paymentSettles } from '../src/accounting/mapping/index.js';
import { bookedBeforeOpening, openingEntry, openingEntryKey } from '../src/accounting/opening-balances.js';
import {
  type BackfillWindow,
  checkDepositVerdict,
  disbursementVerdict,
  type GroupVerdict,
  linkVerdict,
  paymentStillOpen,
  paymentVerdict,
} from '../src/backfill/groups.js';
import { writeBehind } from '../src/backfill/write-behind-ledger.js';
import type {
  BackfillActivities,
  BackfillPageInput,
  BackfillPageResult,
  BackfillPhase,
  BackfillStepInput,
  BackfillStepResult,
} from '../workflows/backfill-contract.js';
import { backfillPhases } from '../workflows/backfill-contract.js';
import { paymentEventRoute, paymentWorkflowId } from '../workflows/payment-contract.js';
import { syncCheckDepositBooks } from './check-deposit.js';
import { type ActivityDependencies, activityLogger, linkBookingOptions } from './context.js';
import { asActivityFailure, translatingFailures } from './failures.js';
import { syncPaymentBooks } from './payment.js';
import { syncDisbursementBooks, syncPaymentLinkRecords } from './reconciliation.js';

const reason = 'backfill';

/**
 * `phase:page`, or `phase:page:notBefore` when the next page must wait to keep the rate (epoch ms): a wait
 * longer than a step may sleep is handed on in the token the workflow carries, never slept past the
 * activity's timeout. (The workflow reads only the phase, before the first colon.)
 */
function parseToken(token: string | null): { phase: BackfillPhase; page: number; notBefore: number | null } {
  if (token === null) return { phase: backfillPhases[0], page: 1, notBefore: null };
  const [phase, page, notBefore] = token.split(':');
  if (
    !backfillPhases.includes(phase as BackfillPhase) ||
    !Number.isSafeInteger(Number(page)) ||
    Number(page) < 1 ||
    (notBefore !== undefined && !Number.isSafeInteger(Number(notBefore)))
  ) {
    throw ApplicationFailure.nonRetryable(`bad backfill page token ${token}`, 'BadPageToken');
  }
  return {
    phase: phase as BackfillPhase,
    page: Number(page),
    notBefore: notBefore === undefined ? null : Number(notBefore),
  };
}

/** The token without its wait, or with one. */
function tokenAt(token: string | null, notBefore: number | null): string | null {
  if (token === null) return null;
  const { phase, page } = parseToken(token);
  return notBefore === null ? `${phase}:${page}` : `${phase}:${page}:${notBefore}`;
}

function nextToken(phase: BackfillPhase, page: number, more: boolean): string | null {
  if (more) return `${phase}:${page + 1}`;
  const next = backfillPhases[backfillPhases.indexOf(phase) + 1];
  return next ? `${next}:1` : null;
}

/**
 * The ledger a backfill imports open groups through: it books their entries before the opening day too (the
 * sync rule that keeps old entries in Opening Balances is for objects the backfill left out).
 */
function importingWhole(ledger: LedgerPort): LedgerPort {
  return new Proxy(ledger, {
    get(target, property) {
      if (property === 'booksOpenOn') return async () => null;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

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
  return {
    async openBooks({ since }) {
      return translatingFailures(async () => {
        const { created } = await deps.ledger.openBooks(since);
        // Other workers may still hold "not open" (kept booksOpeningCacheMs): wait until none can before the
        // first page is summed, so no webhook books an old object whose money goes to the opening entry.
        if (created) await sleep(2 * booksOpeningCacheMs);
        const opening = await deps.ledger.booksOpening();
        const mode = opening?.balancesBooked ? 'again' : 'opening';
        activityLogger(deps, { since }).info({ created, mode }, 'books open for the backfill');
        return { opensOn: since, mode };
      });
    },

    /**
     * Pages, one after the other, paced to the rate; returns after `maxPages`, after its time budget, or when
     * every phase is done. A failure of a page fails the step, retried whole from its first page (idempotent).
     */
    async backfillPages(input: BackfillStepInput): Promise<BackfillStepResult> {
      const step: BackfillStepResult = {
        pages: 0,
        phase: parseToken(input.pageToken).phase,
        nextPageToken: input.pageToken,
        totals: {},
        examined: {},
        imported: 0,
        settled: 0,
        requests: 0,
        inFlight: {},
        problems: [],
        paymentsToWatch: [],
      };
      const started = Date.now();
      // A wait the previous step handed on: slept here, at most maxPaceWaitMs a step.
      const { notBefore } = parseToken(input.pageToken);
      if (notBefore !== null) {
        const wait = notBefore - Date.now();
        if (wait > maxPaceWaitMs) {
          await sleep(maxPaceWaitMs);
          return step;
        }
        if (wait > 0) await sleep(wait);
        step.nextPageToken = tokenAt(input.pageToken, null);
      }
      do {
        const pageStarted = Date.now();
        const page = await backfillPage({ ...input, pageToken: step.nextPageToken });
        addPage(step, page);
        // The bound on the service's load: a page's requests take at least requests / rate seconds.
        const due = (page.requests / input.requestsPerSecond) * 1000 - (Date.now() - pageStarted);
        if (due > maxPaceWaitMs) {
          // A low rate: the wait goes to the next step (in the token), within the activity's timeout.
          step.nextPageToken = tokenAt(step.nextPageToken, Date.now() + due);
          break;
        }
        if (due > 0) await sleep(due);
        heartbeat(step.pages);
      } while (
        step.nextPageToken !== null &&
        step.pages < input.maxPages &&
        Date.now() - started < stepBudgetMs
      );
      return step;
    },

    bookOpeningBalances,

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
      await Promise.all(Array.from({ length: Math.min(16, queue.length) }, starter));
      activityLogger(deps, {}).info({ watched: paymentIds.length, started }, 'return windows watched');
      return started;
    },
  };

  /**
   * One page of one phase. Each group is imported whole (through the same idempotent syncs the event
   * flows use, so a webhook about it before, during or after changes nothing twice) or, when settled
   * before the books open and never booked, only summed into the money in flight. A failure retrying
   * cannot fix is reported per object and the page goes on; anything else fails the page, retried whole.
   */
  async function backfillPage({
    since,
    asOf,
    mode,
    pageToken,
    pageSize,
  }: BackfillPageInput): Promise<BackfillPageResult> {
    return translatingFailures(async () => {
      const { phase, page } = parseToken(pageToken);
      const log = activityLogger(deps, { since, phase, page });
      const window: BackfillWindow = { opensOn: since, asOf };
      const result: BackfillPageResult = {
        phase,
        nextPageToken: null,
        total: 0,
        examined: 0,
        imported: 0,
        settled: 0,
        requests: 0,
        inFlight: {},
        problems: [],
        paymentsToWatch: [],
      };
      const add = (inFlight: Partial<Record<AccountName, number>>) => {
        for (const [account, cents] of Object.entries(inFlight) as [AccountName, number][]) {
          result.inFlight[account] = (result.inFlight[account] ?? 0) + cents;
        }
      };

      // The ledger the groups are imported through: the ledger itself, or a page's write-behind view.
      let ledger = deps.ledger;
      let plain = deps;
      let importingAll = importing;
      const importThrough = (through: LedgerPort) => {
        ledger = through;
        plain = through === deps.ledger ? deps : { ...deps, ledger: through };
        const viewImporting = { ...deps, ledger: importingWhole(through) };
        importingAll = through === deps.ledger ? importing : () => viewImporting;
      };
      /**
       * Imports a page's groups with their new entries written together at the end (one transaction, one
       * fsync, instead of one per entry: most of a backfill's time otherwise). Should that write fail (a
       * webhook booked one of the keys meanwhile with other contents), nothing of it is written and the
       * page is imported again one entry at a time, as before, so each object reports its own problem.
       */
      const inOneWrite = async (importAll: () => Promise<void>) => {
        if (deps.backfillPageWrites === 'entry-by-entry') return importAll();
        const before = structuredClone(result);
        const view = writeBehind(deps.ledger);
        importThrough(view);
        try {
          await importAll();
        } finally {
          importThrough(deps.ledger);
        }
        try {
          await view.flush();
        } catch (error) {
          log.warn({ err: error }, 'the page could not be written at once; importing it entry by entry');
          Object.assign(result, structuredClone(before));
          await importAll();
        }
      };

      /** Imports or sums one group; `scope` finds what an earlier installation booked of it. */
      const take = async (
        object: string,
        id: string,
        verdict: GroupVerdict,
        scope: EntryLinks,
        importIt: (through: ActivityDependencies) => Promise<void>,
      ) => {
        result.examined++;
        const booked = bookedBeforeOpening(await ledger.entriesFor(scope), since);
        if (mode === 'again') {
          // The opening entry holds what the first run left out: sync as the event flows do, sum nothing.
          if (!booked) result.settled++;
        } else if (!verdict.import && !booked) {
          result.settled++;
          add(verdict.inFlight);
          return;
        }
        try {
          await importIt(mode === 'again' && !booked ? plain : importingAll());
          if (mode === 'opening' || booked) result.imported++;
        } catch (error) {
          const failure = asActivityFailure(error);
          if (!(failure instanceof ApplicationFailure) || !failure.nonRetryable) throw error;
          result.problems.push({ object, id, error: `${failure.type}: ${failure.message}` });
          log.error({ object, serviceObjectId: id, err: error }, 'cannot import object');
        }
      };
      const options = linkBookingOptions(deps);
      /** The page's one listing request: counted, its total kept, and where the next page starts. */
      const listed = <T>(items: readonly T[], totalResults: number): readonly T[] => {
        result.requests++;
        result.total = totalResults;
        const more = items.length > 0 && (page - 1) * pageSize + items.length < totalResults;
        result.nextPageToken = nextToken(phase, page, more);
        return items;
      };

      if (phase === 'links') {
        const { paymentLinks, totalResults } = await deps.service.listPaymentLinks({ page, pageSize });
        const links = listed(paymentLinks, totalResults);
        await inOneWrite(async () => {
          for (const link of links) {
            const verdict = linkVerdict(link, window, options);
            await take('paymentLink', link.id, verdict, { paymentLinkId: link.id }, async (through) => {
              await syncPaymentLinkRecords(through, link, reason);
              for (const payment of link.payments) {
                await syncPaymentBooks(through, payment, paymentSettles(link));
                if (verdict.import && paymentStillOpen(payment, window))
                  result.paymentsToWatch.push(payment.id);
              }
            });
          }
        });
      } else if (phase === 'payments') {
        const { payments, totalResults } = await deps.service.listPayments({ page, pageSize });
        const listedPayments = listed(payments, totalResults);
        await inOneWrite(async () => {
          for (const payment of listedPayments) {
            // A payment on a link came with its link (phase links).
            if (payment.paymentLinkId) continue;
            const verdict = paymentVerdict(payment, window, deps.timeZone);
            await take('payment', payment.id, verdict, { paymentId: payment.id }, async (through) => {
              // On no link: a sale of its own.
              await syncPaymentBooks(through, payment, 'sale');
              if (paymentStillOpen(payment, window)) result.paymentsToWatch.push(payment.id);
            });
          }
        });
      } else if (phase === 'disbursements') {
        const { disbursements, totalResults } = await deps.service.listDisbursements({ page, pageSize });
        const payouts = listed(disbursements, totalResults);
        await inOneWrite(async () => {
          for (const disbursement of payouts) {
            await take(
              'disbursement',
              disbursement.id,
              disbursementVerdict(disbursement, window),
              { disbursementId: disbursement.id },
              async (through) => {
                await syncDisbursementBooks(through, disbursement, reason);
              },
            );
          }
        });
      } else {
        const { checkDeposits, totalResults } = await deps.service.listCheckDeposits({ page, pageSize });
        const deposits = listed(checkDeposits, totalResults);
        // A deposit's applications do not name their link; the links list them (externalPayments).
        const run = `${since}/${asOf}`;
        const counted = (n: number) => {
          result.requests += n;
        };
        let listedAgain = false;
        for (const deposit of deposits) {
          await take(
            'checkDeposit',
            deposit.id,
            checkDepositVerdict(deposit, window, deps.timeZone),
            { checkDepositId: deposit.id },
            async (through) => {
              let linkOf = await applicationLinksOf(run, false, counted);
              let { unknownApplicationIds } = await syncCheckDepositBooks(through, deposit, linkOf, reason);
              if (unknownApplicationIds.length > 0 && !listedAgain) {
                // Applied since the links were listed: list them again, once a page at most.
                listedAgain = true;
                linkOf = await applicationLinksOf(run, true, counted);
                ({ unknownApplicationIds } = await syncCheckDepositBooks(through, deposit, linkOf, reason));
              }
              if (unknownApplicationIds.length > 0) {
                result.problems.push({
                  object: 'checkDeposit',
                  id: deposit.id,
                  error: `applications on no listed payment link: ${unknownApplicationIds.join(', ')}`,
                });
              }
            },
          );
        }
      }
      log.info(
        {
          examined: result.examined,
          imported: result.imported,
          settled: result.settled,
          problems: result.problems.length,
        },
        'backfill page done',
      );
      return result;
    });
  }

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
  for (const [account, cents] of Object.entries(page.inFlight) as [AccountName, number][]) {
    step.inFlight[account] = (step.inFlight[account] ?? 0) + cents;
  }
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
