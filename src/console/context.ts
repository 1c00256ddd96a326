import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuditLog } from './audit-log.js';
import { openConsoleDb } from './console-db.js';
import { type ConsoleAccount, consoleAccounts } from './credentials.js';
import type { ConsolePluginOptions } from './options.js';
import { type ConsoleSession, SessionStore } from './sessions.js';
import { SignInForms } from './sign-in-forms.js';
import { SignInThrottle } from './sign-in-throttle.js';

// What every console route shares: its options, the accounts, the sessions and the audit log (console.db),
// the sign-in forms' tokens and throttle, and the cookies' names and attributes.

export const sessionCookie = 'booksync_console';
/** The sign-in form's own token (before any session), also sent as a signed cookie. */
export const signInCookie = 'booksync_console_sign_in';

declare module 'fastify' {
  interface FastifyRequest {
    /** The console session of a signed-in request (set by the console's session hook). */
    consoleSession: ConsoleSession | null;
  }
}

export interface CookieOptions {
  path: string;
  httpOnly: true;
  sameSite: 'strict';
  secure: boolean;
  signed: true;
}

export interface ConsoleContext {
  options: ConsolePluginOptions;
  accounts: ConsoleAccount[];
  sessions: SessionStore;
  audit: AuditLog;
  throttle: SignInThrottle;
  forms: SignInForms;
  now: () => Date;
  /** The cookies' attributes: Secure behind TLS (the setting), or for a request that came over https. */
  cookieOptions(request: FastifyRequest): CookieOptions;
  /** Records an action of the signed-in request (or of `who` for a sign-in). */
  record(
    request: FastifyRequest,
    action: string,
    detail: string,
    outcome: string,
    as?: { who: string; role: string | null },
  ): void;
  close(): Promise<void>;
}

export function consoleContext(options: ConsolePluginOptions): ConsoleContext {
  const db = openConsoleDb(options.storeFile);
  const now = options.now ?? (() => new Date());
  const clock = () => now().getTime();
  const audit = new AuditLog(db, now);
  const accounts = consoleAccounts(options.credentials);
  const throttle = new SignInThrottle(audit, { now: clock });
  return {
    options,
    accounts,
    sessions: new SessionStore(db, {
      credentialOf: (name) => accounts.find((a) => a.name === name)?.secret,
      now: clock,
      ...(options.sessionIdleMs ? { idleMs: options.sessionIdleMs } : {}),
    }),
    audit,
    throttle,
    forms: new SignInForms(undefined, undefined, clock),
    now,
    cookieOptions: (request) => ({
      path: '/console',
      httpOnly: true,
      sameSite: 'strict',
      secure: options.secureCookie || request.protocol === 'https',
      signed: true,
    }),
    record(request, action, detail, outcome, as) {
      const session = request.consoleSession;
      audit.record({
        who: as?.who ?? session?.who ?? 'unknown',
        role: as ? as.role : (session?.role ?? null),
        action,
        detail,
        outcome,
        ip: request.ip,
      });
      request.log.info({ console: { action, detail, outcome } }, 'console action');
    },
    async close() {
      throttle.flush();
      db.close();
      for (const source of options.oauthConnections?.values() ?? []) await source.store?.close?.();
    },
  };
}

/** Sends a rendered page. */
export function sendPage(reply: FastifyReply, markup: string, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(markup);
}
