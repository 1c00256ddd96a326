import type pg from 'pg';
import { inTransaction } from '../ledger/pg-transaction.js';
import {
  endAttemptSql,
  fromNextEntryRow,
  fromTargetIndexRow,
  type IndexedEntry,
  type IndexedEntryRef,
  inFlightSql,
  type NextEntry,
  type NextEntryRow,
  nextEntriesSql,
  PushLeaseLostError,
  summaryOf,
  type TargetIndexRow,
  type TargetIndexStore,
  type TargetOutcome,
  type TargetStatus,
  type TargetSummary,
} from './target-index.js';
import type { RemoteRecord } from './target-port.js';

// The target index in the ledger's PostgreSQL database (table target_index, postgres-migrations.ts): the
// same statements and answers as the SQLite one, beside the entries it indexes.

interface PgRow extends Omit<TargetIndexRow, 'entry_id'> {
  entry_id: string;
}

const toRow = (row: PgRow): IndexedEntry => fromTargetIndexRow({ ...row, entry_id: Number(row.entry_id) });

export class PostgresTargetIndex implements TargetIndexStore {
  readonly #pool: pg.Pool;
  readonly #now: () => Date;

  constructor(pool: pg.Pool, options: { now?: () => Date } = {}) {
    this.#pool = pool;
    this.#now = options.now ?? (() => new Date());
  }

  async next(target: string, limit: number): Promise<NextEntry[]> {
    // Posting order is the entries' id order; FAILED and SKIPPED wait for a person, PUSHED is done.
    const { rows } = await this.#pool.query<NextEntryRow>(nextEntriesSql('$1', '$2'), [target, limit]);
    return rows.map(fromNextEntryRow);
  }

  async endAttempt(target: string, lease: number): Promise<void> {
    await this.#pool.query(endAttemptSql('$1', '$2'), [target, lease]);
  }

  async lease(target: string): Promise<number> {
    const { rows } = await this.#pool.query<{ lease: string }>(
      `INSERT INTO target_leases (target, lease) VALUES ($1, 1)
       ON CONFLICT (target) DO UPDATE SET lease = target_leases.lease + 1 RETURNING lease`,
      [target],
    );
    return Number(rows[0]?.lease);
  }

  async writeAhead(target: string, lease: number, entries: readonly IndexedEntryRef[]): Promise<void> {
    await inTransaction(this.#pool, 'BEGIN', async (client) => {
      // FOR SHARE waits for a lease being taken and reads the latest committed one.
      const { rows } = await client.query<{ lease: string }>(
        'SELECT lease FROM target_leases WHERE target = $1 FOR SHARE',
        [target],
      );
      if (Number(rows[0]?.lease) !== lease) throw new PushLeaseLostError(target, lease);
      if (entries.length > 0)
        await client.query(
          `INSERT INTO target_index (target, entry_id, entry_key, status, content_hash, attempts, updated_at, attempted_by, marked_at)
             SELECT $1, e.id, e.key, 'PENDING', e.hash, 0, $2, $3, $2
             FROM unnest($4::bigint[], $5::text[], $6::text[]) AS e (id, key, hash)
             ON CONFLICT (target, entry_id) DO UPDATE SET attempted_by = excluded.attempted_by,
               updated_at = excluded.updated_at, marked_at = excluded.marked_at WHERE target_index.status <> 'PUSHED'`,
          [
            target,
            this.#now().toISOString(),
            lease,
            entries.map((e) => e.id),
            entries.map((e) => e.key),
            entries.map((e) => e.contentHash),
          ],
        );
    });
  }

  async get(target: string, key: string): Promise<IndexedEntry | null> {
    const { rows } = await this.#pool.query<PgRow>(
      'SELECT * FROM target_index WHERE target = $1 AND entry_key = $2',
      [target, key],
    );
    return rows[0] ? toRow(rows[0]) : null;
  }

  async remoteMany(target: string, keys: readonly string[]): Promise<Map<string, RemoteRecord>> {
    const found = new Map<string, RemoteRecord>();
    if (keys.length === 0) return found;
    const { rows } = await this.#pool.query<PgRow>(
      "SELECT * FROM target_index WHERE target = $1 AND entry_key = ANY($2) AND status = 'PUSHED'",
      [target, [...new Set(keys)]],
    );
    for (const row of rows.map(toRow))
      found.set(row.key, { key: row.key, remoteIds: row.remoteIds, contentHash: row.contentHash });
    return found;
  }

  async record(target: string, entry: IndexedEntryRef, outcome: TargetOutcome): Promise<void> {
    await this.#pool.query(
      `INSERT INTO target_index (target, entry_id, entry_key, status, remote_ids, content_hash, reason, attempts, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 1, $8)
       ON CONFLICT (target, entry_id) DO UPDATE SET status = excluded.status, remote_ids = excluded.remote_ids,
         content_hash = excluded.content_hash, reason = excluded.reason,
         attempts = target_index.attempts + 1, updated_at = excluded.updated_at`,
      [
        target,
        entry.id,
        entry.key,
        outcome.status,
        outcome.remoteIds ? JSON.stringify(outcome.remoteIds) : null,
        entry.contentHash,
        outcome.reason ?? null,
        this.#now().toISOString(),
      ],
    );
  }

  async summary(target: string): Promise<TargetSummary> {
    // One snapshot for the counts, the number of entries, the failures and the entries in flight.
    const snapshot = await inTransaction(
      this.#pool,
      'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
      async (client) => {
        const counts: Record<TargetStatus, number> = { PENDING: 0, PUSHED: 0, FAILED: 0, SKIPPED: 0 };
        const grouped = await client.query<{ status: TargetStatus; n: string }>(
          'SELECT status, count(*) AS n FROM target_index WHERE target = $1 GROUP BY status',
          [target],
        );
        for (const { status, n } of grouped.rows) counts[status] = Number(n);
        const entries = await client.query<{ n: string }>('SELECT count(*) AS n FROM entries');
        const failures = await client.query<PgRow>(
          "SELECT * FROM target_index WHERE target = $1 AND status = 'FAILED' ORDER BY entry_id",
          [target],
        );
        const inFlight = await client.query<{ n: string }>(inFlightSql('$1'), [target]);
        return {
          counts,
          entries: Number(entries.rows[0]?.n ?? 0),
          failures: failures.rows.map(toRow),
          inFlight: Number(inFlight.rows[0]?.n ?? 0),
        };
      },
    );
    const { counts, entries, failures, inFlight } = snapshot;
    return summaryOf(target, counts, entries, failures, inFlight);
  }

  async requeue(target: string, keys: 'failed' | readonly string[]): Promise<number> {
    const now = this.#now().toISOString();
    if (keys === 'failed') {
      const result = await this.#pool.query(
        "UPDATE target_index SET status = 'PENDING', updated_at = $1 WHERE target = $2 AND status = 'FAILED'",
        [now, target],
      );
      return result.rowCount ?? 0;
    }
    const result = await this.#pool.query(
      `UPDATE target_index SET status = 'PENDING', updated_at = $1
       WHERE target = $2 AND entry_key = ANY($3) AND status IN ('FAILED', 'SKIPPED')`,
      [now, target, [...new Set(keys)]],
    );
    return result.rowCount ?? 0;
  }
}
