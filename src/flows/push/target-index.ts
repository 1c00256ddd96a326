import type { Database, Statement } from 'better-sqlite3';
import type { RemoteRecord } from '../../targets/target-port.js';

// Per accounting target, what became of each ledger entry: PENDING (not yet pushed, or queued again by
// `targets retry`), PUSHED (the target's ids), FAILED (the target's refusal, kept until a person retries),
// SKIPPED (nothing to push, with why). Lives in the ledger's own database, beside the entries it indexes, so
// "every entry is PUSHED or explicitly SKIPPED" is one query. Two stores: the ledger's SQLite file
// (SqliteTargetIndex, below) and the ledger's PostgreSQL database (postgres-target-index.ts).

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
  /** The lease of the push attempt that marked the entry before writing it to the target; null: none did. */
  attemptedBy: number | null;
}

/**
 * An entry the push takes next. `mayExist`: an earlier attempt may have created it at the target (it marked
 * the entry before writing, or the entry predates the marks), so the target is asked before creating; for
 * every other entry the target is known not to hold it and the push creates it without a look-up.
 */
export interface NextEntry {
  id: number;
  key: string;
  mayExist: boolean;
  /**
   * How many times the target refused this entry before (FAILED, then retried by a person): a retry of a
   * refused document is a new request, never the replay of the refusal (PushContext.refusals).
   */
  refusals: number;
  /**
   * When an attempt that has not ended marked the entry (its write may still be on its way to the target),
   * and that attempt's lease; null when no attempt's write is in flight.
   */
  inFlight: { since: string; lease: number } | null;
}

/** A push attempt whose lease is no longer its target's latest: a later attempt pushes; this one writes nothing. */
export class PushLeaseLostError extends Error {
  readonly target: string;
  readonly lease: number;
  constructor(target: string, lease: number) {
    super(`push lease ${lease} of ${target} was taken by a later attempt; this attempt writes nothing more`);
    this.target = target;
    this.lease = lease;
    this.name = 'PushLeaseLostError';
  }
}

/**
 * The company (QuickBooks' realm, Xero's tenant) a target's index was built against: what the index records
 * as pushed is in that company, and nowhere else.
 */
export interface IndexCompany {
  companyId: string;
  /** Since when: the first push or connect that recorded it, or the switch to it. */
  since: string;
  /** The company the index was built against before a switch; null when none was. */
  previousCompanyId: string | null;
}

/** What a switch of company did to the target's index (TargetIndexStore.switchCompany). */
export interface CompanySwitch {
  /** The company the index was built against until now; null when none was recorded. */
  previous: string | null;
  /** The target name the previous company's rows are kept under (not pushed from any more); null: none moved. */
  keptAs: string | null;
  /** How many rows were moved aside. */
  moved: number;
}

/**
 * The index is another company's than the one the target pushes to: what it records as pushed is not in
 * this company, so no push may use it (an entry would be believed present where it is not).
 */
export class TargetCompanyMismatchError extends Error {
  override readonly name = 'TargetCompanyMismatchError';
  readonly target: string;
  /** The company the index was built against. */
  readonly indexCompany: string;
  /** The company the target is connected to. */
  readonly company: string;
  constructor(target: string, indexCompany: string, company: string) {
    super(
      `the ${target} target index was built against company ${indexCompany}, but ${target} is connected to company ${company}: ` +
        `reconnect ${indexCompany} (booksync targets connect ${target}), or start a fresh index for ${company} with ` +
        `booksync targets connect ${target} --switch-company`,
    );
    this.target = target;
    this.indexCompany = indexCompany;
    this.company = company;
  }
}

/** The target name the rows of `company` are kept under once a switch moved them aside. */
export const keptAsTarget = (target: string, company: string, at: string): string =>
  `${target}@${company}@${at}`;

export interface TargetSummary {
  target: string;
  /** Entries of the ledger the target has not taken yet (no index row, or PENDING). */
  pending: number;
  /**
   * Of the pending, those an attempt marked before writing and never settled (a crash, an outage mid-slice):
   * the next push looks them up at the target before creating them.
   */
  inFlight: number;
  pushed: number;
  failed: number;
  skipped: number;
  /** The FAILED entries, oldest first, with the target's message. */
  failures: IndexedEntry[];
}

/** The entry an index row is about. */
export interface IndexedEntryRef {
  id: number;
  key: string;
  contentHash: string;
}

/** What became of an entry at a target, as the push records it. */
export interface TargetOutcome {
  status: TargetStatus;
  remoteIds?: string[];
  reason?: string;
}

