import {
  fromResponse,
  ServiceError,
  ServiceNetworkError,
  ServiceRateLimitedError,
  ServiceSchemaError,
  ServiceTimeoutError,
  ServiceValidationError,
} from '@booksync/service-contract/errors';
import type { Operation } from '@booksync/service-contract/operation';
import { fillPath } from '@booksync/service-contract/operations';
import type { z } from 'zod';
import type { Logger } from '../logging/logger.js';
import { backoffDelayMs, type RetryOptions, sleep } from './backoff.js';

// One HTTP exchange per operation: bearer auth, per-attempt timeout, retries only where the operation's
// RetryRule allows, response validated by its schema, one log line per attempt (never the key).

export interface TransportOptions {
  apiKey: string;
  baseUrl: string;
  logger: Logger;
  /** Per attempt, including reading the body. */
  timeoutMs: number;
  retry: RetryOptions;
  fetch: typeof fetch;
}

export interface CallInput {
  params?: Readonly<Record<string, string>>;
  query?: Readonly<Record<string, unknown>>;
  body?: unknown;
  /** Multipart bodies are rebuilt per attempt. */
  form?: () => FormData;
  signal?: AbortSignal;
}

export class Transport {
  readonly #apiKey: string;
  readonly #baseUrl: string;
  readonly #options: Omit<TransportOptions, 'apiKey' | 'baseUrl'>;

  constructor(options: TransportOptions) {
    this.#apiKey = options.apiKey;
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#options = {
      logger: options.logger,
      timeoutMs: options.timeoutMs,
      retry: options.retry,
      fetch: options.fetch,
    };
  }

  async call<R extends z.ZodType>(operation: Operation<R>, input: CallInput = {}): Promise<z.output<R>> {
    const path = fillPath(operation.path, input.params ?? {});
    const body = this.#requestBody(operation, input);
    const url = this.#baseUrl + path + queryString(operation, input.query);
    const retrySafe =
      operation.retry === 'safe' ||
      (operation.retry === 'withReference' &&
        typeof (body as { externalReferenceId?: unknown } | undefined)?.externalReferenceId === 'string');
    const { retry, logger } = this.#options;

    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      const log = { operation: operation.id, method: operation.method, path, attempt };
      let error: ServiceError;
      try {
        const { status, text, retryAfter } = await this.#exchange(operation, url, body, input);
        const durationMs = Math.round(performance.now() - started);
        if (status >= 200 && status < 300) {
          logger.debug({ ...log, status, durationMs }, 'service request');
          return parseResponse(operation, text, status);
        }
        logger.warn({ ...log, status, durationMs }, 'service request failed');
        error = fromResponse(status, text, { retryAfter, retrySafe });
      } catch (caught) {
        if (input.signal?.aborted) throw input.signal.reason;
        if (!(caught instanceof ServiceError)) throw caught;
        error = caught;
        const durationMs = Math.round(performance.now() - started);
        logger.warn({ ...log, error: error.name, durationMs }, 'service request failed');
      }

      if (!retrySafe || !error.transient || attempt >= retry.maxAttempts) throw error;
      const retryAfterMs = error instanceof ServiceRateLimitedError ? error.retryAfterMs : undefined;
      if (retryAfterMs !== undefined && retryAfterMs > retry.maxRetryAfterMs) throw error;
      await sleep(retryAfterMs ?? backoffDelayMs(attempt, retry), input.signal);
    }
  }

  #requestBody(operation: Operation, input: CallInput): unknown {
    if (operation.body?.contentType !== 'application/json') return undefined;
    const parsed = operation.body.schema.safeParse(input.body ?? {});
    if (!parsed.success) {
      throw new ServiceValidationError(
        `invalid ${operation.id} request: ${issuePaths(parsed.error).join(', ')}`,
      );
    }
    return parsed.data;
  }

  async #exchange(
    operation: Operation,
    url: string,
    body: unknown,
    input: CallInput,
  ): Promise<{ status: number; text: string; retryAfter: string | null }> {
    const timeout = AbortSignal.timeout(this.#options.timeoutMs);
    const signal = input.signal ? AbortSignal.any([input.signal, timeout]) : timeout;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#apiKey}`,
      accept: 'application/json',
    };
    let payload: string | FormData | undefined;
    if (input.form) payload = input.form();
    else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    try {
      const response = await this.#options.fetch(url, {
        method: operation.method,
        headers,
        body: payload,
        signal,
      });
      // The timeout also covers reading the body: a stalled stream aborts with the same signal.
      const text = await response.text();
      return { status: response.status, text, retryAfter: response.headers.get('retry-after') };
    } catch (caught) {
      if (input.signal?.aborted) throw input.signal.reason;
      if (timeout.aborted) {
        throw new ServiceTimeoutError(
          `${operation.method} ${operation.path} timed out after ${this.#options.timeoutMs} ms`,
          {
            cause: caught,
          },
        );
      }
      throw new ServiceNetworkError(
        `${operation.method} ${operation.path} failed: ${networkReason(caught)}`,
        {
          cause: caught,
        },
      );
    }
  }
}

function parseResponse<R extends z.ZodType>(
  operation: Operation<R>,
  text: string,
  status: number,
): z.output<R> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ServiceSchemaError(
      `${operation.id} answered ${status} with a body that is not JSON`,
      ['(body)'],
      {
        status,
      },
    );
  }
  const parsed = operation.response.safeParse(value);
  if (!parsed.success) {
    const issues = issuePaths(parsed.error);
    throw new ServiceSchemaError(
      `${operation.id} response does not match its schema at ${issues.join(', ')}`,
      issues,
      {
        status,
      },
    );
  }
  return parsed.data;
}

function queryString(operation: Operation, query: Readonly<Record<string, unknown>> | undefined): string {
  if (!operation.query || !query) return '';
  const parsed = operation.query.safeParse(query);
  if (!parsed.success) {
    throw new ServiceValidationError(`invalid ${operation.id} query: ${issuePaths(parsed.error).join(', ')}`);
  }
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(parsed.data)) {
    if (value !== undefined && value !== null) search.set(key, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/** Paths only: a value may be an account number. */
function issuePaths(error: z.ZodError): string[] {
  return error.issues.map((issue) => (issue.path.length === 0 ? '(root)' : issue.path.map(String).join('.')));
}

function networkReason(error: unknown): string {
  const cause =
    error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
