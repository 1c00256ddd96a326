import fastifyCookie from '@fastify/cookie';
import type { FastifyPluginAsync } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { consoleContext } from './context.js';
import { requireCsrf, requireSession } from './guard.js';
import { consoleCss } from './layout.js';
import type { ConsolePluginOptions } from './options.js';
import { auditRoutes } from './routes/audit.js';
import { checksToDepositRoutes } from './routes/checks-to-deposit.js';
import { closeRoutes } from './routes/close.js';
import { connectionRoutes } from './routes/connection.js';
import { openItemsRoutes } from './routes/open-items.js';
import { overviewRoutes } from './routes/overview.js';
import { payoutsRoutes } from './routes/payouts.js';
import { signInRoutes } from './routes/sign-in.js';
import { syncErrorsRoutes } from './routes/sync-errors.js';

// The bookkeeper's console, on the operations listener beside the command API: server-rendered
// pages under /console, a session cookie, a CSRF token on every form, a read-only role, and an audit log of
// every action. Encapsulated: its cookie parser, form parser and hooks touch no other route.

const securityHeaders = {
  'Content-Security-Policy':
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

export const consolePlugin: FastifyPluginAsync<ConsolePluginOptions> = async (app, options) => {
  const ctx = consoleContext(options);
  app.addHook('onClose', async () => ctx.close());
  await app.register(fastifyCookie, { secret: ctx.sessions.cookieSecret() });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // HTML forms post application/x-www-form-urlencoded: one field each.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );
  app.decorateRequest('consoleSession', null);
  app.addHook('onRequest', requireSession(ctx));
  app.addHook('preValidation', requireCsrf());
  app.addHook('onSend', async (_request, reply) => {
    for (const [name, value] of Object.entries(securityHeaders)) {
      if (!reply.hasHeader(name)) reply.header(name, value);
    }
  });

  app.get('/console/console.css', async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('Cache-Control', 'max-age=300').send(consoleCss),
  );
  await app.register(signInRoutes(ctx));
  await app.register(overviewRoutes(ctx));
  await app.register(syncErrorsRoutes(ctx));
  await app.register(openItemsRoutes(ctx));
  await app.register(payoutsRoutes(ctx));
  await app.register(checksToDepositRoutes(ctx));
  await app.register(closeRoutes(ctx));
  await app.register(connectionRoutes(ctx));
  await app.register(auditRoutes(ctx));
};
