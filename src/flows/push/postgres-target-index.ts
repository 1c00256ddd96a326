import type pg from 'pg';
import { inTransaction } from '../../ledger/pg-transaction.js';
import type { RemoteRecord } from '../../targets/target-port.js';
import {
  type CompanyRow,
  type CompanySwitch,
  companyColumns,
  endAttemptSql,
  fromCompanyRow,
  fromNextEntryRow,
  fromTargetIndexRow,
  type IndexCompany,
  type IndexedEntry,
  type IndexedEntryRef,
  inFlightSql,
  keptAsTarget,
  type NextEntry,
  type NextEntryRow,
  nextEntriesSql,
  PushLeaseLostError,
  summaryOf,
  TargetCompanyMismatchError,
  type TargetIndexRow,
  type TargetIndexStore,
  type TargetOutcome,
  type TargetStatus,
  type TargetSummary,
} from './target-index.js';

// The target index in the ledger's PostgreSQL database (table target_index, postgres-migrations.ts): the
// same statements and answers as the SQLite one, beside the entries it indexes.

interface PgRow extends Omit<TargetIndexRow, 'entry_id'> {
  entry_id: string;
}

/** Takes the target's next lease (a fencing token greater than every earlier one). */
async function nextLease(client: pg.PoolClient, target: string): Promise<number> {
  const { rows } = await client.query<{ lease: string }>(
    `INSERT INTO target_leases (target, lease) VALUES ($1, 1)
     ON CONFLICT (target) DO UPDATE SET lease = target_leases.lease + 1 RETURNING lease`,
    [target],
  );
  return Number(rows[0]?.lease);
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

  async lease(target: string, companyId?: string): Promise<number> {
    return inTransaction(this.#pool, 'BEGIN', async (client) => {
      if (companyId !== undefined) await this.#claimed(client, target, companyId);
      return nextLease(client, target);
    });
  }

  async company(target: string): Promise<IndexCompany | null> {
    const { rows } = await this.#pool.query<CompanyRow>(
      `SELECT ${companyColumns} FROM target_companies WHERE target = $1`,
      [target],
    );
    return rows[0] ? fromCompanyRow(rows[0]) : null;
  }

  async claimCompany(target: string, companyId: string): Promise<IndexCompany> {
    return inTransaction(this.#pool, 'BEGIN', (client) => this.#claimed(client, target, companyId));
  }

  /** The target's company, recorded as `companyId` when none was; the row stays locked until the transaction ends. */
  async #claimed(client: pg.PoolClient, target: string, companyId: string): Promise<IndexCompany> {
    await client.query(
      `INSERT INTO target_companies (target, company_id, since) VALUES ($1, $2, $3)
       ON CONFLICT (target) DO NOTHING`,
      [target, companyId, this.#now().toISOString()],
    );
    // FOR SHARE: a switch of company waits for the attempts taking a lease under the company before it.
    const { rows } = await client.query<CompanyRow>(
      `SELECT ${companyColumns} FROM target_companies WHERE target = $1 FOR SHARE`,
      [target],
    );
    const bound = fromCompanyRow(rows[0] as CompanyRow);
    if (bound.companyId !== companyId)
      throw new TargetCompanyMismatchError(target, bound.companyId, companyId);
    return bound;
  }

  async switchCompany(target: string, companyId: string, assumed?: string): Promise<CompanySwitch> {
    const at = this.#now().toISOString();
    return inTransaction(this.#pool, 'BEGIN', async (client) => {
      // Locked in the order lease() locks them: the company's row, then the lease's (bumped: an attempt
      // leased under the company before writes nothing more).
      const { rows } = await client.query<CompanyRow>(
        `SELECT ${companyColumns} FROM target_companies WHERE target = $1 FOR UPDATE`,
        [target],
      );
      await nextLease(client, target);
      const previous = rows[0]?.company_id ?? null;
      if (previous === companyId) return { previous, keptAs: null, moved: 0 };
      const keptAs = keptAsTarget(target, previous ?? assumed ?? 'unknown', at);
      const moved =
        (await client.query('UPDATE target_index SET target = $1 WHERE target = $2', [keptAs, target]))
          .rowCount ?? 0;
      await client.query(
        `INSERT INTO target_companies (target, company_id, since, previous_company_id) VALUES ($1, $2, $3, $4)
         ON CONFLICT (target) DO UPDATE SET company_id = excluded.company_id, since = excluded.since,
           previous_company_id = excluded.previous_company_id`,
        [target, companyId, at, previous ?? assumed ?? null],
      );
      return { previous, keptAs: moved > 0 ? keptAs : null, moved };
    });
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
