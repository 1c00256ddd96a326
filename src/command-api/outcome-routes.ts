import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { checkDepositViewQuery, checkDepositWorkflowId } from '../flows/check-deposit/contract.js';
import { paymentLinkViewQuery, paymentLinkWorkflowId } from '../flows/payment-link/contract.js';
import { IngressError } from '../ingress/errors.js';
import { commandRoutes as routes } from './contract.js';
import { schemaOf } from './openapi.js';
import { linkCommandAnswer, voidAnswer } from './outcome.js';

/**
 * The outcomes of a void and of a payment link command, asked after a 202 (an apply's outcome is with the
 * deposit routes). Registered after the link routes: the OpenAPI document lists the paths in that order.
 */
export const outcomeRoutes: FastifyPluginAsyncZod = async (app) => {
  const calls = app.workflowCalls;

  app.get(routes.voidOutcome.url, { schema: schemaOf('voidOutcome') }, async (request, reply) => {
    const { checkDepositId, commandId } = request.params;
    const workflowId = checkDepositWorkflowId(checkDepositId);
    const view = await calls.query(request, workflowId, checkDepositViewQuery);
    const record = view.voids.find((v) => v.commandId === commandId);
    if (!record) throw new IngressError(404, 'not_found', `no void by command ${commandId}`);
    return reply.sendOutcome(voidAnswer(workflowId, record));
  });

  /** The link keeps its last 20 commands. */
  app.get(
    routes.linkCommandOutcome.url,
    { schema: schemaOf('linkCommandOutcome') },
    async (request, reply) => {
      const { id: paymentLinkId, commandId } = request.params;
      const workflowId = paymentLinkWorkflowId(paymentLinkId);
      const view = await calls.query(request, workflowId, paymentLinkViewQuery);
      const result = view.commands.find((c) => c.commandId === commandId);
      if (!result)
        throw new IngressError(404, 'not_found', `no command ${commandId} among the link's last 20`);
      return reply.sendOutcome(
        linkCommandAnswer(workflowId, result, {
          requestedAmountCents: view.requestedAmountCents,
          completedAmountCents: view.completedAmountCents,
          debitMemoAmountCents: view.debitMemoAmountCents,
        }),
      );
    },
  );
};
