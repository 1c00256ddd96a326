import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { type CommandRouteName, commandRoutes } from './contract.js';

// The one client of the command API, typed by its contract: the CLI and the demo both call through it. A
// write gets an Idempotency-Key (the caller's, or a fresh one it reports on failure), so a retry with that
// key is the same command.

type Route<N extends CommandRouteName> = (typeof commandRoutes)[N];
export type CommandParams<N extends CommandRouteName> = z.input<Route<N>['params']>;
export type CommandBody<N extends CommandRouteName> =
  Route<N> extends { body: infer B extends z.ZodType } ? z.input<B> : undefined;
type Responses<N extends CommandRouteName> = Route<N>['response'];
type Success<N extends CommandRouteName> = {
  [S in keyof Responses<N>]: S extends 200 | 201 | 202 ? z.output<Responses<N>[S] & z.ZodType> : never;
}[keyof Responses<N>];

export interface CommandApiTarget {
  baseUrl: string;
  apiKey: string;
}

/** The command API's refusal, or no answer; `idempotencyKey` is set when the command may have gone through. */
export class CommandApiError extends Error {
  override readonly name = 'CommandApiError';
  readonly status: number | null;
  readonly code: string | null;
  readonly idempotencyKey: string | null;
  constructor(message: string, status: number | null, code: string | null, idempotencyKey: string | null) {
    super(message);
    this.status = status;
    this.code = code;
    this.idempotencyKey = idempotencyKey;
  }
}

export class CommandApiClient {
  private readonly target: CommandApiTarget;
  private readonly timeoutMs: number;
  constructor(target: CommandApiTarget, timeoutMs = 15_000) {
    this.target = target;
    this.timeoutMs = timeoutMs;
  }

  async call<N extends CommandRouteName>(
    name: N,
    params: CommandParams<N>,
    ...rest: undefined extends CommandBody<N>
      ? [body?: CommandBody<N>, idempotencyKey?: string]
      : [body: CommandBody<N>, idempotencyKey?: string]
  ): Promise<{ status: number; body: Success<N> }> {
    const [body, idempotencyKey] = rest;
    const route: { method: string; url: string } = commandRoutes[name];
    const path = route.url.replace(/:(\w+)/g, (_m, p: string) =>
      encodeURIComponent(String((params as Record<string, unknown>)[p])),
    );
    const write = route.method === 'POST';
    const key = write ? (idempotencyKey ?? randomUUID()) : null;
    const headers: Record<string, string> = { authorization: `Bearer ${this.target.apiKey}` };
    if (key) headers['idempotency-key'] = key;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${this.target.baseUrl}${path}`, {
        method: route.method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
      throw new CommandApiError(
        `cannot reach the command API at ${this.target.baseUrl}: ${cause instanceof Error ? cause.message : String(cause)}`,
        null,
        null,
        key,
      );
    }
    const text = await response.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      // Not JSON: reported as text below.
    }
    if (!response.ok) {
      const refusal = (json ?? {}) as { error?: unknown; code?: unknown };
      const message =
        typeof refusal.error === 'string' ? refusal.error : text.slice(0, 200) || response.statusText;
      throw new CommandApiError(
        message,
        response.status,
        typeof refusal.code === 'string' ? refusal.code : null,
        response.status >= 500 ? key : null,
      );
    }
    return { status: response.status, body: json as Success<N> };
  }
}