/** The summary of a target from its index's counts per status, the ledger's entry count and the FAILED rows. */
export function summaryOf(
  target: string,
  counts: Record<TargetStatus, number>,
  entries: number,
  failures: IndexedEntry[],
  inFlight: number,
): TargetSummary {
  const indexed = counts.PUSHED + counts.FAILED + counts.SKIPPED;
  return {
    target,
    pending: entries - indexed,
    inFlight,
    pushed: counts.PUSHED,
    failed: counts.FAILED,
    skipped: counts.SKIPPED,
    failures,
  };
}

/** What the push activity and `booksync targets` read and write; async, so a networked database can hold it. */
export interface TargetIndexStore {
  /** The next entries to push, in posting order (PENDING or not indexed yet). */
  next(target: string, limit: number): Promise<NextEntry[]>;
  /**
   * Takes the target's push lease: a fencing token greater than every earlier one. From then on an earlier
   * attempt's writeAhead() fails, so it can create nothing more. With the company the target pushes to, the
   * index must be that company's (claimCompany, in the same transaction): else TargetCompanyMismatchError.
   */
  lease(target: string, companyId?: string): Promise<number>;
  /** The company the target's index was built against; null when none is recorded (Tryton, the mirror, a new index). */
  company(target: string): Promise<IndexCompany | null>;
  /**
   * Records `companyId` as the company of the target's index when none is recorded; throws
   * TargetCompanyMismatchError when the index was built against another. lease() with a company does the same.
   */
  claimCompany(target: string, companyId: string): Promise<IndexCompany>;
  /**
   * Starts a fresh index of the target for `companyId`: the rows of the company before are moved aside, kept
   * under keptAsTarget() (never read by a push again), and the target's lease is bumped, so an attempt that
   * was pushing to the company before writes nothing more. `assumed`: the company an index with rows but no
   * company recorded was built against (the connection's), for the name its rows are kept under.
   */
  switchCompany(target: string, companyId: string, assumed?: string): Promise<CompanySwitch>;
  /**
   * Before writing these entries to the target: marks them attempted under `lease`, in one transaction with
   * the check that `lease` is still the target's latest. Throws PushLeaseLostError, marking nothing, when a
   * later attempt took the lease. An entry already PUSHED is left as it is.
   */
  writeAhead(target: string, lease: number, entries: readonly IndexedEntryRef[]): Promise<void>;
  /**
   * The attempt holding `lease` ended (returned, or failed and gave its error back): none of its writes is in
   * flight any more (its marks stay: the target may hold those entries).
   */
  endAttempt(target: string, lease: number): Promise<void>;
  get(target: string, key: string): Promise<IndexedEntry | null>;
  /** What the target holds for earlier entries, by the index (PUSHED only); keys not pushed are absent. */
  remoteMany(target: string, keys: readonly string[]): Promise<Map<string, RemoteRecord>>;
  record(target: string, entry: IndexedEntryRef, outcome: TargetOutcome): Promise<void>;
  summary(target: string): Promise<TargetSummary>;
  /** Queues FAILED entries (all, or the given keys, FAILED or SKIPPED) for another push; returns how many. */
  requeue(target: string, keys: 'failed' | readonly string[]): Promise<number>;
}

export interface TargetIndexRow {
  entry_id: number;
  entry_key: string;
  status: TargetStatus;
  remote_ids: string | null;
  content_hash: string;
  reason: string | null;
  attempts: number;
  updated_at: string;
  attempted_by: number | string | null;
}

export const fromTargetIndexRow = (row: TargetIndexRow): IndexedEntry => ({
  entryId: row.entry_id,
  key: row.entry_key,
  status: row.status,
  remoteIds: row.remote_ids ? (JSON.parse(row.remote_ids) as string[]) : [],
  contentHash: row.content_hash,
  reason: row.reason,
  attempts: row.attempts,
  updatedAt: row.updated_at,
  attemptedBy: row.attempted_by === null ? null : Number(row.attempted_by),
});

/** How many PENDING entries of a target an attempt marked and never settled. */
export const inFlightSql = (target: string): string =>
  `SELECT count(*) AS n FROM target_index WHERE target = ${target} AND status = 'PENDING' AND attempted_by IS NOT NULL`;

/**
 * The next entries in posting order, with whether the target may hold them: marked by an attempt, or booked
 * before the marks existed (the ledger's write-ahead watermark), and the mark of an attempt still in flight.
 * Shared by both stores (placeholders differ).
 */
export const nextEntriesSql = (target: string, limit: string): string =>
  `SELECT e.id, e.key, COALESCE(t.attempts, 0) AS refusals,
     (t.attempted_by IS NOT NULL OR e.id <= (SELECT since_entry_id FROM target_write_ahead)) AS may_exist,
     t.marked_at, t.attempted_by
   FROM entries e
   LEFT JOIN target_index t ON t.target = ${target} AND t.entry_id = e.id
   WHERE (t.entry_id IS NULL OR t.status = 'PENDING') ORDER BY e.id LIMIT ${limit}`;

