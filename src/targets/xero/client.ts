import type { Logger } from 'pino';
import { AccountingApi } from 'xero-node';
import { TargetUnavailableError } from '../errors.js';
import { DailyCapReachedError, type RealmLimiter, type TargetReport } from '../oauth/limiter.js';
import type { CompanyTokenStore } from '../oauth/token-store.js';
import { failureOf, lacksScope, xeroError } from './faults.js';

// Xero's Accounting API for one organisation (tenant), through the official SDK: an AccountingApi with its
// basePath pointed at XERO_BASE_URL (Xero, or the test double), the access token booksync refreshed itself
// (the SDK's own OAuth is hard-wired to identity.xero.com), the tenant as every call's first argument (the
// xero-tenant-id header). Each call takes its turn from the tenant's limiter, and every answer's own count
// goes back to it (X-DayLimit-Remaining, X-MinLimit-Remaining, X-AppMinLimit-Remaining; a 429's
// X-Rate-Limit-Problem and Retry-After), so the limiter follows Xero's count of the organisation, not only its
// own; a 401 is answered by one token refresh and one more try; failures become the port's errors
// (faults.ts). Nothing of a body or token is logged.

/** An SDK call's answer: the body, and the axios response whose headers carry Xero's limits. */
type Answer<T> = { body: T; response?: { headers?: unknown } };

export interface XeroClientOptions {
  baseUrl: string;
  tenantId: string;
  tokens: CompanyTokenStore;
  limiter: RealmLimiter;
  logger?: Logger;
  timeoutMs?: number;
}

export class XeroClient {
  private readonly api: AccountingApi;
  /** Requests sent (each retry counts), for the bench's calls per booked payment. */
  calls = 0;

  private readonly options: XeroClientOptions;
  constructor(options: XeroClientOptions) {
    this.options = options;
    this.api = new AccountingApi(`${options.baseUrl.replace(/\/$/, '')}/api.xro/2.0`);
  }

  get tenantId(): string {
    return this.options.tenantId;
  }

  get limiter(): RealmLimiter {
    return this.options.limiter;
  }

  /** One SDK call: `run(api, tenantId)` returns the SDK's `{body}`; the body is returned. */
  async call<T>(what: string, run: (api: AccountingApi, tenantId: string) => Promise<Answer<T>>): Promise<T> {
    const { tokens } = this.options;
    let token = await tokens.accessToken();
    let failure = await this.send(what, token, run);
    // A 401 for an expired token: refreshed once; one for a scope the connection lacks stays (faults.ts).
    if ('status' in failure && failure.status === 401 && !lacksScope(failure)) {
      token = await tokens.rejected(token);
      failure = await this.send(what, token, run);
    }
    if ('ok' in failure) return failure.body;
    throw xeroError(failure, what);
  }

  private async send<T>(
    what: string,
    token: string,
    run: (api: AccountingApi, tenantId: string) => Promise<Answer<T>>,
  ): Promise<{ ok: true; body: T } | NonNullable<ReturnType<typeof failureOf>>> {
    const { limiter, logger, tenantId } = this.options;
    const started = Date.now();
    try {
      const result = await limiter.run(async () => {
        this.calls++;
        this.api.accessToken = token;
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<never>((_resolve, reject) => {
          timer = setTimeout(
            () => reject(new TargetUnavailableError('xero', `${what}: no answer in time`)),
            this.options.timeoutMs ?? 60_000,
          );
        });
        try {
          return await Promise.race([run(this.api, tenantId), timeout]);
        } finally {
          clearTimeout(timer);
        }
      });
      limiter.observe(limitsReported(headersOf(result.response?.headers)));
      logger?.debug({ what, ms: Date.now() - started }, 'xero call');
      return { ok: true, body: result.body };
    } catch (rejection) {
      if (rejection instanceof DailyCapReachedError) {
        throw new TargetUnavailableError('xero', rejection.message, rejection.retryAfterMs);
      }
      if (rejection instanceof TargetUnavailableError) throw rejection;
      const failure = failureOf(rejection);
      if (!failure) throw rejection;
      limiter.observe(limitsReported(failure.headers, failure.status));
      logger?.debug({ what, status: failure.status, ms: Date.now() - started }, 'xero call failed');
      return failure;
    }
  }
}

function headersOf(raw: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  const source =
    raw && typeof (raw as { toJSON?: unknown }).toJSON === 'function'
      ? (raw as { toJSON: () => Record<string, unknown> }).toJSON()
      : ((raw ?? {}) as Record<string, unknown>);
  for (const [name, value] of Object.entries(source))
    if (value !== undefined) headers[name.toLowerCase()] = String(value);
  return headers;
}

/**
 * Xero's own count in an answer's headers (developer.xero.com/documentation/guides/oauth2/limits): what is left
 * of the organisation's day and minute and of the app's minute, and on a 429 the limit hit and Retry-After.
 */
export function limitsReported(headers: Record<string, string>, status = 200): TargetReport {
  const number = (name: string) => {
    const value = Number(headers[name]);
    return headers[name] !== undefined && Number.isFinite(value) ? value : undefined;
  };
  const day = number('x-daylimit-remaining');
  const minutes = [number('x-minlimit-remaining'), number('x-appminlimit-remaining')].filter(
    (n): n is number => n !== undefined,
  );
  const report: TargetReport = {};
  if (day !== undefined) report.dayRemaining = day;
  if (minutes.length > 0) report.minuteRemaining = Math.min(...minutes);
  if (status === 429) {
    const seconds = number('retry-after');
    report.refused = {
      limit: headers['x-rate-limit-problem'] ?? 'minute',
      ...(seconds === undefined ? {} : { retryAfterMs: seconds * 1000 }),
    };
  }
  return report;
}
