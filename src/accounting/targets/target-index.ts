import type { Database, Statement } from 'better-sqlite3';
import type { RemoteRecord } from './target-port.js';

// Per accounting target, what became of each ledger entry: PENDING (not yet pushed, or queued again by
// `targets retry`), PUSHED (the target's ids), FAILED (the target's refusal, kept until a person retries),
// SKIPPED (nothing to push, with why). Lives in the ledger's own database, beside the entries it indexes, so
// "every entry is PUSHED or explicitly SKIPPED" is one query.

export const targetStatuses = ['PENDING', 'PUSHED', 'FAILED', 'SKIPPED'] as const;
export type TargetStatus = (typeof targetStatuses)[number];

export interface IndexedEntry {
  entryId: number;
  key: string;
  status: TargetStatus;
  remoteIds: string[];
  contentHash: string;
  reason: string | null;
  attempts: number;
  updatedAt: string;
}

export interface TargetSummary {
  target: string;
  /** Entries of the ledger the target has not taken yet (no index row, or PENDING). */
  pending: number;
  pushed: number;
  failed: number;
  skipped: number;
  /** The FAILED entries, oldest first, with the target's message. */
  failures: IndexedEntry[];
}

interface Row {
  entry_id: number;
  entry_key: string;
  status: TargetStatus;
  remote_ids: string | null;
  content_hash: string;
  reason: string | null;
  attempts: number;
  updated_at: string;
}

const fromRow = (row: Row): IndexedEntry => ({
  entryId: row.entry_id,
  key: row.entry_key,
  status: row.status,
  remoteIds: row.remote_ids ? (JSON.parse(row.remote_ids) as string[]) : [],
  contentHash: row.content_hash,
  reason: row.reason,
  attempts: row.attempts,
  updatedAt: row.updated_at,
});

export class TargetIndex {
  readonly #now: () => Date;
  readonly #next: Statement<[string, number], { id: number; key: string }>;
  readonly #byKey: Statement<[string, string], Row>;
  readonly #upsert: Statement;
  readonly #counts: Statement<[string], { status: TargetStatus; n: number }>;
  readonly #entries: Statement<[], { n: number }>;
  readonly #failures: Statement<[string], Row>;
  readonly #requeueAll: Statement<[string, string]>;
  readonly #requeueKey: Statement<[string, string, string]>;

  constructor(db: Database, options: { now?: () => Date } = {}) {
    this.#now = options.now ?? (() => new Date());
    // Posting order is the entries' id order; FAILED and SKIPPED wait for a person, PUSHED is done.
    this.#next = db.prepare(
      `SELECT e.id, e.key FROM entries e
       LEFT JOIN target_index t ON t.target = ? AND t.entry_id = e.id
       WHERE (t.entry_id IS NULL OR t.status = 'PENDING') ORDER BY e.id LIMIT ?`,
    );
    this.#byKey = db.prepare('SELECT * FROM target_index WHERE target = ? AND entry_key = ?');
    this.#upsert = db.prepare(
      `INSERT INTO target_index (target, entry_id, entry_key, status, remote_ids, content_hash, reason, attempts, updated_at)
       VALUES (@target, @entryId, @key, @status, @remoteIds, @contentHash, @reason, 1, @now)
       ON CONFLICT (target, entry_id) DO UPDATE SET status = excluded.status, remote_ids = excluded.remote_ids,
         content_hash = excluded.content_hash, reason = excluded.reason, attempts = attempts + 1,
         updated_at = excluded.updated_at`,
    );
    this.#counts = db.prepare(
      'SELECT status, count(*) AS n FROM target_index WHERE target = ? GROUP BY status',
    );
    this.#entries = db.prepare('SELECT count(*) AS n FROM entries');
    this.#failures = db.prepare(
      "SELECT * FROM target_index WHERE target = ? AND status = 'FAILED' ORDER BY entry_id",
    );
    this.#requeueAll = db.prepare(
      "UPDATE target_index SET status = 'PENDING', updated_at = ? WHERE target = ? AND status = 'FAILED'",
    );
    this.#requeueKey = db.prepare(
      "UPDATE target_index SET status = 'PENDING', updated_at = ? WHERE target = ? AND entry_key = ? AND status IN ('FAILED', 'SKIPPED')",
    );
  }

  /** The next entries to push, in posting order. */
  next(target: string, limit: number): { id: number; key: string }[] {
    return this.#next.all(target, limit);
  }

  get(target: string, key: string): IndexedEntry | null {
    const row = this.#byKey.get(target, key);
    return row ? fromRow(row) : null;
  }

  /** What the target holds for an earlier entry, by the index (PUSHED only). */
  remote(target: string, key: string): RemoteRecord | null {
    const found = this.get(target, key);
    if (found?.status !== 'PUSHED') return null;
    return { key, remoteIds: found.remoteIds, contentHash: found.contentHash };
  }

  record(
    target: string,
    entry: { id: number; key: string; contentHash: string },
    outcome: { status: TargetStatus; remoteIds?: string[]; reason?: string },
  ): void {
    this.#upsert.run({
      target,
      entryId: entry.id,
      key: entry.key,
      status: outcome.status,
      remoteIds: outcome.remoteIds ? JSON.stringify(outcome.remoteIds) : null,
      contentHash: entry.contentHash,
      reason: outcome.reason ?? null,
      now: this.#now().toISOString(),
    });
  }

  summary(target: string): TargetSummary {
    const counts: Record<TargetStatus, number> = { PENDING: 0, PUSHED: 0, FAILED: 0, SKIPPED: 0 };
    for (const { status, n } of this.#counts.all(target)) counts[status] = n;
    const indexed = counts.PUSHED + counts.FAILED + counts.SKIPPED;
    return {
      target,
      pending: (this.#entries.get()?.n ?? 0) - indexed,
      pushed: counts.PUSHED,
      failed: counts.FAILED,
      skipped: counts.SKIPPED,
      failures: this.#failures.all(target).map(fromRow),
    };
  }

  /** Queues FAILED entries (all, or the given keys, FAILED or SKIPPED) for another push; returns how many. */
  requeue(target: string, keys: 'failed' | readonly string[]): number {
    const now = this.#now().toISOString();
    if (keys === 'failed') return this.#requeueAll.run(now, target).changes;
    let changed = 0;
    for (const key of keys) changed += this.#requeueKey.run(now, target, key).changes;
    return changed;
  }
}
