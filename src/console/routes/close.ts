import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CommandError } from '../../cli/command.js';
import { closeBooks } from '../../cli/commands/books.js';
import { periodCloseWorkflowId, requestPeriodClose } from '../../cli/commands/close.js';
import { certificateHtml } from '../../close/certificate-html.js';
import { fullCertificate } from '../../close/certificate-summary.js';
import { IngressError } from '../../ingress/errors.js';
import { dayInZone } from '../../ledger/mapping/dates.js';
import type { ReportReader } from '../../ledger/report-store.js';
import { type ConsoleContext, sendPage } from '../context.js';
import { type ClosePageData, certificateHref, closePage } from '../pages/close.js';
import { certificateOf, certificateRuns } from '../temporal-reads.js';

// Certificates and closings: the period-close workflow's certificates (rendered by the same certificateHtml
// as `booksync close --html`), making one, and closing the books through a day by the same code as
// `booksync books close` (closeBooks: only when the certificate passes, or forced with a reason).

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'YYYY-MM-DD');
const CertificateQuery = z.object({
  workflowId: z.string().regex(/^(scheduled-)?period-close-[\w:.+-]+$/, 'a period-close workflow id'),
  runId: z.string().max(100).optional(),
});
const CertifyForm = z.object({ _csrf: z.string().optional(), from: day, to: day });
const CloseForm = z.object({
  _csrf: z.string().optional(),
  through: day,
  reason: z.string().trim().max(300).optional(),
  force: z.literal('yes').optional(),
});

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function closeRoutes(ctx: ConsoleContext): FastifyPluginAsync {
  return async (app) => {
    const typed = app.withTypeProvider<ZodTypeProvider>();
    const { ledger, temporalClient: client, taskQueue } = ctx.options;
    // Without a report store only a whole certificate (an earlier release's result) can be shown.
    const reports: ReportReader = ctx.options.reports ?? { report: async () => null };
    const timeoutSeconds = ctx.options.closeTimeoutSeconds ?? 300;

    const render = async (
      request: FastifyRequest,
      reply: FastifyReply,
      outcome: ClosePageData['outcome'],
    ) => {
      const [runs, closings, closedThrough] = await Promise.all([
        certificateRuns(client).catch((error: unknown) => ({ error: message(error) })),
        ledger.booksClosings(),
        ledger.booksClosedThrough(),
      ]);
      return sendPage(reply, closePage(request.consoleSession!, { runs, closings, closedThrough, outcome }));
    };

    app.get('/console/close', async (request, reply) => render(request, reply, null));

    typed.get(
      '/console/close/certificate',
      { schema: { querystring: CertificateQuery } },
      async (request, reply) => {
        const { workflowId, runId } = request.query;
        const certificate = await certificateOf(client, workflowId, runId)
          .then((result) => fullCertificate(result, reports))
          .catch((error: unknown) => {
            throw new IngressError(
              404,
              'no_certificate',
              `no certificate in ${workflowId}: ${message(error)}`,
            );
          });
        // The certificate's page carries its own inline CSS (and no script).
        reply.header(
          'Content-Security-Policy',
          "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
        );
        return sendPage(reply, certificateHtml(certificate));
      },
    );

    typed.post('/console/close/certify', { schema: { body: CertifyForm } }, async (request, reply) => {
      const { from, to } = request.body;
      if (from > to) throw new IngressError(400, 'invalid_request', `${from} is after ${to}`);
      try {
        const certificate = await requestPeriodClose(client, {
          period: { from, to },
          taskQueue,
          timeoutSeconds,
          reports,
        });
        ctx.record(request, 'certificate', `${from} to ${to}`, certificate.passes ? 'passes' : 'fails');
        // The newest run of the period's workflow holds it.
        return reply.redirect(certificateHref({ workflowId: periodCloseWorkflowId({ from, to }) }), 303);
      } catch (error) {
        ctx.record(request, 'certificate', `${from} to ${to}`, `not made: ${message(error)}`);
        return render(request, reply, { ok: false, lines: [message(error)] });
      }
    });

    typed.post('/console/close/books', { schema: { body: CloseForm } }, async (request, reply) => {
      const { through, reason, force } = request.body;
      const what = `close the books through ${through}${force ? ' (forced)' : ''}${reason ? `: ${reason}` : ''}`;
      try {
        if (force && !reason) throw new CommandError('closing with a failing certificate needs a reason');
        const outcome = await closeBooks(
          ledger,
          { through, force: force === 'yes', reason: reason || null, timeoutSeconds },
          dayInZone(ctx.now().getTime(), ctx.options.timeZone),
          (period) => requestPeriodClose(client, { period, taskQueue, timeoutSeconds, reports }),
        );
        ctx.record(
          request,
          'close-books',
          what,
          outcome.exitCode === 0 ? 'closed' : 'refused: certificate fails',
        );
        return render(request, reply, { ok: outcome.exitCode === 0, lines: outcome.lines });
      } catch (error) {
        if (!(error instanceof CommandError)) throw error;
        ctx.record(request, 'close-books', what, `refused: ${error.message}`);
        return render(request, reply, { ok: false, lines: [error.message] });
      }
    });
  };
}
