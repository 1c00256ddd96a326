import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requestPayoutPeriodReport, requestPayoutReport } from '../../cli/commands/payout.js';
import { type ConsoleContext, sendPage } from '../context.js';
import { payoutsPage } from '../pages/payouts.js';
import { type RecentPayoutsPage, recentPayouts } from '../recent-payouts.js';

// A payout's report, or the period's, by the same workflows `booksync payout show` and `payout list` run;
// without either, the most recent payouts as the books hold them (recent-payouts.ts), each linking to its report.

/** Payouts per page of the list. */
export const recentPayoutsPerPage = 20;

/** The longest period a report is made for from the console: a year (the CLI takes any). */
export const longestReportDays = 366;

const day = z.union([z.literal(''), z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'YYYY-MM-DD')]);
const PayoutQuery = z.object({
  /** A service id: letters, digits, `_` and `-` (what the books link payouts by). */
  disbursement: z
    .union([z.literal(''), z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'a payout id')])
    .default(''),
  from: day.default(''),
  to: day.default(''),
  /** How many newer payouts the list skips (its "older" link). */
  older: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

export function payoutsRoutes(ctx: ConsoleContext): FastifyPluginAsync {
  return async (app) => {
    const typed = app.withTypeProvider<ZodTypeProvider>();
    typed.get('/console/payouts', { schema: { querystring: PayoutQuery } }, async (request, reply) => {
      const { disbursement, from, to, older } = request.query;
      const common = { taskQueue: ctx.options.taskQueue, timeoutSeconds: 60 };
      const client = ctx.options.temporalClient;
      let error: string | null = null;
      const attempt = <T>(run: () => Promise<T>) =>
        run().catch((e: unknown) => {
          error = e instanceof Error ? e.message : String(e);
          return null;
        });
      // A report runs a workflow: only for a payout the books hold, and a period of at most a year, so a
      // signed-in reader cannot start workflows for made-up ids or unbounded periods.
      const known =
        disbursement !== '' &&
        (await ctx.options.ledger.entriesFor({ disbursementId: disbursement })).length > 0;
      if (disbursement && !known) error = `the books hold no payout ${disbursement}`;
      const report = known
        ? await attempt(() => requestPayoutReport(client, { ...common, disbursementId: disbursement }))
        : null;
      let period = null;
      if (!disbursement && from && to) {
        const days = (Date.parse(to) - Date.parse(from)) / 86_400_000 + 1;
        if (from > to) error = `${from} is after ${to}`;
        else if (days > longestReportDays)
          error = `a period of at most ${longestReportDays} days (${from} to ${to} is ${days}): use booksync payout list for longer`;
        else
          period = await attempt(() =>
            requestPayoutPeriodReport(client, {
              ...common,
              period: { from, to },
              reports: ctx.options.reports ?? { report: async () => null },
            }),
          );
      }
      let recent: RecentPayoutsPage | null = null;
      if (!disbursement && !from && !to)
        recent = await attempt(() =>
          recentPayouts(ctx.options.ledger, { offset: older, limit: recentPayoutsPerPage }),
        );
      return sendPage(
        reply,
        payoutsPage(request.consoleSession!, {
          disbursementId: disbursement,
          from,
          to,
          report,
          period,
          recent,
          error,
        }),
      );
    });
  };
}
