import type { Logger } from 'pino';
import { z } from 'zod';
import { TargetUnavailableError } from '../errors.js';
import { faultError } from './faults.js';
import { quoted, realmRequestId } from './keys.js';
import { QuickBooksLimiter, type RealmLimiter } from './limiter.js';
import type { OAuthTokenStore } from './token-store.js';

// QBO v3's REST API for one realm: JSON, `minorversion` pinned on every call (the JSON shape changes with
// it), every requestid made the realm's own, each call through the realm's limiter, a 401 answered by one
// token refresh and one more try.

/** Pinned: the minor version booksync's documents were written and checked against. */
export const MINOR_VERSION = '75';

export type QboEntity = Record<string, unknown> & { Id: string; SyncToken: string };

const entityShape = z.looseObject({ Id: z.string(), SyncToken: z.string() });

/** A report cell (Report.xsd ColData: attributes value, id, href). */
export interface QboColData {
  value?: string;
  id?: string;
}

/** A report row (Report.xsd Row): data (ColData) or a section (Header, Rows, Summary). */
export interface QboRow {
  type?: string;
  group?: string;
  ColData?: QboColData[];
  Header?: { ColData?: QboColData[] };
  Rows?: { Row?: QboRow[] };
  Summary?: { ColData?: QboColData[] };
}

/** A report (Report.xsd Report): Header (ReportHeader), Columns, Rows. */
export interface QboReport {
  Header?: Record<string, unknown>;
  Columns?: {
    Column?: { ColTitle?: string; ColType?: string; MetaData?: { Name?: string; Value?: string }[] }[];
  };
  Rows?: { Row?: QboRow[] };
}

const reportShape = z.looseObject({
  Header: z.looseObject({}).optional(),
  Columns: z.looseObject({ Column: z.array(z.looseObject({})).optional() }).optional(),
  Rows: z.looseObject({ Row: z.array(z.looseObject({})).optional() }).optional(),
});

export interface QboClientOptions {
  baseUrl: string;
  realmId: string;
  tokens: OAuthTokenStore;
  limiter: RealmLimiter;
  logger?: Logger;
  timeoutMs?: number;
}

/**
 * Conditions on properties QBO documents as filterable only (README "Finding a key"): a value is `F = 'v'`,
 * a list `F IN ('a', 'b')`. QBO refuses any other property with "property 'F' is not queryable".
 */
export type Filter = Record<string, string | readonly string[]>;

/** A page of a query: QBO answers at most 1000 rows (100 unless asked), from startPosition (1-based). */
export interface Page {
  orderBy?: string;
  start?: number;
  max?: number;
}

/** QBO's largest page. */
export const PAGE_SIZE = 1000;

/** `select * from Entity [where F = 'v' and G IN (...)] [orderby ...] [startposition n] [maxresults n]`. */
export function selectQuery(entity: string, where: Filter, page: Page = {}): string {
  const conditions = Object.entries(where).map(([field, value]) =>
    typeof value === 'string'
      ? `${field} = ${quoted(value)}`
      : `${field} IN (${value.map((v) => quoted(v)).join(', ')})`,
  );
  return [
    `select * from ${entity}`,
    conditions.length ? ` where ${conditions.join(' and ')}` : '',
    page.orderBy ? ` orderby ${page.orderBy}` : '',
    page.start ? ` startposition ${page.start}` : '',
    page.max ? ` maxresults ${page.max}` : '',
  ].join('');
}

/** A batch operation: a query (rows of `entity`), or a write of `entity`. */
export type BatchItem =
  | { query: string; entity: string }
  | { entity: string; body: Record<string, unknown>; operation?: 'create' | 'update' | 'void' };

export type BatchAnswer = QboEntity | QboEntity[] | Error;

/** QBO's limit of operations in one batch request. */
export const BATCH_LIMIT = 30;

export class QboClient {
  private readonly options: QboClientOptions;
  constructor(options: QboClientOptions) {
    this.options = options;
  }

  /** POST an entity: create (with requestid), or `operation=update|void` of an existing one. */
  async write(
    entity: string,
    body: Record<string, unknown>,
    query: Record<string, string>,
  ): Promise<QboEntity> {
    const json = await this.call('POST', entity.toLowerCase(), query, body);
    return entityShape.parse((json as Record<string, unknown>)[entity]) as QboEntity;
  }

  async read(entity: string, id: string): Promise<QboEntity> {
    const json = await this.call('GET', `${entity.toLowerCase()}/${encodeURIComponent(id)}`, {});
    return entityShape.parse((json as Record<string, unknown>)[entity]) as QboEntity;
  }

  /**
   * `GET /reports/<name>?<params>`: one of QBO's reports (TrialBalance, AgedReceivableDetail, ...), answered
   * as a `Report` (Report.xsd: Header, Columns, Rows of Row with ColData or Header/Rows/Summary).
   */
  async report(name: string, params: Record<string, string>): Promise<QboReport> {
    return reportShape.parse(
      await this.call('GET', `reports/${encodeURIComponent(name)}`, params),
    ) as QboReport;
  }

