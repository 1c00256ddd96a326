import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type ConsoleContext, sendPage, sessionCookie, signInCookie } from '../context.js';
import { signInAs, whoIs } from '../credentials.js';
import { sameToken } from '../guard.js';
import { signInPage } from '../pages/sign-in.js';
import { unknownAccount } from '../sign-in-throttle.js';

// Signing in and out. The sign-in form has its own token (no session yet): single-use and expiring
// (sign-in-forms.ts), also sent as a signed cookie. A sign-in names a configured account; a refused one is
// recorded under that account (or "unknown account", never a name the client typed) and its address, and,
// repeated, throttled per address and account, the throttled attempts counted rather than recorded.

const SignInQuery = z.object({ next: z.string().max(500).optional() });
const SignInForm = z.object({
  account: z.string().max(80).default(''),
  password: z.string().max(500).default(''),
  next: z.string().max(500).optional(),
  _csrf: z.string().max(500).optional(),
});
const SignOutForm = z.object({ _csrf: z.string().optional() });

/** Only a console page to go back to after signing in (never another site). */
const safeNext = (next: string | undefined) =>
  next && /^\/console(\/|\?|$)/.test(next) && !next.includes('//') ? next : '/console';

export function signInRoutes(ctx: ConsoleContext): FastifyPluginAsync {
  return async (app) => {
    const typed = app.withTypeProvider<ZodTypeProvider>();
    /** The form, with a fresh token. */
    const form = (
      request: FastifyRequest,
      reply: FastifyReply,
      next: string,
      error: string | null,
      status = 200,
      account?: string,
    ) => {
      const token = ctx.forms.issue();
      reply.setCookie(signInCookie, token, {
        ...ctx.cookieOptions(request),
        maxAge: Math.floor(ctx.forms.lifetimeMs / 1000),
      });
      return sendPage(
        reply,
        signInPage({ csrf: token, next, error, accounts: ctx.accounts, account }),
        status,
      );
    };

    typed.get('/console/sign-in', { schema: { querystring: SignInQuery } }, async (request, reply) => {
      if (request.consoleSession) return reply.redirect(safeNext(request.query.next), 303);
      return form(request, reply, safeNext(request.query.next), null);
    });

    typed.post('/console/sign-in', { schema: { body: SignInForm } }, async (request, reply) => {
      const { body } = request;
      const next = safeNext(body.next);
      const raw = request.cookies[signInCookie];
      const cookie = raw ? request.unsignCookie(raw) : null;
      const bound = cookie?.valid && cookie.value ? sameToken(body._csrf, cookie.value) : false;
      if (!bound || ctx.forms.take(body._csrf) !== 'ok') {
        return form(
          request,
          reply,
          next,
          'This sign-in form has expired or was already used: enter the password again.',
          403,
        );
      }
      const account = ctx.accounts.find((a) => a.name === body.account);
      const accountName = account?.name ?? unknownAccount;
      const retryAfter = ctx.throttle.retryAfter(request.ip, accountName);
      if (retryAfter !== null) {
        const minutes = Math.ceil(retryAfter / 60);
        reply.header('Retry-After', String(retryAfter));
        return form(
          request,
          reply,
          next,
          `Too many refused sign-ins for this account: wait ${minutes === 1 ? 'a minute' : `${minutes} minutes`}.`,
          429,
          account?.name,
        );
      }
      const as = signInAs(ctx.accounts, body.account, body.password);
      if (!as) {
        ctx.throttle.failed(request.ip, accountName);
        ctx.record(request, 'sign-in', account ? 'wrong password' : 'no such account', 'refused', {
          who: accountName,
          role: null,
        });
        return form(request, reply, next, 'That is not the password of this account.', 401, account?.name);
      }
      ctx.throttle.succeeded(request.ip, accountName);
      const { id, session } = ctx.sessions.create(
        { account: as.name, role: as.role, who: whoIs(as) },
        as.secret,
      );
      request.consoleSession = session;
      ctx.record(request, 'sign-in', `signed in as ${as.role}`, 'done');
      const cookieOptions = ctx.cookieOptions(request);
      reply.clearCookie(signInCookie, { path: cookieOptions.path });
      reply.setCookie(sessionCookie, id, { ...cookieOptions, maxAge: ctx.sessions.lifetimeSeconds });
      return reply.redirect(next, 303);
    });

    typed.post('/console/sign-out', { schema: { body: SignOutForm } }, async (request, reply) => {
      const raw = request.cookies[sessionCookie];
      const unsigned = raw ? request.unsignCookie(raw) : null;
      if (unsigned?.valid && unsigned.value) ctx.sessions.delete(unsigned.value);
      ctx.record(request, 'sign-out', 'signed out', 'done');
      reply.clearCookie(sessionCookie, { path: ctx.cookieOptions(request).path });
      return reply.redirect('/console/sign-in', 303);
    });
  };
}
