import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuditLog } from './audit-log.js';
import { openConsoleDb } from './console-db.js';
import type { ConsoleCredentials } from './credentials.js';
import type { ConsolePluginOptions } from './options.js';
import { type ConsoleSession, SessionStore } from './sessions.js';
import { SignInThrottle } from './sign-in-throttle.js';

// What every console route shares: its options, the sessions and the audit log (console.db), the sign-in
// throttle, and the session cookie's name and attributes.

export const sessionCookie = 'booksync_console';
/** The sign-in form's own CSRF token (before any session), a double-submitted signed cookie. */
export const signInCookie = 'booksync_console_sign_in';

declare module 'fastify' {
  interface FastifyRequest {
    /** The console session of a signed-in request (set by the console's session hook). */
    consoleSession: ConsoleSession | null;
  }
}

export interface ConsoleContext {
  options: ConsolePluginOptions;
  credentials: ConsoleCredentials;
  sessions: SessionStore;
  audit: AuditLog;
  throttle: SignInThrottle;
  now: () => Date;
  cookieOptions: {
    path: string;
    httpOnly: true;
    sameSite: 'strict';
    secure: boolean;
    signed: true;
  };
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
  const audit = new AuditLog(db, now);
  return {
    options,
    credentials: { ...options.credentials, commandApiKey: options.commandApiKey },
    sessions: new SessionStore(db, undefined, () => now().getTime()),
    audit,
    throttle: new SignInThrottle(),
    now,
    cookieOptions: {
      path: '/console',
      httpOnly: true,
      sameSite: 'strict',
      secure: options.secureCookie,
      signed: true,
    },
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
      db.close();
      for (const source of options.oauthConnections?.values() ?? []) await source.store?.close?.();
    },
  };
}

/** Sends a rendered page. */
export function sendPage(reply: FastifyReply, markup: string, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(markup);
}
