import { rowsInOrder } from '../store/sql.js';
import type { EventRow, Reader } from '../store/store.js';
import { type Page, pageOfRows } from './paging.js';

export interface DeliveryAttemptRow {
  id: number;
  event_id: string;
  subscription_id: string;
  attempt: number;
  attempted_at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

export function listEvents(
  reader: Reader,
  orgId: string,
  filter: Page & { category?: string | undefined },
): { rows: EventRow[]; total: number } {
  return pageOfRows(reader, 'events', { 'org_id = ?': orgId, 'category = ?': filter.category }, filter);
}

export function getEventRow(reader: Reader, orgId: string, eventId: string): EventRow | undefined {
  return reader.db.prepare('SELECT * FROM events WHERE id = ? AND org_id = ?').get(eventId, orgId) as
    | EventRow
    | undefined;
}

export function eventAttempts(reader: Reader, eventId: string): DeliveryAttemptRow[] {
  return reader.db
    .prepare('SELECT * FROM delivery_attempts WHERE event_id = ? ORDER BY id')
    .all(eventId) as DeliveryAttemptRow[];
}

/** Outbox rows a crash left undispatched; sent again at startup. */
export function undispatchedEvents(reader: Reader): EventRow[] {
  return rowsInOrder(reader.db, 'events', 'dispatched_at IS NULL');
}
