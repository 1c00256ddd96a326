import type { FastifyPluginAsync } from 'fastify';
import { type ConsoleContext, sendPage } from '../context.js';
import { auditPage } from '../pages/audit.js';

export function auditRoutes(ctx: ConsoleContext): FastifyPluginAsync {
  return async (app) => {
    app.get('/console/audit', async (request, reply) =>
      sendPage(reply, auditPage(request.consoleSession!, ctx.audit.recent())),
    );
  };
}
