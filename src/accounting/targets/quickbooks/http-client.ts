import type { Logger } from 'pino';
import { z } from 'zod';
import { TargetUnavailableError } from '../errors.js';
import { faultError } from './faults.js';
import { quoted } from './keys.js';
import type { RealmLimiter } from './limiter.js';
import type { OAuthTokenStore } from './token-store.js';

// QBO v3's REST API for one realm: JSON, `minorversion` pinned on every call (the JSON shape changes with
// it), each call through the realm's limiter, a 401 answered by one token refresh and one more try.

/** Pinned: the minor version booksync's documents were written and checked against. */
export const MINOR_VERSION = '75';

export type QboEntity = Record<string, unknown> & { Id: string; SyncToken: string };

const entityShape = z.looseObject({ Id: z.string(), SyncToken: z.string() });

export interface QboClientOptions {
  baseUrl: string;
  realmId: string;
  tokens: OAuthTokenStore;
  limiter: RealmLimiter;
  logger?: Logger;
  timeoutMs?: number;
}

/** `select * from Entity where F = 'v' and ...`: the simple equality queries booksync needs. */
export function selectQuery(entity: string, where: Record<string, string>): string {
  const conditions = Object.entries(where).map(([field, value]) => `${field} = ${quoted(value)}`);
  return `select * from ${entity}${conditions.length ? ` where ${conditions.join(' and ')}` : ''}`;
}

/** `select * from Entity where Field LIKE 'prefix%'`. */
export function selectLikeQuery(entity: string, field: string, pattern: string): string {
  return `select * from ${entity} where ${field} LIKE ${quoted(pattern)}`;
}

/** A batch operation: a query (rows of `entity`), or a write of `entity`. */
export type BatchItem =
  | { query: string; entity: string }
  | { entity: string; body: Record<string, unknown>; operation?: 'create' | 'update' | 'void' };

export type BatchAnswer = QboEntity | QboEntity[] | Error;

/** QBO's limit of operations in one batch request. */
export const BATCH_LIMIT = 30;

export class QboClient {
  constructor(private readonly options: QboClientOptions) {}

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

  /** `select * from Entity where F = 'v' and ...`: the simple equality queries booksync needs. */
  async select(entity: string, where: Record<string, string>): Promise<QboEntity[]> {
    const json = (await this.call('GET', 'query', { query: selectQuery(entity, where) })) as {
      QueryResponse?: Record<string, unknown>;
    };
    const rows = json.QueryResponse?.[entity];
    return z.array(entityShape).parse(rows ?? []) as QboEntity[];
  }

  /** `select * from Entity where Field LIKE 'prefix%'`: finding a marker at the start of PrivateNote. */
  async selectLike(entity: string, field: string, pattern: string): Promise<QboEntity[]> {
    const json = (await this.call('GET', 'query', {
      query: selectLikeQuery(entity, field, pattern),
    })) as { QueryResponse?: Record<string, unknown> };
    return z.array(entityShape).parse(json.QueryResponse?.[entity] ?? []) as QboEntity[];
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
    const { tokens, limiter } = this.options;
    let token = await tokens.accessToken();
    let response = await limiter.run(() => this.send(method, path, query, token, body));
    if (response.status === 401) {
      token = await tokens.rejected(token);
      response = await limiter.run(() => this.send(method, path, query, token, body));
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
