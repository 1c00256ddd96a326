import type Database from 'better-sqlite3';
import { notFound } from '../errors.js';

/**
 * Inserts one stored row whose keys are its table's columns. The SQL is built from the row's own keys (never
 * from input), so one row shape gives one SQL text and the statement cache compiles it once.
 */
export function insertRow<T extends object>(db: Database.Database, table: string, row: T): T {
  const columns = Object.keys(row);
  db.prepare(
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((column) => `@${column}`).join(', ')})`,
  ).run(row);
  return row;
}

/**
 * One organization's row by id, or 404 naming it (decision “Error bodies”): another organization's row answers exactly like a
 * missing one. `also` narrows further with a fixed condition (a deleted vendor is missing, decision “Vendors”).
 */
export function getOrgRow<T>(
  db: Database.Database,
  table: string,
  what: string,
  orgId: string,
  id: string,
  also?: string,
): T {
  const where = also === undefined ? 'id = ? AND org_id = ?' : `id = ? AND org_id = ? AND ${also}`;
  const row = db.prepare(`SELECT * FROM ${table} WHERE ${where}`).get(id, orgId) as T | undefined;
  if (!row) throw notFound(what, id);
  return row;
}

/** A table's rows that match `where` (fixed SQL, positional parameters), in the order they were made (seq). */
export function rowsInOrder<T>(
  db: Database.Database,
  table: string,
  where: string,
  ...params: unknown[]
): T[] {
  return db.prepare(`SELECT * FROM ${table} WHERE ${where} ORDER BY seq`).all(...params) as T[];
}
