import { z } from 'zod';
import { TargetRefusedError, TargetUnavailableError } from '../errors.js';

// Tryton's JSON-RPC (trytond 8: POST {url}/{database}/rpc/): `common.db.login` gives a session, sent as
// `Authorization: Session base64(login:userId:session)`. Model methods are `model.{name}.{method}` with the
// user's context last; wizards are `wizard.{name}.create|execute|delete`. Decimals and dates travel as
// tagged objects.

export interface TrytonDecimal {
  __class__: 'Decimal';
  decimal: string;
}
export interface TrytonDate {
  __class__: 'date';
  year: number;
  month: number;
  day: number;
}

/** Integer cents as Tryton's Decimal, exactly (no float on the way). */
export function decimalOf(cents: number): TrytonDecimal {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return {
    __class__: 'Decimal',
    decimal: `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`,
  };
}

/** Tryton's Decimal (2 places for USD) back to integer cents; refuses anything finer than a cent. */
export function centsOf(value: TrytonDecimal | number | string | null | undefined): number {
  const text = typeof value === 'object' && value !== null ? value.decimal : String(value ?? '0');
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match) throw new Error(`not a decimal amount: ${text}`);
  const fraction = (match[3] ?? '').padEnd(2, '0');
  if (/[^0]/.test(fraction.slice(2))) throw new Error(`amount ${text} has fractions of a cent`);
  const cents = Number(match[2]) * 100 + Number(fraction.slice(0, 2));
  return match[1] === '-' ? -cents : cents;
}

export function dateOf(isoDate: string): TrytonDate {
  const [year, month, day] = isoDate.split('-').map(Number) as [number, number, number];
  return { __class__: 'date', year, month, day };
}

export interface TrytonRpcOptions {
  /** The server root, e.g. http://127.0.0.1:8000 */
  url: string;
  database: string;
  username: string;
  password: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
  /**
   * Which of Tryton's warnings (which ask a person "are you sure?") to confirm the way its client does:
   * record the warning as acknowledged for the user and call again. Given the warning's name (its key
   * without Tryton's hash: `invoice_similar`, or `account.move,12.cancel`). Any other warning refuses
   * (TrytonWarningError), as errors do. Default: none.
   */
  acknowledgeWarnings?: (name: string) => boolean;
}

type Context = Record<string, unknown>;

// The shapes booksync relies on; anything else (a proxy's HTML page, another service on the port) is not
// Tryton answering, so it is retried as an outage rather than read as a result.
const envelope = z.object({ result: z.unknown().optional(), error: z.unknown().optional() });
const loginResult = z.tuple([z.number().int(), z.string()]).rest(z.unknown());
const wizardSession = z.tuple([z.number().int()]).rest(z.unknown());

/** Tryton answers `{error: [type, [message, description...]]}` for user-facing errors. */
function messageOf(error: unknown): { type: string; message: string } {
  if (Array.isArray(error)) {
    const [type, args] = error as [unknown, unknown];
    const parts = Array.isArray(args)
      ? args.filter((a) => typeof a === 'string' && a !== '')
      : [String(args)];
    return { type: String(type), message: parts.join(' ') || String(type) };
  }
  return { type: 'Error', message: JSON.stringify(error) };
}

const userErrorTypes = new Set(['UserError', 'UserWarning', 'AccessError', 'ConcurrencyException']);

export class TrytonRpc {
  readonly #options: TrytonRpcOptions;
  readonly #fetch: typeof fetch;
  #authorization: string | null = null;
  #userId: number | null = null;
  #context: Context | null = null;
  #nextId = 1;

  constructor(options: TrytonRpcOptions) {
    this.#options = options;
    this.#fetch = options.fetch ?? fetch;
  }

