import { FetchedRun, freshCounters } from '../in-workflow/fetched-run.js';
import type { BillPaymentSyncResult, OverdueCheckKind } from './activities-contract.js';
import type {
  BillPaymentSyncState,
  BillPaymentView,
  BillPaymentWorkflowInput,
  OverdueCheck,
} from './contract.js';

/** Defaults of CHECK_DELIVERY_WINDOW_DAYS and CHECK_CASHING_WINDOW_DAYS (the ingress starts runs with the id only). */
export const defaultCheckDeliveryWindowDays = 10;
export const defaultCheckCashingWindowDays = 90;
const dayMs = 24 * 60 * 60 * 1000;
/** Once a check is flagged overdue, how often it is looked at without an event (in case its event was lost). */
const pollWhileOverdueMs = 7 * dayMs;
const pollAchBillPaymentMs = dayMs;

/** Where a fetched bill payment stands, apart from overdue flags. */
const terminalStates: readonly BillPaymentSyncState[] = ['PAID', 'RETURNED', 'CANCELLED', 'FAILED'];

export function billPaymentState(result: BillPaymentSyncResult): BillPaymentSyncState {
  if (result.status === 'SUCCEEDED') return 'PAID';
  if (result.status === 'FAILED') {
    if (result.failureReason === 'CANCELLED') return 'CANCELLED';
    if (result.check?.status === 'RETURNED') return 'RETURNED';
    return 'FAILED';
  }
  if (result.check) {
    if (result.check.status === 'DELIVERED') return 'DELIVERED';
    if (result.check.status === 'SENT') return 'SENT';
    return 'PENDING';
  }
  return result.sentAt ? 'SENT' : 'PENDING';
}

/** The window a pending check is in, if any: not delivered since it was sent, or not cashed since delivered. */
function checkWindow(
  result: BillPaymentSyncResult | null,
  windows: BillPaymentView['windows'],
): OverdueCheck | null {
  const check = result?.check;
  if (!check || result.status !== 'PENDING') return null;
  if (check.status === 'SENT' && check.sentAt) {
    return windowFrom('NOT_DELIVERED', check.sentAt, windows.deliveryDays);
  }
  if (check.status === 'DELIVERED' && check.deliveredAt) {
    return windowFrom('NOT_CASHED', check.deliveredAt, windows.cashingDays);
  }
  return null;
}

/** The window of `windowDays` days from `since`, and what the check is flagged for once it is over. */
function windowFrom(kind: OverdueCheckKind, since: string, windowDays: number): OverdueCheck {
  return {
    kind,
    since,
    deadline: new Date(Date.parse(since) + windowDays * dayMs).toISOString(),
    windowDays,
  };
}

/**
 * What a bill-payment run holds between its loop and its steps: the view, the overdue kinds already reported,
 * and (FetchedRun) whether the service has never known the bill payment. No workflow API here: the workflow
 * (src/flows/bill-payment/workflow.ts) does the waiting, src/flows/bill-payment/steps.ts the activities.
 */
export class BillPaymentRun extends FetchedRun<BillPaymentView> {
  readonly #reported: Set<OverdueCheckKind>;

  private readonly input: BillPaymentWorkflowInput;
  constructor(input: BillPaymentWorkflowInput, now: string) {
    super({
      billPaymentId: input.billPaymentId,
      state: 'SYNCING',
      serviceStatus: null,
      checkStatus: null,
      deliveryMethodType: null,
      failureReason: null,
      billStatus: null,
      amountCents: null,
      windows: {
        deliveryDays: input.windows?.deliveryDays ?? defaultCheckDeliveryWindowDays,
        cashingDays: input.windows?.cashingDays ?? defaultCheckCashingWindowDays,
      },
      overdue: null,
      ...freshCounters(now),
    });
    this.input = input;
    this.#reported = new Set<OverdueCheckKind>(input.overdueReported ?? []);
  }

  /** The bill payment as fetched. The worker's windows apply unless this run was given its own. */
  synced(result: BillPaymentSyncResult): void {
    const { view, input } = this;
    view.syncs++;
    view.lastSync = result;
    view.lastError = null;
    view.serviceStatus = result.status;
    view.checkStatus = result.check?.status ?? null;
    view.deliveryMethodType = result.deliveryMethodType;
    view.failureReason = result.failureReason;
    view.billStatus = result.billStatus;
    view.amountCents = result.amountCents;
    if (result.windows) {
      view.windows = {
        deliveryDays: input.windows?.deliveryDays ?? result.windows.deliveryDays,
        cashingDays: input.windows?.cashingDays ?? result.windows.cashingDays,
      };
    }
  }

  get terminal(): boolean {
    return terminalStates.includes(this.view.state);
  }

  /**
   * The state after a sync: the fetched state, or CHECK_OVERDUE once its window is over at `now`. Returns the
   * overdue window when it is to be reported (once per kind), else null.
   */
  evaluate(now: number): OverdueCheck | null {
    const { view } = this;
    const result = view.lastSync;
    if (!result) return null;
    view.state = billPaymentState(result);
    const window = checkWindow(result, view.windows);
    if (window && now >= Date.parse(window.deadline)) {
      view.overdue = window;
      view.state = 'CHECK_OVERDUE';
      if (this.#reported.has(window.kind)) return null;
      this.#reported.add(window.kind);
      return window;
    }
    view.overdue = null;
    return null;
  }

  /**
   * When to look again without an event, or null to wait for events only: at the end of the current check
   * window (one look catches an event that never came), weekly while overdue, daily for an open ACH bill
   * payment where `achPoll()` (its patch) says so.
   */
  wakeAt(now: number, achPoll: () => boolean): number | null {
    const { view } = this;
    const window = checkWindow(view.lastSync, view.windows);
    if (window && view.overdue === null) return Date.parse(window.deadline);
    if (view.overdue !== null) return now + pollWhileOverdueMs;
    // An ACH bill payment has no check window; a daily look books it even if its events were all lost.
    if (view.deliveryMethodType === 'ACH' && !this.terminal && achPoll()) return now + pollAchBillPaymentMs;
    return null;
  }

  close(state: BillPaymentSyncState | null, at: string): void {
    if (state) this.view.state = state;
    this.view.closedAt = at;
  }

  /** The next run's input: the events seen and the overdue kinds reported, so neither is repeated. */
  continuation(seenEventIds: string[]): BillPaymentWorkflowInput {
    return {
      billPaymentId: this.input.billPaymentId,
      seenEventIds,
      ...(this.input.windows ? { windows: this.input.windows } : {}),
      overdueReported: [...this.#reported],
    };
  }
}