/** A row of nextEntriesSql as either store returns it. */
export interface NextEntryRow {
  id: number | string;
  key: string;
  may_exist: number | boolean;
  refusals: number | string;
  marked_at: string | null;
  attempted_by: number | string | null;
}

export const fromNextEntryRow = (r: NextEntryRow): NextEntry => ({
  id: Number(r.id),
  key: r.key,
  mayExist: r.may_exist === true || r.may_exist === 1,
  refusals: Number(r.refusals),
  inFlight:
    r.marked_at !== null && r.attempted_by !== null
      ? { since: r.marked_at, lease: Number(r.attempted_by) }
      : null,
});

/** A row of target_companies as both stores read it (companyColumns). */
export interface CompanyRow {
  company_id: string;
  since: string;
  previous_company_id: string | null;
}

export const companyColumns = 'company_id, since, previous_company_id';

export const fromCompanyRow = (row: CompanyRow): IndexCompany => ({
  companyId: row.company_id,
  since: row.since,
  previousCompanyId: row.previous_company_id,
});

/** Clears the in-flight time of an ended attempt's marks (both stores; placeholders differ). */
export const endAttemptSql = (target: string, lease: string): string =>
  `UPDATE target_index SET marked_at = NULL WHERE target = ${target} AND attempted_by = ${lease} AND marked_at IS NOT NULL`;

/** The target index in the ledger's SQLite database (synchronous underneath). */
export class SqliteTargetIndex implements TargetIndexStore {
  readonly #now: () => Date;
  readonly #next: Statement<[string, number], NextEntryRow>;
  readonly #endAttempt: Statement<[string, number]>;
  readonly #lease: Statement<[string], { lease: number }>;
  readonly #latestLease: Statement<[string], { lease: number }>;
  readonly #writeAhead: Statement;
  readonly #db: Database;
  readonly #byKey: Statement<[string, string], TargetIndexRow>;
  readonly #upsert: Statement;
  readonly #counts: Statement<[string], { status: TargetStatus; n: number }>;
  readonly #inFlight: Statement<[string], { n: number }>;
  readonly #entries: Statement<[], { n: number }>;
  readonly #failures: Statement<[string], TargetIndexRow>;
  readonly #requeueAll: Statement<[string, string]>;
  readonly #requeueKey: Statement<[string, string, string]>;
  readonly #company: Statement<[string], CompanyRow>;
  readonly #claim: Statement<[string, string, string]>;
  readonly #bind: Statement<[string, string, string, string | null]>;
  readonly #moveAside: Statement<[string, string]>;

