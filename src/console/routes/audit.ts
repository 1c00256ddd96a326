import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type ConsoleContext, sendPage } from '../context.js';
import { auditPage } from '../pages/audit.js';

/** Rows per page of the audit log. */
export const auditRowsPerPage = 50;

const AuditQuery = z.object({
  /** The rows older than this id (the "older" link). */
  before: z.coerce.number().int().min(1).optional(),
});

export function auditRoutes(ctx: ConsoleContext): FastifyPluginAsync {
  return async (app) => {
    const typed = app.withTypeProvider<ZodTypeProvider>();
    typed.get('/console/audit', { schema: { querystring: AuditQuery } }, async (request, reply) => {
      // The sign-ins being refused while throttled, counted so far, are written first.
      ctx.throttle.flush();
      const page = ctx.audit.page(auditRowsPerPage, request.query.before);
      return sendPage(reply, auditPage(request.consoleSession!, page, request.query.before !== undefined));
    });
  };
}
