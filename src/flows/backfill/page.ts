import { ApplicationFailure } from '@temporalio/common';
import type { EntryLinks, LedgerPort } from '../../ledger/ledger-port.js';
import { paymentSettles } from '../../ledger/mapping/index.js';
import { bookedBeforeOpening } from '../../ledger/opening-balances.js';
import { writeBehind } from '../../ledger/write-behind-ledger.js';
import type { Logger } from '../../logging/logger.js';
import { syncCheckDepositBooks } from '../check-deposit/activities.js';
import { type ActivityDependencies, activityLogger, linkBookingOptions } from '../in-activity/context.js';
import { asActivityFailure } from '../in-activity/failures.js';
import { syncDisbursementBooks, syncPaymentLinkRecords } from '../in-activity/link-and-payout-books.js';
import { syncPaymentBooks } from '../payment/activities.js';
import {
  addInFlight,
  type BackfillPageInput,
  type BackfillPageResult,
  type BackfillPhase,
  noBackfillCounts,
} from './contract.js';
import {
  type BackfillWindow,
  checkDepositVerdict,
  disbursementVerdict,
  type GroupVerdict,
  linkVerdict,
  paymentStillOpen,
  paymentVerdict,
} from './groups.js';
import { nextPageToken, parsePageToken } from './page-token.js';

// One page of one backfill phase (src/flows/backfill/activities.ts runs them in steps). Each group is imported whole
// (through the same idempotent syncs the event flows use, so a webhook about it before, during or after changes
// nothing twice) or, when settled before the books open and never booked, only summed into the money in
// flight. A failure retrying cannot fix is reported per object and the page goes on; anything else fails the
// page, retried whole.

const reason = 'backfill';

/**
 * The ledger a backfill imports open groups through: it books their entries before the opening day too (the
 * sync rule that keeps old entries in Opening Balances is for objects the backfill left out).
 */
