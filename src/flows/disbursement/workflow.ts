import { ApplicationFailure } from '@temporalio/common';
import {
  ActivityFailure,
  condition,
  log,
  patched,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { serviceCallRetry } from '../../workflow-safe/retry-policy.js';
import {
  AmountCents,
  ServiceObjectId,
  ServiceStatus,
  SyncState,
} from '../../workflow-safe/search-attributes.js';
import { attention } from '../in-workflow/attention.js';
import { listenForServiceEvents } from '../in-workflow/service-event.js';
import type { DisbursementActivities, DisbursementSyncResult } from './activities-contract.js';
import { type DisbursementView, type DisbursementWorkflowInput, disbursementViewQuery } from './contract.js';

/** How often a payout still in transit is looked at without an event, in case disbursement.succeeded is lost. */
const pollWhileInTransit = '1 day';

/**
 * Books a payout: disbursement.pending moves its amount from Processor Clearing to Payouts In Transit,
 * disbursement.succeeded from Payouts In Transit to the Operating Bank. Lives until the bank accepted it.
 */
export async function disbursement(input: DisbursementWorkflowInput): Promise<DisbursementView> {
  const { syncDisbursement } = proxyActivities<DisbursementActivities>({
    startToCloseTimeout: '1m',
    retry: serviceCallRetry,
  });
  const view: DisbursementView = {
    disbursementId: input.disbursementId,
    state: 'SYNCING',
    serviceStatus: null,
    amountInCents: null,
    amountMatchesPayments: null,
    lastError: null,
    syncs: 0,
  };
  /** The batch time, from the disbursement.pending event (the Disbursement itself only has a date). */
  let batchedAt: string | undefined;
  const inbox = listenForServiceEvents(input.seenEventIds, {
    onEvent: (event) => {
      if (event.category === 'disbursement.pending' && event.createdAt && !batchedAt)
        batchedAt = event.createdAt;
    },
  });
  setHandler(disbursementViewQuery, () => view);
  let notFoundLooks = 0;

  for (;;) {
    await condition(() => inbox.hasPending(), view.syncs === 0 ? undefined : pollWhileInTransit);
    const events = inbox.take();
    let result: DisbursementSyncResult;
    try {
      result = await syncDisbursement({
        disbursementId: input.disbursementId,
        eventIds: events.map((e) => e.eventId),
        ...(batchedAt ? { batchedAt } : {}),
      });
    } catch (error) {
      // A failure retrying cannot fix: visible in the UI, and the next event or poll tries again.
      view.lastError =
        error instanceof ActivityFailure ? (error.cause?.message ?? error.message) : String(error);
      view.syncs++;
      upsertSearchAttributes(attention(view.lastError));
      const notFound =
        error instanceof ActivityFailure &&
        error.cause instanceof ApplicationFailure &&
        error.cause.type === 'ServiceNotFoundError';
      // An id the service never showed, still unknown at the next poll: close NOT_FOUND (flagged) rather
      // than poll a payout that does not exist every day forever.
      if (notFound && view.serviceStatus === null && patched('disbursement-closes-not-found')) {
        notFoundLooks++;
        if (notFoundLooks >= 2 && !inbox.hasPending()) {
          view.state = 'NOT_FOUND';
          upsertSearchAttributes([
            { key: ServiceObjectId, value: input.disbursementId },
            { key: SyncState, value: view.state },
          ]);
          log.warn('disbursement unknown to the service; closing', { disbursementId: input.disbursementId });
          return view;
        }
      }
      continue;
    }
    view.syncs++;
    view.lastError = null;
    view.serviceStatus = result.status;
    view.amountInCents = result.amountInCents;
    view.amountMatchesPayments = result.amountMatchesPayments;
    view.state =
      result.status === 'SUCCEEDED' ? 'PAID' : result.status === 'FAILED' ? 'FAILED' : 'IN_TRANSIT';
    upsertSearchAttributes([
      { key: ServiceObjectId, value: input.disbursementId },
      { key: SyncState, value: view.state },
      { key: ServiceStatus, value: result.status },
      { key: AmountCents, value: result.amountInCents },
      ...attention(null, !result.amountMatchesPayments),
    ]);
    if ((view.state === 'PAID' || view.state === 'FAILED') && !inbox.hasPending()) return view;
  }
}
