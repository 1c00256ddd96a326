import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DepositSlipBody } from '../../command-api/contract.js';
import {
  type DepositSlipOutcome,
  depositSlipWorkflowId,
  depositSlipWorkflowType,
} from '../../flows/deposit-slip/contract.js';
import { paymentsToDeposit } from '../../ledger/deposit-slips.js';
import { dayInZone } from '../../ledger/mapping/dates.js';
import { formatUsd } from '../../ledger/money.js';
import { type ConsoleContext, sendPage } from '../context.js';
import { type ChecksToDepositData, checksToDepositPage } from '../pages/checks-to-deposit.js';

// The external payments still in Checks To Deposit, and the deposit slip that takes some of them to the bank:
// the same depositSlip workflow the command API starts (`booksync link deposit`), so the slip is booked by
// one activity whichever door it came through.

const SlipForm = z
  .object({ _csrf: z.string().optional(), date: z.string(), reference: z.string() })
  .catchall(z.string());

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

const daysBetween = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);

export function checksToDepositRoutes(ctx: ConsoleContext): FastifyPluginAsync {
  return async (app) => {
    const typed = app.withTypeProvider<ZodTypeProvider>();
    const { ledger, temporalClient: client, taskQueue } = ctx.options;

    const render = async (
      reply: FastifyReply,
      request: FastifyRequest,
      outcome: ChecksToDepositData['outcome'],
    ) => {
      const today = dayInZone(ctx.now().getTime(), ctx.options.timeZone);
      const checks = (await paymentsToDeposit(ledger)).map((p) => ({
        ...p,
        ageDays: daysBetween(p.paidOn, today),
      }));
      return sendPage(reply, checksToDepositPage(request.consoleSession!, { today, checks, outcome }));
    };

    app.get('/console/checks-to-deposit', async (request, reply) => render(reply, request, null));

    typed.post('/console/checks-to-deposit', { schema: { body: SlipForm } }, async (request, reply) => {
      const { date, reference } = request.body;
      const payments = Object.entries(request.body)
        .filter(([field, value]) => field.startsWith('pay:') && value === 'yes')
        .map(([field]) => {
          const [, paymentLinkId, externalPaymentId] = field.split(':');
          return { paymentLinkId, externalPaymentId };
        });
      const what = `deposit slip ${reference} on ${date}: ${payments.map((p) => p.externalPaymentId).join(', ') || 'no check'}`;
      const parsed = DepositSlipBody.safeParse({ reference, date, payments });
      if (!parsed.success) {
        const lines = parsed.error.issues.map((issue) => issue.message);
        ctx.record(request, 'deposit-slip', what, `refused: ${lines.join('; ')}`);
        return render(reply, request, { ok: false, lines });
      }
      let outcome: DepositSlipOutcome;
      try {
        outcome = await client.workflow.execute(depositSlipWorkflowType, {
          taskQueue,
          workflowId: depositSlipWorkflowId(parsed.data.reference),
          args: [parsed.data],
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowExecutionTimeout: '5m',
        });
      } catch (error) {
        ctx.record(request, 'deposit-slip', what, `not booked: ${message(error)}`);
        return render(reply, request, { ok: false, lines: [`The slip was not booked: ${message(error)}`] });
      }
      if (outcome.status === 'REFUSED') {
        ctx.record(request, 'deposit-slip', what, `refused: ${outcome.reasons.join('; ')}`);
        return render(reply, request, { ok: false, lines: outcome.reasons });
      }
      const { slip } = outcome;
      const line = `Deposit slip ${slip.reference} ${slip.created ? 'booked' : 'was booked already'}: ${slip.payments.length} ${slip.payments.length === 1 ? 'check' : 'checks'}, ${formatUsd(slip.totalCents)} to the operating bank on ${slip.date}.`;
      ctx.record(request, 'deposit-slip', what, slip.created ? 'booked' : 'booked already');
      return render(reply, request, { ok: true, lines: [line] });
    });
  };
}