  constructor(db: Database, options: { now?: () => Date } = {}) {
    this.#now = options.now ?? (() => new Date());
    // Posting order is the entries' id order; FAILED and SKIPPED wait for a person, PUSHED is done.
    this.#db = db;
    this.#next = db.prepare(nextEntriesSql('?', '?'));
    this.#endAttempt = db.prepare(endAttemptSql('?', '?'));
    this.#lease = db.prepare(
      `INSERT INTO target_leases (target, lease) VALUES (?, 1)
       ON CONFLICT (target) DO UPDATE SET lease = lease + 1 RETURNING lease`,
    );
    this.#latestLease = db.prepare('SELECT lease FROM target_leases WHERE target = ?');
    this.#writeAhead = db.prepare(
      `INSERT INTO target_index (target, entry_id, entry_key, status, content_hash, attempts, updated_at, attempted_by, marked_at)
       VALUES (@target, @entryId, @key, 'PENDING', @contentHash, 0, @now, @lease, @now)
       ON CONFLICT (target, entry_id) DO UPDATE SET attempted_by = excluded.attempted_by,
         updated_at = excluded.updated_at, marked_at = excluded.marked_at WHERE status <> 'PUSHED'`,
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
    this.#inFlight = db.prepare(inFlightSql('?'));
    this.#failures = db.prepare(
      "SELECT * FROM target_index WHERE target = ? AND status = 'FAILED' ORDER BY entry_id",
    );
    this.#requeueAll = db.prepare(
      "UPDATE target_index SET status = 'PENDING', updated_at = ? WHERE target = ? AND status = 'FAILED'",
    );
    this.#requeueKey = db.prepare(
      "UPDATE target_index SET status = 'PENDING', updated_at = ? WHERE target = ? AND entry_key = ? AND status IN ('FAILED', 'SKIPPED')",
    );
    this.#company = db.prepare(`SELECT ${companyColumns} FROM target_companies WHERE target = ?`);
    this.#claim = db.prepare(
      'INSERT INTO target_companies (target, company_id, since) VALUES (?, ?, ?) ON CONFLICT (target) DO NOTHING',
    );
    this.#bind = db.prepare(
      `INSERT INTO target_companies (target, company_id, since, previous_company_id) VALUES (?, ?, ?, ?)
       ON CONFLICT (target) DO UPDATE SET company_id = excluded.company_id, since = excluded.since,
         previous_company_id = excluded.previous_company_id`,
    );
    this.#moveAside = db.prepare('UPDATE target_index SET target = ? WHERE target = ?');
  }

  async company(target: string): Promise<IndexCompany | null> {
    const row = this.#company.get(target);
    return row ? fromCompanyRow(row) : null;
  }

  async claimCompany(target: string, companyId: string): Promise<IndexCompany> {
    return this.#db.transaction(() => this.#claimed(target, companyId)).immediate();
  }

  #claimed(target: string, companyId: string): IndexCompany {
    this.#claim.run(target, companyId, this.#now().toISOString());
    const bound = fromCompanyRow(this.#company.get(target) as CompanyRow);
    if (bound.companyId !== companyId)
      throw new TargetCompanyMismatchError(target, bound.companyId, companyId);
    return bound;
  }

  async switchCompany(target: string, companyId: string, assumed?: string): Promise<CompanySwitch> {
    const at = this.#now().toISOString();
    return this.#db
      .transaction((): CompanySwitch => {
        const previous = this.#company.get(target)?.company_id ?? null;
        if (previous === companyId) return { previous, keptAs: null, moved: 0 };
        const before = previous ?? assumed ?? 'unknown';
        const keptAs = keptAsTarget(target, before, at);
        const moved = this.#moveAside.run(keptAs, target).changes;
        this.#bind.run(target, companyId, at, previous ?? assumed ?? null);
        this.#lease.get(target);
        return { previous, keptAs: moved > 0 ? keptAs : null, moved };
      })
      .immediate();
  }

  async next(target: string, limit: number): Promise<NextEntry[]> {
    return this.#next.all(target, limit).map(fromNextEntryRow);
  }

  async endAttempt(target: string, lease: number): Promise<void> {
    this.#endAttempt.run(target, lease);
  }

  async lease(target: string, companyId?: string): Promise<number> {
    return this.#db
      .transaction(() => {
        if (companyId !== undefined) this.#claimed(target, companyId);
        return (this.#lease.get(target) as { lease: number }).lease;
      })
      .immediate();
  }

  async writeAhead(target: string, lease: number, entries: readonly IndexedEntryRef[]): Promise<void> {
    const now = this.#now().toISOString();
    this.#db
      .transaction(() => {
        if (this.#latestLease.get(target)?.lease !== lease) throw new PushLeaseLostError(target, lease);
        for (const entry of entries)
          this.#writeAhead.run({
            target,
            entryId: entry.id,
            key: entry.key,
            contentHash: entry.contentHash,
            now,
            lease,
          });
      })
      .immediate();
  }

  async get(target: string, key: string): Promise<IndexedEntry | null> {
    return this.#get(target, key);
  }

  #get(target: string, key: string): IndexedEntry | null {
    const row = this.#byKey.get(target, key);
    return row ? fromTargetIndexRow(row) : null;
  }

  async remoteMany(target: string, keys: readonly string[]): Promise<Map<string, RemoteRecord>> {
    const found = new Map<string, RemoteRecord>();
    for (const key of new Set(keys)) {
      const entry = this.#get(target, key);
      if (entry?.status === 'PUSHED')
        found.set(key, { key, remoteIds: entry.remoteIds, contentHash: entry.contentHash });
    }
    return found;
  }

  async record(target: string, entry: IndexedEntryRef, outcome: TargetOutcome): Promise<void> {
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

  async summary(target: string): Promise<TargetSummary> {
    const counts: Record<TargetStatus, number> = { PENDING: 0, PUSHED: 0, FAILED: 0, SKIPPED: 0 };
    for (const { status, n } of this.#counts.all(target)) counts[status] = n;
    return summaryOf(
      target,
      counts,
      this.#entries.get()?.n ?? 0,
      this.#failures.all(target).map(fromTargetIndexRow),
      this.#inFlight.get(target)?.n ?? 0,
    );
  }

  async requeue(target: string, keys: 'failed' | readonly string[]): Promise<number> {
    const now = this.#now().toISOString();
    if (keys === 'failed') return this.#requeueAll.run(now, target).changes;
    let changed = 0;
    for (const key of keys) changed += this.#requeueKey.run(now, target, key).changes;
    return changed;
  }
}
