import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { queueTargetRetry } from '../../cli/commands/targets.js';
import { IngressError } from '../../ingress/errors.js';
import { type ConsoleContext, sendPage } from '../context.js';
import { oauthConnectionStates } from '../oauth-connections.js';
import { syncErrorsPage } from '../pages/sync-errors.js';

// The entries the targets refused, and Retry (one, or all of a target) through the same path as `booksync
// targets retry`: the retryEntries signal to the target's push workflow.

// After a retry: how many were queued where (the notice is made here, never text taken from the address).
const Notice = z.object({
  queued: z.coerce.number().int().min(0).optional(),
  target: z.string().max(100).optional(),
});
const RetryForm = z.object({
  _csrf: z.string().optional(),
  target: z.string().min(1).max(100),
  key: z.string().min(1).max(300).optional(),
});

export function syncErrorsRoutes(ctx: ConsoleContext): FastifyPluginAsync {
  return async (app) => {
    const typed = app.withTypeProvider<ZodTypeProvider>();
    const { ledger, targetIndex, targets, temporalClient } = ctx.options;
    const noticeOf = ({ queued, target }: z.infer<typeof Notice>) =>
      queued === undefined || !target || !targets.includes(target)
        ? null
        : `Queued ${queued} ${queued === 1 ? 'entry' : 'entries'} of ${target} for another push.`;

    typed.get('/console/sync-errors', { schema: { querystring: Notice } }, async (request, reply) => {
      const oauth = await oauthConnectionStates(ctx.options.oauthConnections);
      const rows = await Promise.all(
        targets.map(async (target) => {
          const { failures } = await targetIndex.summary(target);
          return {
            target,
            oauth: oauth.get(target),
            failures: await Promise.all(
              failures.map(async (failure) => ({ failure, entry: await ledger.get(failure.key) })),
            ),
          };
        }),
      );
      return sendPage(
        reply,
        syncErrorsPage(request.consoleSession!, { targets: rows, notice: noticeOf(request.query) }),
      );
    });

    typed.post('/console/sync-errors/retry', { schema: { body: RetryForm } }, async (request, reply) => {
      const { target, key } = request.body;
      if (!targets.includes(target)) throw new IngressError(400, 'unknown_target', `no target ${target}`);
      const what = key ? `retry ${key} at ${target}` : `retry every failed entry at ${target}`;
      let queued: string[];
      try {
        queued = await queueTargetRetry(temporalClient, targetIndex, target, key ? [key] : 'failed');
      } catch (error) {
        ctx.record(
          request,
          'retry',
          what,
          `refused: ${error instanceof Error ? error.message : String(error)}`,
        );
        throw error instanceof IngressError
          ? error
          : new IngressError(409, 'retry_refused', error instanceof Error ? error.message : String(error));
      }
      ctx.record(request, 'retry', what, `queued ${queued.length}`);
      return reply.redirect(
        `/console/sync-errors?queued=${queued.length}&target=${encodeURIComponent(target)}`,
        303,
      );
    });
  };
}
