import { EVENT_TYPE, type EventEnvelope, type ObjectType } from '@booksync/service-contract/schemas/index';
import type { EventRow } from '../store/store.js';

/** 6.2 exactly: six fields, nothing else. */
export function eventEnvelope(row: EventRow): EventEnvelope {
  return {
    id: row.id,
    created_at: row.created_at,
    category: row.category,
    associated_object_type: row.associated_object_type as ObjectType,
    associated_object_id: row.associated_object_id,
    type: EVENT_TYPE,
  };
}