export function importingWhole(ledger: LedgerPort): LedgerPort {
  return new Proxy(ledger, {
    get(target, property) {
      if (property === 'booksOpenOn') return async () => null;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** What the pages of one worker share: the importing view of the ledger, the application links of the run. */
export interface BackfillRunShared {
  importing(): ActivityDependencies;
  /** application id -> its payment link id, listed once a run; `fresh` lists again. */
  applicationLinksOf(
    run: string,
    fresh: boolean,
    counted: (requests: number) => void,
  ): Promise<Record<string, string>>;
}

export class BackfillPage {
  readonly #deps: ActivityDependencies;
  readonly #shared: BackfillRunShared;
  readonly #input: BackfillPageInput;
  readonly #phase: BackfillPhase;
  readonly #page: number;
  readonly #window: BackfillWindow;
  readonly #log: Logger;
  readonly #result: BackfillPageResult;
  /** The ledger the groups are imported through: the ledger itself, or the page's write-behind view. */
  #ledger: LedgerPort;
  #plain: ActivityDependencies;
  #importingAll: () => ActivityDependencies;

  constructor(deps: ActivityDependencies, shared: BackfillRunShared, input: BackfillPageInput) {
    const { phase, page } = parsePageToken(input.pageToken);
    this.#deps = deps;
    this.#shared = shared;
    this.#input = input;
    this.#phase = phase;
    this.#page = page;
    this.#window = { opensOn: input.since, asOf: input.asOf };
    this.#log = activityLogger(deps, { since: input.since, phase, page });
    this.#result = {
      phase,
      nextPageToken: null,
      total: 0,
      examined: 0,
      ...noBackfillCounts(),
    };
    this.#ledger = deps.ledger;
    this.#plain = deps;
    this.#importingAll = shared.importing;
  }

  async run(): Promise<BackfillPageResult> {
    if (this.#phase === 'links') await this.#links();
    else if (this.#phase === 'payments') await this.#payments();
    else if (this.#phase === 'disbursements') await this.#disbursements();
    else await this.#checkDeposits();
    const { examined, imported, settled, problems } = this.#result;
    this.#log.info({ examined, imported, settled, problems: problems.length }, 'backfill page done');
    return this.#result;
  }

  async #links(): Promise<void> {
    const links = this.#listed(await this.#deps.service.listPaymentLinks(this.#paging()), 'paymentLinks');
    const options = linkBookingOptions(this.#deps);
    await this.#inOneWrite(async () => {
      for (const link of links) {
        const verdict = linkVerdict(link, this.#window, options);
        await this.#take('paymentLink', link.id, verdict, { paymentLinkId: link.id }, async (through) => {
          await syncPaymentLinkRecords(through, link, reason, {
            openingDocument: verdict.import === 'opening',
          });
          for (const payment of link.payments) {
            await syncPaymentBooks(through, payment, paymentSettles(link));
            if (verdict.import && paymentStillOpen(payment, this.#window))
              this.#result.paymentsToWatch.push(payment.id);
          }
        });
      }
    });
  }

  async #payments(): Promise<void> {
    const listedPayments = this.#listed(await this.#deps.service.listPayments(this.#paging()), 'payments');
    await this.#inOneWrite(async () => {
      for (const payment of listedPayments) {
        // A payment on a link came with its link (phase links).
        if (payment.paymentLinkId) continue;
        const verdict = paymentVerdict(payment, this.#window, this.#deps.timeZone);
        await this.#take('payment', payment.id, verdict, { paymentId: payment.id }, async (through) => {
          // On no link: a sale of its own.
          await syncPaymentBooks(through, payment, 'sale');
          if (paymentStillOpen(payment, this.#window)) this.#result.paymentsToWatch.push(payment.id);
        });
      }
    });
  }

  async #disbursements(): Promise<void> {
    const payouts = this.#listed(await this.#deps.service.listDisbursements(this.#paging()), 'disbursements');
    await this.#inOneWrite(async () => {
      for (const disbursement of payouts) {
        await this.#take(
          'disbursement',
          disbursement.id,
          disbursementVerdict(disbursement, this.#window),
          { disbursementId: disbursement.id },
          async (through) => {
            await syncDisbursementBooks(through, disbursement, reason);
          },
        );
      }
    });
  }

  async #checkDeposits(): Promise<void> {
    const deposits = this.#listed(
      await this.#deps.service.listCheckDeposits(this.#paging()),
      'checkDeposits',
    );
    // A deposit's applications do not name their link; the links list them (externalPayments).
    const run = `${this.#input.since}/${this.#input.asOf}`;
    const counted = (n: number) => {
      this.#result.requests += n;
    };
    let listedAgain = false;
    for (const deposit of deposits) {
      await this.#take(
        'checkDeposit',
        deposit.id,
        checkDepositVerdict(deposit, this.#window, this.#deps.timeZone),
        { checkDepositId: deposit.id },
        async (through) => {
          let linkOf = await this.#shared.applicationLinksOf(run, false, counted);
          let { unknownApplicationIds } = await syncCheckDepositBooks(through, deposit, linkOf, reason);
          if (unknownApplicationIds.length > 0 && !listedAgain) {
            // Applied since the links were listed: list them again, once a page at most.
            listedAgain = true;
            linkOf = await this.#shared.applicationLinksOf(run, true, counted);
            ({ unknownApplicationIds } = await syncCheckDepositBooks(through, deposit, linkOf, reason));
          }
          if (unknownApplicationIds.length > 0) {
            this.#result.problems.push({
              object: 'checkDeposit',
              id: deposit.id,
              error: `applications on no listed payment link: ${unknownApplicationIds.join(', ')}`,
            });
          }
        },
      );
    }
  }

  /** Which page of its listing this page asks for. */
  #paging(): { page: number; pageSize: number } {
    return { page: this.#page, pageSize: this.#input.pageSize };
  }

  /** The page's one listing request: counted, its total kept, where the next page starts, and its `key` items. */
  #listed<Key extends string, T>(
    answer: { [k in Key]: readonly T[] } & { totalResults: number },
    key: Key,
  ): readonly T[] {
    const items = answer[key];
    const { totalResults } = answer;
    this.#result.requests++;
    this.#result.total = totalResults;
    const more = items.length > 0 && (this.#page - 1) * this.#input.pageSize + items.length < totalResults;
    this.#result.nextPageToken = nextPageToken(this.#phase, this.#page, more);
    return items;
  }

  #importThrough(through: LedgerPort): void {
    const deps = this.#deps;
    this.#ledger = through;
    this.#plain = through === deps.ledger ? deps : { ...deps, ledger: through };
    const viewImporting = { ...deps, ledger: importingWhole(through) };
    this.#importingAll = through === deps.ledger ? this.#shared.importing : () => viewImporting;
  }

  /**
   * Imports a page's groups with their new entries written together at the end (one transaction, one
   * fsync, instead of one per entry: most of a backfill's time otherwise). Should that write fail (a
   * webhook booked one of the keys meanwhile with other contents), nothing of it is written and the
   * page is imported again one entry at a time, as before, so each object reports its own problem.
   */
  async #inOneWrite(importAll: () => Promise<void>): Promise<void> {
    if (this.#deps.backfillPageWrites === 'entry-by-entry') return importAll();
    const before = structuredClone(this.#result);
    const view = writeBehind(this.#deps.ledger);
    this.#importThrough(view);
    try {
      await importAll();
    } finally {
      this.#importThrough(this.#deps.ledger);
    }
    try {
      await view.flush();
    } catch (error) {
      this.#log.warn({ err: error }, 'the page could not be written at once; importing it entry by entry');
      Object.assign(this.#result, structuredClone(before));
      await importAll();
    }
  }

  /** Imports or sums one group; `scope` finds what an earlier installation booked of it. */
  async #take(
    object: string,
    id: string,
    verdict: GroupVerdict,
    scope: EntryLinks,
    importIt: (through: ActivityDependencies) => Promise<void>,
  ): Promise<void> {
    const { since, mode } = this.#input;
    this.#result.examined++;
    const booked = bookedBeforeOpening(await this.#ledger.entriesFor(scope), since);
    if (mode === 'again') {
      // The opening entry holds what the first run left out: sync as the event flows do, sum nothing.
      if (!booked) this.#result.settled++;
    } else if (!verdict.import && !booked) {
      this.#result.settled++;
      addInFlight(this.#result.inFlight, verdict.inFlight);
      return;
    } else if (verdict.import === 'opening' && !booked) {
      // An opening document: its earlier money in the opening entry, its entries from the opening day on
      // booked as the event flows book them (the books' opening day cuts them).
      addInFlight(this.#result.inFlight, verdict.inFlight);
    }
    const cutAtOpening = (mode === 'again' || verdict.import === 'opening') && !booked;
    try {
      await importIt(cutAtOpening ? this.#plain : this.#importingAll());
      if (mode === 'opening' || booked) this.#result.imported++;
    } catch (error) {
      const failure = asActivityFailure(error);
      if (!(failure instanceof ApplicationFailure) || !failure.nonRetryable) throw error;
      this.#result.problems.push({ object, id, error: `${failure.type}: ${failure.message}` });
      this.#log.error({ object, serviceObjectId: id, err: error }, 'cannot import object');
    }
  }
}
