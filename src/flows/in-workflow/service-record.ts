import type { SearchAttributeUpdatePair } from '@temporalio/common';
import {
  ActivityFailure,
  condition,
  log,
  proxyActivities,
  upsertMemo,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { serviceCallRetry } from '../../workflow-safe/retry-policy.js';
import { ServiceObjectId, SyncState } from '../../workflow-safe/search-attributes.js';
import type { ServiceRecordActivities } from '../in-activity/service-records-contract.js';
import { attention } from './attention.js';
import { countingDuplicatesIn, listenForServiceEvents, type ServiceEventSignal } from './service-event.js';

/** The fetches of the record flows, each a single service call. */
export function serviceRecordActivities(): ServiceRecordActivities {
  return proxyActivities<ServiceRecordActivities>({ startToCloseTimeout: '30s', retry: serviceCallRetry });
}

/** What a record flow's view holds the same way in every such flow. */
export interface ServiceRecordView {
  /** SYNCING until fetched; SYNCED; FAILED when it could not be fetched (lastError). */
  state: 'SYNCING' | 'SYNCED' | 'FAILED';
  duplicatesDropped: number;
  lastError: string | null;
}

/** One record flow: its object, how it fetches it and what it shows of it. */
export interface ServiceRecordFlow<Record> {
  objectId: string;
  view: ServiceRecordView;
  seenEventIds: readonly string[] | undefined;
  /** Counts a batch of events in the view, before its fetch. */
  taken(events: ServiceEventSignal[]): void;
  fetch(eventIds: string[]): Promise<Record>;
  /** Keeps a fetched record in the view; the search attributes it shows after ServiceObjectId and SyncState. */
  fetched(record: Record): SearchAttributeUpdatePair[];
  /** The memo after a fetch (null: none), given the record or null when the fetch failed. */
  memo(record: Record | null): { [key: string]: unknown } | null;
  /** The warning logged when a fetch fails, with its fields. */
  failure: { message: string; fields: { [key: string]: unknown } };
}

/**
 * The loop of a flow that books nothing but drops no event (charge authorizations, vendors' delivery
 * methods): each batch of events fetches the record and shows it, or flags the run when the fetch failed
 * for good; the run closes once no event waits, and the next event starts a fresh run.
 */
export async function mirrorServiceRecord<Record>(flow: ServiceRecordFlow<Record>): Promise<void> {
  const { view } = flow;
  const inbox = listenForServiceEvents(flow.seenEventIds, countingDuplicatesIn(view));
  do {
    await condition(() => inbox.hasPending());
    const events = inbox.take();
    flow.taken(events);
    let record: Record | null = null;
    try {
      record = await flow.fetch(events.map((e) => e.eventId));
      view.state = 'SYNCED';
      view.lastError = null;
      upsertSearchAttributes([
        { key: ServiceObjectId, value: flow.objectId },
        { key: SyncState, value: view.state },
        ...flow.fetched(record),
      ]);
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      view.state = 'FAILED';
      view.lastError = error.cause?.message ?? error.message;
      upsertSearchAttributes([
        { key: ServiceObjectId, value: flow.objectId },
        { key: SyncState, value: view.state },
        ...attention(view.lastError),
      ]);
      log.warn(flow.failure.message, { ...flow.failure.fields, error: view.lastError });
    }
    const memo = flow.memo(record);
    if (memo !== null) upsertMemo(memo);
  } while (inbox.hasPending());
}