  /** One page of `select * from Entity where ...` (filterable properties only). */
  async select(entity: string, where: Filter, page: Page = {}): Promise<QboEntity[]> {
    const json = (await this.call('GET', 'query', { query: selectQuery(entity, where, page) })) as {
      QueryResponse?: Record<string, unknown>;
    };
    const rows = json.QueryResponse?.[entity];
    return z.array(entityShape).parse(rows ?? []) as QboEntity[];
  }

  /**
   * Every row of a query, a page of 1000 at a time, until a page is short or `enough` says the rows read so
   * far hold what the caller looks for.
   */
  async selectPages(
    entity: string,
    where: Filter,
    orderBy?: string,
    enough: (rows: QboEntity[]) => boolean = () => false,
  ): Promise<QboEntity[]> {
    const rows: QboEntity[] = [];
    for (let start = 1; ; start += PAGE_SIZE) {
      const page = await this.select(entity, where, {
        ...(orderBy ? { orderBy } : {}),
        start,
        max: PAGE_SIZE,
      });
      rows.push(...page);
      if (page.length < PAGE_SIZE || enough(rows)) return rows;
    }
  }

  /**
   * `POST /batch`: up to 30 operations in one request of QBO's limits. Each answer is the entity, the
   * query's rows, or that item's own Fault as a typed error; a failure of the whole batch throws.
   */
  async batch(items: BatchItem[], requestid: string): Promise<BatchAnswer[]> {
    const json = (await this.call(
      'POST',
      'batch',
      { requestid },
      {
        BatchItemRequest: items.map((item, i) =>
          'query' in item
            ? { bId: String(i), Query: item.query }
            : { bId: String(i), operation: item.operation ?? 'create', [item.entity]: item.body },
        ),
      },
    )) as { BatchItemResponse?: Record<string, unknown>[] };
    const byId = new Map((json.BatchItemResponse ?? []).map((r) => [String(r.bId), r]));
    return items.map((item, i): BatchAnswer => {
      const answer = byId.get(String(i));
      if (!answer) return new TargetUnavailableError('quickbooks', `batch answered without item ${i}`);
      if (answer.Fault) return faultError(400, JSON.stringify({ Fault: answer.Fault }), null);
      if ('query' in item) {
        const rows = (answer.QueryResponse as Record<string, unknown> | undefined)?.[item.entity];
        return z.array(entityShape).parse(rows ?? []) as QboEntity[];
      }
      return entityShape.parse(answer[item.entity]) as QboEntity;
    });
  }

  private async call(
    method: 'GET' | 'POST',
    path: string,
    query: Record<string, string>,
    body?: unknown,
  ): Promise<unknown> {
    const { tokens, limiter, realmId } = this.options;
    // Every requestid is this company's own: the same document pushed to two companies is two requests.
    const sent = query.requestid ? { ...query, requestid: realmRequestId(realmId, query.requestid) } : query;
    // A batch takes its turn among QBO's 40 batch requests a minute too.
    const turn = <T>(task: () => Promise<T>) =>
      path === 'batch' && limiter instanceof QuickBooksLimiter ? limiter.runBatch(task) : limiter.run(task);
    let token = await tokens.accessToken();
    let response = await turn(() => this.send(method, path, sent, token, body));
    if (response.status === 401) {
      token = await tokens.rejected(token);
      response = await turn(() => this.send(method, path, sent, token, body));
    }
    if (!response.ok) throw faultError(response.status, response.text, response.retryAfter);
    try {
      return JSON.parse(response.text);
    } catch (cause) {
      throw new TargetUnavailableError('quickbooks', `unreadable answer to ${method} ${path}`, undefined, {
        cause,
      });
    }
  }

  private async send(
    method: string,
    path: string,
    query: Record<string, string>,
    token: string,
    body: unknown,
  ) {
    const { baseUrl, realmId, logger, timeoutMs } = this.options;
    const url = new URL(`/v3/company/${encodeURIComponent(realmId)}/${path}`, baseUrl);
    for (const [k, v] of Object.entries({ ...query, minorversion: MINOR_VERSION }))
      url.searchParams.set(k, v);
    const started = Date.now();
    try {
      const response = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? null : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs ?? 60_000),
      });
      const text = await response.text();
      // Never the token nor the body: logs must not hold secrets or customers' data.
      logger?.debug(
        {
          method,
          path,
          status: response.status,
          ms: Date.now() - started,
          intuitTid: response.headers.get('intuit_tid'),
        },
        'quickbooks call',
      );
      return {
        status: response.status,
        ok: response.ok,
        text,
        retryAfter: response.headers.get('retry-after'),
      };
    } catch (cause) {
      throw new TargetUnavailableError(
        'quickbooks',
        `${method} ${path}: ${(cause as Error).message}`,
        undefined,
        { cause },
      );
    }
  }
}
