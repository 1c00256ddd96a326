import { defineSignal, setHandler } from '@temporalio/workflow';
import { SeenIds } from './seen-ids.js';

/**
 * A verified webhook turned into a signal by the ingress. Events carry no data (spec 6.2): the receiving
 * workflow fetches the object and books the difference, so the signal only says what happened and its
 * event id, which workflows use to drop duplicates (6.3).
 */
export interface ServiceEventSignal {
  eventId: string;
  category: string;
  objectType: string;
  objectId: string;
  createdAt: string;
}

export const serviceEventSignal = defineSignal<[ServiceEventSignal]>('serviceEvent');

/**
 * How a service event reaches the flow that owns its object, declared by each flow's contract module and
 * read by the ingress's routing table: the workflow type, the workflow id of the object, and the input the
 * workflow starts from when the event is the first it hears of.
 */
export interface EventRoute<Input extends object = object> {
  workflowType: string;
  workflowId(objectId: string): string;
  startInput(objectId: string): Input;
}

/** The route of a flow whose workflow starts from its object's id alone, as `idField` of its input. */
export function objectIdRoute<Field extends string>(
  workflowType: string,
  workflowId: (objectId: string) => string,
  idField: Field,
): EventRoute<Record<Field, string>> {
  return {
    workflowType,
    workflowId,
    startInput: (objectId) => ({ [idField]: objectId }) as Record<Field, string>,
  };
}

/** The service events a workflow has received and not yet handled, with duplicates (by event id) dropped. */
export interface ServiceEventInbox {
  /** True while events wait to be taken. */
  hasPending(): boolean;
  /** The waiting events, in arrival order; the inbox is empty afterwards. */
  take(): ServiceEventSignal[];
  /** How many events were dropped as already seen. */
  readonly duplicatesDropped: number;
  /** The ids seen so far, to carry through continue-as-new. */
  seenIds(): string[];
}

export interface ServiceEventListener {
  /** Called for each event seen for the first time, before it is queued. */
  onEvent?: (event: ServiceEventSignal) => void;
  /** Called for each event dropped as already seen. */
  onDuplicate?: (event: ServiceEventSignal) => void;
}

/** A listener that counts each dropped duplicate in a run's view. */
export function countingDuplicatesIn(view: { duplicatesDropped: number }): ServiceEventListener {
  return {
    onDuplicate: () => {
      view.duplicatesDropped++;
    },
  };
}

/**
 * Registers the serviceEvent signal handler: events seen for the first time are queued for `take()`,
 * duplicates are dropped and counted. Registering a handler produces no workflow command.
 */
export function listenForServiceEvents(
  seenEventIds?: readonly string[],
  listener: ServiceEventListener = {},
): ServiceEventInbox {
  const seen = new SeenIds(seenEventIds);
  let pending: ServiceEventSignal[] = [];
  let duplicatesDropped = 0;
  setHandler(serviceEventSignal, (event) => {
    if (!seen.add(event.eventId)) {
      duplicatesDropped++;
      listener.onDuplicate?.(event);
      return;
    }
    listener.onEvent?.(event);
    pending.push(event);
  });
  return {
    hasPending: () => pending.length > 0,
    take: () => {
      const events = pending;
      pending = [];
      return events;
    },
    get duplicatesDropped() {
      return duplicatesDropped;
    },
    seenIds: () => seen.toArray(),
  };
}
