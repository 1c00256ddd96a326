import type { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { booksyncSearchAttributes } from '../../workflow-safe/search-attributes.js';

// @temporalio/proto is CommonJS; Node's ESM loader only sees its default export.
const { IndexedValueType } = proto.temporal.api.enums.v1;

const indexedValueType: Record<string, proto.temporal.api.enums.v1.IndexedValueType> = {
  KEYWORD: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  TEXT: IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  INT: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  DOUBLE: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  BOOL: IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  DATETIME: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  KEYWORD_LIST: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

/**
 * Registers booksync's search attributes in a namespace, skipping those already there, so start-up can
 * call it every time (`booksync worker`, `booksync start` on a Temporal of its own, `booksync temporal
 * setup`). Returns the names it added. Several workers starting at once may race: when Temporal answers
 * that one already exists (ALREADY_EXISTS, Elasticsearch visibility), or that the column it picked was just
 * taken (UNAVAILABLE "Generated search attributes mapping unavailable.", SQL visibility: PostgreSQL, MySQL,
 * SQLite, where each attribute takes one of a fixed set of pre-allocated columns per type), the namespace
 * is listed again and what is still missing added once more.
 * The dev server gets them as flags instead (devServerSearchAttributeFlags).
 */
export async function registerSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    const known = await existingSearchAttributes(connection, namespace);
    const missing = booksyncSearchAttributes.filter((key) => !known.has(key.name));
    if (missing.length === 0) return [];
    try {
      await connection.operatorService.addSearchAttributes({
        namespace,
        searchAttributes: Object.fromEntries(missing.map((key) => [key.name, indexedValueType[key.type]!])),
      });
      return missing.map((key) => key.name);
    } catch (error) {
      // Another process added some of them between our list and our add: ALREADY_EXISTS, or on SQL
      // visibility UNAVAILABLE (the server's errRaceConditionAddingSearchAttributes).
      const code = (error as { code?: number }).code;
      if ((code !== 6 && code !== 14) || attempt >= 3) throw error;
    }
  }
}

async function existingSearchAttributes(connection: Connection, namespace: string): Promise<Set<string>> {
  try {
    const existing = await connection.operatorService.listSearchAttributes({ namespace });
    return new Set(Object.keys(existing.customAttributes ?? {}));
  } catch (error) {
    // Temporal's Java test server implements adding search attributes but not listing them.
    if ((error as { code?: number }).code === 12 /* UNIMPLEMENTED */) return new Set();
    throw error;
  }
}
