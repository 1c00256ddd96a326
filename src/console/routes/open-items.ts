import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { dayInZone } from '../../ledger/mapping/dates.js';
import { agingTotals, matching, type Side } from '../aging.js';
import { type ConsoleContext, sendPage } from '../context.js';
import { openItemsAged } from '../open-items.js';
import { openItemsPage } from '../pages/open-items.js';

const Search = z.object({ q: z.string().max(200).default('') });

export function openItemsRoutes(ctx: ConsoleContext): FastifyPluginAsync {
  return async (app) => {
    const typed = app.withTypeProvider<ZodTypeProvider>();
    typed.get('/console/receivables', { schema: { querystring: Search } }, async (request, reply) => {
      const today = dayInZone(ctx.now().getTime(), ctx.options.timeZone);
      const sides = await Promise.all(
        (['receivable', 'payable'] as Side[]).map(async (side) => {
          const all = await openItemsAged(ctx.options.ledger, side, today, ctx.options.references);
          const items = matching(all, request.query.q);
          return { side, items, totals: agingTotals(items) };
        }),
      );
      return sendPage(
        reply,
        openItemsPage(request.consoleSession!, { today, query: request.query.q, sides }),
      );
    });
  };
}
