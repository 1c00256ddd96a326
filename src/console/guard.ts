import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IngressError } from '../ingress/errors.js';
import { type ConsoleContext, sessionCookie } from './context.js';

// The console's doors, as hooks: no session, no page (a browser's GET is sent to sign in, anything else is
// 401); every POST carries the session's CSRF token (else 403); a read-only session acts on nothing but
// signing out (403).

const open = new Set(['/console/sign-in', '/console/console.css']);

const digest = (value: string) => createHash('sha256').update(value).digest();
export const sameToken = (given: unknown, expected: string): boolean =>
  typeof given === 'string' && given !== '' && timingSafeEqual(digest(given), digest(expected));

/** A browser asking for a page (not an API-style request): it is sent to the sign-in form. */
function wantsPage(request: FastifyRequest): boolean {
  return request.method === 'GET' && (request.headers.accept ?? '').includes('text/html');
}

/** onRequest: finds the request's session from its cookie; refuses the request when it has none. */
export function requireSession(ctx: ConsoleContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    request.consoleSession = null;
    const path = request.url.split('?')[0] as string;
    const raw = request.cookies[sessionCookie];
    if (raw) {
      const unsigned = request.unsignCookie(raw);
      if (unsigned.valid && unsigned.value) request.consoleSession = ctx.sessions.get(unsigned.value);
    }
    if (open.has(path) || request.consoleSession) return;
    if (wantsPage(request)) {
      return reply.redirect(`/console/sign-in?next=${encodeURIComponent(request.url)}`, 303);
    }
    throw new IngressError(401, 'unauthorized', 'sign in to the console first (POST /console/sign-in)');
  };
}

/** preValidation of every POST but sign-in: the session's CSRF token, and the role's right to act. */
export function requireCsrf() {
  return async (request: FastifyRequest) => {
    if (request.method !== 'POST' || request.url.split('?')[0] === '/console/sign-in') return;
    const session = request.consoleSession;
    if (!session) throw new IngressError(401, 'unauthorized', 'sign in to the console first');
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (!sameToken(body._csrf, session.csrf)) {
      throw new IngressError(
        403,
        'csrf_invalid',
        'missing or invalid CSRF token: reload the page and try again',
      );
    }
    if (session.role === 'read-only' && request.url !== '/console/sign-out') {
      throw new IngressError(403, 'read_only', 'signed in read-only: this action needs the console password');
    }
  };
}
