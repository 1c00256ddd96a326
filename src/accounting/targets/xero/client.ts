import type { Logger } from 'pino';
import { AccountingApi } from 'xero-node';
import { TargetUnavailableError } from '../errors.js';
import { DailyCapReachedError, type RealmLimiter } from '../oauth/limiter.js';
import type { CompanyTokenStore } from '../oauth/token-store.js';
import { failureOf, xeroError } from './faults.js';

// Xero's Accounting API for one organisation (tenant), through the official SDK: an AccountingApi with its
// basePath pointed at XERO_BASE_URL (Xero, or the test double), the access token booksync refreshed itself
// (the SDK's own OAuth is hard-wired to identity.xero.com), the tenant as every call's first argument (the
// xero-tenant-id header). Each call takes its turn from the tenant's limiter; a 401 is answered by one token
// refresh and one more try; failures become the port's errors (faults.ts). Nothing of a body or token is
// logged.

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

  constructor(private readonly options: XeroClientOptions) {
    this.api = new AccountingApi(`${options.baseUrl.replace(/\/$/, '')}/api.xro/2.0`);
  }

  get tenantId(): string {
    return this.options.tenantId;
  }

  get limiter(): RealmLimiter {
    return this.options.limiter;
  }

  /** One SDK call: `run(api, tenantId)` returns the SDK's `{body}`; the body is returned. */
  async call<T>(
    what: string,
    run: (api: AccountingApi, tenantId: string) => Promise<{ body: T }>,
  ): Promise<T> {
    const { tokens } = this.options;
    let token = await tokens.accessToken();
    let failure = await this.send(what, token, run);
    if ('status' in failure && failure.status === 401) {
      token = await tokens.rejected(token);
      failure = await this.send(what, token, run);
    }
    if ('ok' in failure) return failure.body;
    throw xeroError(failure, what);
  }

  private async send<T>(
    what: string,
    token: string,
    run: (api: AccountingApi, tenantId: string) => Promise<{ body: T }>,
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
      logger?.debug({ what, ms: Date.now() - started }, 'xero call');
      return { ok: true, body: result.body };
    } catch (rejection) {
      if (rejection instanceof DailyCapReachedError) {
        throw new TargetUnavailableError('xero', rejection.message, rejection.retryAfterMs);
      }
      if (rejection instanceof TargetUnavailableError) throw rejection;
      const failure = failureOf(rejection);
      if (!failure) throw rejection;
      logger?.debug({ what, status: failure.status, ms: Date.now() - started }, 'xero call failed');
      return failure;
    }
  }
}
