import { defineSignal } from '@temporalio/workflow';

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

/** Event ids already handled, bounded so that a long-lived workflow's state stays small. */
export class SeenEvents {
  private readonly ids: string[];
  private readonly set: Set<string>;

  constructor(
    initial: readonly string[] = [],
    private readonly limit = 500,
  ) {
    this.ids = initial.slice(-limit);
    this.set = new Set(this.ids);
  }

  /** Records the id; false when it was seen before. */
  add(eventId: string): boolean {
    if (this.set.has(eventId)) return false;
    this.set.add(eventId);
    this.ids.push(eventId);
    if (this.ids.length > this.limit) this.set.delete(this.ids.shift()!);
    return true;
  }

  toArray(): string[] {
    return [...this.ids];
  }
}
