import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IngressError } from '../../ingress/errors.js';
import { type ConsoleContext, sendPage, sessionCookie, signInCookie } from '../context.js';
import { anyCredential, credentialFor } from '../credentials.js';
import { sameToken } from '../guard.js';
import { signInPage } from '../pages/sign-in.js';
import { randomToken } from '../sessions.js';

// Signing in and out. The sign-in form has its own CSRF token (a signed cookie sent back as a field: there is
// no session yet); a refused password is recorded and, repeated, throttled per address.

const SignInQuery = z.object({ next: z.string().max(500).optional() });
const SignInForm = z.object({
  password: z.string().max(500).default(''),
  name: z.string().trim().max(80).optional(),
  next: z.string().max(500).optional(),
  _csrf: z.string().optional(),
});
const SignOutForm = z.object({ _csrf: z.string().optional() });

/** Only a console page to go back to after signing in (never another site). */
const safeNext = (next: string | undefined) =>
  next && /^\/console(\/|\?|$)/.test(next) && !next.includes('//') ? next : '/console';

export function signInRoutes(ctx: ConsoleContext): FastifyPluginAsync {
  return async (app) => {
    const typed = app.withTypeProvider<ZodTypeProvider>();
    const form = (
      reply: Parameters<typeof sendPage>[0],
      next: string,
      error: string | null,
      status = 200,
    ) => {
      const token = randomToken();
      reply.setCookie(signInCookie, token, { ...ctx.cookieOptions, maxAge: 60 * 60 });
      return sendPage(
        reply,
        signInPage({ csrf: token, next, error, configured: anyCredential(ctx.credentials) }),
        status,
      );
    };

    typed.get('/console/sign-in', { schema: { querystring: SignInQuery } }, async (request, reply) => {
      if (request.consoleSession) return reply.redirect(safeNext(request.query.next), 303);
      return form(reply, safeNext(request.query.next), null);
    });

    typed.post('/console/sign-in', { schema: { body: SignInForm } }, async (request, reply) => {
      const raw = request.cookies[signInCookie];
      const expected = raw ? request.unsignCookie(raw) : null;
      if (!expected?.valid || !expected.value || !sameToken(request.body._csrf, expected.value)) {
        throw new IngressError(
          403,
          'csrf_invalid',
          'missing or invalid CSRF token: load the sign-in page again',
        );
      }
      const next = safeNext(request.body.next);
      if (ctx.throttle.blocked(request.ip)) {
        ctx.record(request, 'sign-in', 'too many refused sign-ins from this address', 'refused', {
          who: request.body.name || 'unknown',
          role: null,
        });
        throw new IngressError(429, 'too_many_sign_ins', 'too many refused sign-ins: wait 15 minutes');
      }
      const as = credentialFor(ctx.credentials, request.body.password);
      if (!as) {
        ctx.throttle.failed(request.ip);
        ctx.record(request, 'sign-in', 'wrong password', 'refused', {
          who: request.body.name || 'unknown',
          role: null,
        });
        return form(reply, next, 'That password is not the console password.', 401);
      }
      ctx.throttle.succeeded(request.ip);
      const who = `${request.body.name || (as.role === 'read-only' ? 'reader' : 'bookkeeper')} (${as.credential})`;
      const { id, session } = ctx.sessions.create(as.role, who);
      request.consoleSession = session;
      ctx.record(request, 'sign-in', `signed in as ${as.role}`, 'done');
      reply.clearCookie(signInCookie, { path: ctx.cookieOptions.path });
      reply.setCookie(sessionCookie, id, { ...ctx.cookieOptions, maxAge: ctx.sessions.lifetimeSeconds });
      return reply.redirect(next, 303);
    });

    typed.post('/console/sign-out', { schema: { body: SignOutForm } }, async (request, reply) => {
      const raw = request.cookies[sessionCookie];
      const unsigned = raw ? request.unsignCookie(raw) : null;
      if (unsigned?.valid && unsigned.value) ctx.sessions.delete(unsigned.value);
      ctx.record(request, 'sign-out', 'signed out', 'done');
      reply.clearCookie(sessionCookie, { path: ctx.cookieOptions.path });
      return reply.redirect('/console/sign-in', 303);
    });
  };
}
