/**
 * What every run that mirrors one fetched service object (a payment, a bill payment) counts the same way:
 * when it opened and closed, the events it handled and dropped, its fetches, the last one and the last error.
 */
export interface FetchedRunCounters<Result> {
  /** Workflow time when this run started and when it closed (null while open). */
  openedAt: string;
  closedAt: string | null;
  eventsHandled: number;
  duplicatesDropped: number;
  syncs: number;
  lastSync: Result | null;
  /** A sync failure retrying cannot fix (e.g. a 404); cleared by the next successful sync. */
  lastError: string | null;
}

/** The counters of a run opened at `now` that has done nothing yet. */
export function freshCounters(now: string): FetchedRunCounters<never> {
  return {
    openedAt: now,
    closedAt: null,
    eventsHandled: 0,
    duplicatesDropped: 0,
    syncs: 0,
    lastSync: null,
    lastError: null,
  };
}

/**
 * The part of a fetched object's run state that is the same for every such flow: a fetch that failed for
 * good, and whether the service has never known the id. No workflow API here (src/flows/in-workflow/attention.ts flags).
 */
export class FetchedRun<View extends FetchedRunCounters<unknown>> {
  #notFound = false;

  readonly view: View;
  constructor(view: View) {
    this.view = view;
  }

  /** A fetch failed in a way retrying cannot fix; `notFound` when the service does not know the id. */
  syncFailed(error: string, notFound: boolean): void {
    this.view.lastError = error;
    this.#notFound = notFound;
  }

  /** Never fetched, and the service said it does not know the id: nothing to book. */
  get unknownToService(): boolean {
    return this.#notFound && this.view.lastSync === null;
  }
}
