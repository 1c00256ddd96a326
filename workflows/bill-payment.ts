import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  continueAsNew,
  log,
  patched,
  proxyActivities,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type {
  BillPaymentActivities,
  BillPaymentSyncResult,
  OverdueCheckKind,
} from '../activities/bill-payment-contract.js';
import { serviceCallRetry } from '../src/workflow-safe/retry-policy.js';
import {
  AmountCents,
  PaymentMethodType,
  ServiceObjectId,
  ServiceStatus,
  SyncState,
} from '../src/workflow-safe/search-attributes.js';
import { attention } from './attention.js';
import {
  type BillPaymentSyncState,
  type BillPaymentView,
  type BillPaymentWorkflowInput,
  billPaymentViewQuery,
  type OverdueCheck,
} from './bill-payment-contract.js';
import { listenForServiceEvents, type ServiceEventSignal } from './service-event.js';

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
    return {
      kind: 'NOT_DELIVERED',
      since: check.sentAt,
      deadline: new Date(Date.parse(check.sentAt) + windows.deliveryDays * dayMs).toISOString(),
      windowDays: windows.deliveryDays,
    };
  }
  if (check.status === 'DELIVERED' && check.deliveredAt) {
    return {
      kind: 'NOT_CASHED',
      since: check.deliveredAt,
      deadline: new Date(Date.parse(check.deliveredAt) + windows.cashingDays * dayMs).toISOString(),
      windowDays: windows.cashingDays,
    };
  }
  return null;
}

/**
 * Mirrors one bill payment into the books. bill_payment.* and check.* events (check events carry the bill
 * payment's id) make it fetch the bill payment and book the difference: sent (Accounts Payable to Outgoing
 * Payments Clearing), paid when the vendor deposits the check or the ACH succeeds (clearing to Operating
 * Bank), reversed when the check is returned or fails, the ACH fails, or the payment is cancelled. Events out
 * of order converge because state is fetched. A check not delivered within N days of being sent, or not
 * cashed within M days of delivery, is flagged (NeedsAttention, SyncState CHECK_OVERDUE, a warning log).
 * Closes at a terminal state; a later event starts a fresh run, which books only what is missing.
 */