  get #endpoint(): string {
    return `${this.#options.url.replace(/\/$/, '')}/${encodeURIComponent(this.#options.database)}/rpc/`;
  }

  async #post(method: string, params: unknown[], authorized: boolean): Promise<unknown> {
    let response: Response;
    try {
      response = await this.#fetch(this.#endpoint, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          ...(authorized && this.#authorization ? { Authorization: this.#authorization } : {}),
        },
        body: JSON.stringify({ id: this.#nextId++, method, params }),
        signal: AbortSignal.timeout(this.#options.timeoutMs ?? 30_000),
      });
    } catch (error) {
      throw new TargetUnavailableError('tryton', `${method}: ${(error as Error).message}`, undefined, {
        cause: error,
      });
    }
    if (response.status === 401) throw new SessionExpired();
    if (response.status === 429 || response.status >= 500) {
      const retryAfter = Number(response.headers.get('retry-after'));
      throw new TargetUnavailableError(
        'tryton',
        `${method}: HTTP ${response.status}`,
        Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined,
      );
    }
    if (response.status === 403)
      throw new TargetRefusedError('tryton', `${method} is not allowed (HTTP 403)`);
    if (!response.ok) throw new TargetRefusedError('tryton', `${method}: HTTP ${response.status}`);
    const body = envelope.safeParse(await response.json().catch(() => null));
    if (!body.success)
      throw new TargetUnavailableError('tryton', `${method}: the answer is not Tryton's JSON-RPC`);
    return this.#resultOf(method, body.data);
  }

  #resultOf(method: string, body: z.infer<typeof envelope>): unknown {
    if (body.error) {
      const { type, message } = messageOf(body.error);
      if (type === 'UserWarning') {
        const key = ((body.error as unknown[])[1] as unknown[] | undefined)?.[0];
        if (typeof key === 'string') {
          const name = warningName(key);
          if (this.#options.acknowledgeWarnings?.(name)) throw new WarningRaised(key, message);
          // The message without the key Tryton sends first.
          const text = messageOf([type, ((body.error as unknown[])[1] as unknown[]).slice(1)]).message;
          throw new TrytonWarningError(name, text);
        }
      }
      if (userErrorTypes.has(type)) throw new TargetRefusedError('tryton', message);
      // A server-side exception (a bug, a database hiccup): retried, its text kept for the log.
      throw new TargetUnavailableError('tryton', `${method}: ${type} ${message}`);
    }
    return body.result;
  }

  async login(): Promise<void> {
    const { username, password } = this.#options;
    const result = await this.#post('common.db.login', [username, { password }, 'en'], false);
    const login = loginResult.safeParse(result);
    if (!login.success) throw new TargetRefusedError('tryton', `login as ${username} failed`);
    const [userId, session] = login.data;
    this.#userId = userId;
    this.#authorization = `Session ${Buffer.from(`${username}:${userId}:${session}`).toString('base64')}`;
    this.#context = (await this.#post('model.res.user.get_preferences', [true, {}], true)) as Context;
  }

  /** One call with the session, logging in first and once more when the session expired. */
  async call(method: string, params: unknown[], extraContext: Context = {}): Promise<unknown> {
    for (let attempt = 1; ; attempt++) {
      if (!this.#authorization || !this.#context) await this.login();
      try {
        return await this.#post(method, [...params, { ...this.#context, ...extraContext }], true);
      } catch (error) {
        if (error instanceof WarningRaised && attempt <= 5) {
          await this.#post(
            'model.res.user.warning.create',
            [[{ user: this.#userId, name: error.key, always: false }], this.#context],
            true,
          );
          continue;
        }
        if (error instanceof WarningRaised) throw new TargetRefusedError('tryton', error.message);
        if (!(error instanceof SessionExpired) || attempt >= 2) {
          if (error instanceof SessionExpired)
            throw new TargetRefusedError('tryton', 'session refused after login');
          throw error;
        }
        this.#authorization = null;
      }
    }
  }

  model<T = unknown>(model: string, method: string, ...args: unknown[]): Promise<T> {
    return this.call(`model.${model}.${method}`, args) as Promise<T>;
  }

  async searchRead<T>(
    model: string,
    domain: unknown[],
    fields: string[],
    limit: number | null = null,
  ): Promise<T[]> {
    return this.model<T[]>(model, 'search_read', domain, 0, limit, null, fields);
  }

  /** Runs a wizard to `state` on records (Tryton's own operations that are not plain methods). */
  async wizard(
    name: string,
    state: string,
    data: Record<string, unknown>,
    model: string,
    ids: number[],
  ): Promise<void> {
    await this.wizardEach(name, state, data, model, [ids]);
  }

  /**
   * The same wizard run to `state` on each set of records in turn, in one wizard session: Tryton's wizard
   * takes its records from each `execute` call's context (`active_ids`) and keeps only its views' values in
   * the session, so the session is created and deleted once, not once a set (two calls a set fewer). Each
   * `execute` is a transaction of its own: a set Tryton refuses ends the run, the sets before it done.
   */
  async wizardEach(
    name: string,
    state: string,
    data: Record<string, unknown>,
    model: string,
    sets: readonly number[][],
  ): Promise<void> {
    if (sets.length === 0) return;
    const [sessionId] = wizardSession.parse(await this.call(`wizard.${name}.create`, []));
    try {
      for (const ids of sets) {
        const active = { active_model: model, active_id: ids[0], active_ids: ids };
        await this.call(`wizard.${name}.execute`, [sessionId, data, state], active);
      }
    } finally {
      await this.call(`wizard.${name}.delete`, [sessionId]).catch(() => undefined);
    }
  }
}

/**
 * A warning of Tryton's that booksync does not confirm for the user: refused (not retried) with Tryton's
 * message; `warning` is its name (`account.move,12.cancel`: cancelling a move of a closed period).
 */
export class TrytonWarningError extends TargetRefusedError {
  readonly warning: string;
  constructor(warning: string, message: string) {
    super('tryton', `${message} (a warning of Tryton's that booksync does not confirm for you)`);
    this.warning = warning;
  }
}

/** Tryton keys most warnings `{md5 of the records}.{name}` (res.user.warning.format): the name. */
export function warningName(key: string): string {
  return /^[0-9a-f]{32}\.(.+)$/.exec(key)?.[1] ?? key;
}

class WarningRaised extends Error {
  override readonly name = 'WarningRaised';
  readonly key: string;
  constructor(key: string, message: string) {
    super(message);
    this.key = key;
  }
}

class SessionExpired extends Error {
  override readonly name = 'SessionExpired';
}

/** A date as Tryton answers it (`{__class__: 'date', year, month, day}`) as YYYY-MM-DD; null otherwise. */
export function isoDateOf(value: unknown): string | null {
  const d = value as { year?: number; month?: number; day?: number } | null;
  if (!d || typeof d.year !== 'number' || typeof d.month !== 'number' || typeof d.day !== 'number')
    return null;
  return `${String(d.year).padStart(4, '0')}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
}

/** The standard (not adjustment) fiscal period holding a date, or undefined when Tryton has none. */
export async function standardPeriod(rpc: TrytonRpc, date: string): Promise<number | undefined> {
  const found = await rpc.model<number[]>(
    'account.period',
    'search',
    [
      ['start_date', '<=', dateOf(date)],
      ['end_date', '>=', dateOf(date)],
      ['type', '=', 'standard'],
    ],
    0,
    1,
    null,
  );
  return found[0];
}
