// Events whose category no workflow handles are acknowledged (so the sender stops retrying) but must not
// vanish: the last ones stay visible at GET /events/unrouted. In memory, per process, by design: the log
// line and the metric are the durable trace.

export interface UnroutedEvent {
  eventId: string;
  category: string;
  objectType: string;
  objectId: string;
  createdAt: string;
  receivedAt: string;
}

export const UNROUTED_EVENTS_KEPT = 100;

export class UnroutedEvents {
  private readonly events: UnroutedEvent[] = [];

  private readonly capacity: number;
  constructor(capacity = UNROUTED_EVENTS_KEPT) {
    this.capacity = capacity;
  }

  record(event: UnroutedEvent): void {
    this.events.push(event);
    if (this.events.length > this.capacity) this.events.shift();
  }

  /** Oldest first. */
  list(): UnroutedEvent[] {
    return [...this.events];
  }
}