export async function billPayment(input: BillPaymentWorkflowInput): Promise<BillPaymentView> {
  const { syncBillPayment, reportOverdueCheck } = proxyActivities<BillPaymentActivities>({
    startToCloseTimeout: '30s',
    retry: serviceCallRetry,
  });

  const reported = new Set<OverdueCheckKind>(input.overdueReported ?? []);
  let notFound = false;
  const view: BillPaymentView = {
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
    openedAt: new Date().toISOString(),
    closedAt: null,
    eventsHandled: 0,
    duplicatesDropped: 0,
    syncs: 0,
    lastSync: null,
    lastError: null,
  };

  const inbox = listenForServiceEvents(input.seenEventIds, {
    onDuplicate: () => {
      view.duplicatesDropped++;
    },
  });
  setHandler(billPaymentViewQuery, () => view);

  const publish = (): void => {
    const result = view.lastSync;
    upsertSearchAttributes([
      { key: ServiceObjectId, value: input.billPaymentId },
      { key: SyncState, value: view.state },
      ...attention(null, view.overdue !== null || view.lastError !== null),
      ...(result
        ? [
            { key: ServiceStatus, value: result.status },
            { key: AmountCents, value: result.amountCents },
            { key: PaymentMethodType, value: result.deliveryMethodType },
          ]
        : []),
    ]);
    upsertMemo({
      billId: result?.billId ?? null,
      vendorId: result?.vendorId ?? null,
      checkNumber: result?.check?.checkNumber ?? null,
      checkStatus: view.checkStatus,
      billStatus: view.billStatus,
      overdue: view.overdue,
    });
  };

  /** Fetches and books; null when it failed in a way retrying cannot fix (flagged for a person). */
  const sync = async (events: ServiceEventSignal[]): Promise<BillPaymentSyncResult | null> => {
    view.eventsHandled += events.length;
    let result: BillPaymentSyncResult;
    try {
      result = await syncBillPayment({
        billPaymentId: input.billPaymentId,
        eventIds: events.map((e) => e.eventId),
      });
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      view.lastError = error.cause?.message ?? error.message;
      notFound = error.cause instanceof ApplicationFailure && error.cause.type === 'ServiceNotFoundError';
      upsertSearchAttributes(attention(view.lastError));
      log.warn('bill payment sync failed', { billPaymentId: input.billPaymentId, error: view.lastError });
      return null;
    }
    view.syncs++;
    view.lastSync = result;
    view.lastError = null;
    view.serviceStatus = result.status;
    view.checkStatus = result.check?.status ?? null;
    view.deliveryMethodType = result.deliveryMethodType;
    view.failureReason = result.failureReason;
    view.billStatus = result.billStatus;
    view.amountCents = result.amountCents;
    // The worker's settings apply unless this run was given its own windows.
    if (result.windows) {
      view.windows = {
        deliveryDays: input.windows?.deliveryDays ?? result.windows.deliveryDays,
        cashingDays: input.windows?.cashingDays ?? result.windows.cashingDays,
      };
    }
    return result;
  };

  /** State after a sync: the fetched state, or CHECK_OVERDUE once its window is over (reported once per kind). */
  const evaluate = async (): Promise<void> => {
    const result = view.lastSync;
    if (!result) return;
    view.state = billPaymentState(result);
    const window = checkWindow(result, view.windows);
    if (window && Date.now() >= Date.parse(window.deadline)) {
      view.overdue = window;
      view.state = 'CHECK_OVERDUE';
      if (!reported.has(window.kind)) {
        reported.add(window.kind);
        await reportOverdueCheck({
          billPaymentId: input.billPaymentId,
          kind: window.kind,
          checkNumber: result.check?.checkNumber ?? null,
          since: window.since,
          deadline: window.deadline,
          windowDays: window.windowDays,
          amountCents: result.amountCents,
          vendorId: result.vendorId,
        });
        log.warn('check overdue', { billPaymentId: input.billPaymentId, kind: window.kind });
      }
    } else {
      view.overdue = null;
    }
    publish();
  };

  if (input.syncOnStart) {
    await sync([]);
    await evaluate();
  }

  for (;;) {
    // Wake on events, or when the current check window ends (one look catches an event that never came).
    const window = checkWindow(view.lastSync, view.windows);
    let wakeAt: number | null = null;
    if (window && view.overdue === null) wakeAt = Date.parse(window.deadline);
    else if (view.overdue !== null) wakeAt = Date.now() + pollWhileOverdueMs;
    else if (
      view.deliveryMethodType === 'ACH' &&
      !terminalStates.includes(view.state) &&
      patched('ach-bill-payment-poll')
    ) {
      // An ACH bill payment has no check window; a daily look books it even if its events were all lost.
      wakeAt = Date.now() + pollAchBillPaymentMs;
    }
    if (wakeAt === null) await condition(() => inbox.hasPending());
    else await condition(() => inbox.hasPending(), Math.max(0, wakeAt - Date.now()));

    const events = inbox.take();
    const result = await sync(events);
    if (result === null) {
      if (notFound && view.lastSync === null && !inbox.hasPending()) {
        // Nothing to book for an id the service does not know; the run stays listed (NeedsAttention).
        view.state = 'NOT_FOUND';
        view.closedAt = new Date().toISOString();
        publish();
        log.warn('bill payment unknown to the service', { billPaymentId: input.billPaymentId });
        return view;
      }
      // Without a fresh state, still flag a check whose window ended (from the last known state).
      await evaluate();
      if (view.lastSync === null) publish();
      continue;
    }
    await evaluate();

    if (terminalStates.includes(view.state) && !inbox.hasPending()) {
      view.closedAt = new Date().toISOString();
      log.info('bill payment closed', { billPaymentId: input.billPaymentId, state: view.state });
      return view;
    }

    if (workflowInfo().continueAsNewSuggested && !inbox.hasPending()) {
      await continueAsNew<typeof billPayment>({
        billPaymentId: input.billPaymentId,
        seenEventIds: inbox.seenIds(),
        ...(input.windows ? { windows: input.windows } : {}),
        overdueReported: [...reported],
      });
    }
  }
}
