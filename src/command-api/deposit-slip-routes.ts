import type { WorkflowHandle } from '@temporalio/client';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  type DepositSlipOutcome,
  depositSlipWorkflowId,
  depositSlipWorkflowType,
} from '../../workflows/deposit-slip-contract.js';
import { commandRoutes as routes } from './contract.js';
import { schemaOf } from './openapi.js';
import type { CommandAnswer } from './outcome.js';
import { outcomeUnknown } from './temporal-errors.js';
import type { WorkflowCalls } from './workflow-calls.js';

/**
 * A deposit slip (the checks received outside the service that one slip took to the bank): its workflow,
 * one a slip number, books it in the ledger. Answered with the outcome: 201 booked, 200 booked already (the
 * same slip again), 422 refused with every reason, or 202 with where to ask when it takes longer than
 * answerWithinMs. Idempotent by the slip number, so it needs no Idempotency-Key.
 */
export const depositSlipRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(routes.bookDepositSlip.url, { schema: schemaOf('bookDepositSlip') }, async (request, reply) => {
    const calls = app.workflowCalls;
    const slip = request.body;
    const workflowId = depositSlipWorkflowId(slip.reference);
    // A request for the same slip number while one runs waits for that run's outcome.
    const handle = await calls.withDeadline(request, workflowId, () =>
      calls.client.workflow.start(depositSlipWorkflowType, {
        ...calls.start,
        workflowId,
        args: [slip],
        workflowIdConflictPolicy: 'USE_EXISTING',
      }),
    );
    request.log.info(
      { workflowId, reference: slip.reference, payments: slip.payments.length },
      'deposit slip command sent',
    );
    return reply.sendOutcome(await outcomeOf(calls, workflowId, handle));
  });

  app.get(
    routes.depositSlipOutcome.url,
    { schema: schemaOf('depositSlipOutcome') },
    async (request, reply) => {
      const calls = app.workflowCalls;
      const workflowId = depositSlipWorkflowId(request.params.reference);
      const handle = calls.client.workflow.getHandle(workflowId);
      await calls.withDeadline(request, workflowId, () => handle.describe());
      return reply.sendOutcome(await outcomeOf(calls, workflowId, handle));
    },
  );
};

const outcomeUrl = (workflowId: string) =>
  `/commands/depositSlips/${encodeURIComponent(workflowId.replace(/^deposit-slip-/, ''))}`;

/** The run's result within answerWithinMs as the answer, else 202 with where to ask. */
async function outcomeOf(
  calls: WorkflowCalls,
  workflowId: string,
  handle: Pick<WorkflowHandle, 'result'>,
): Promise<CommandAnswer> {
  const answered = await Promise.race([
    handle.result().then(
      (result: DepositSlipOutcome) => ({ result }),
      (error: unknown) => ({ error }),
    ),
    new Promise<null>((resolve) => setTimeout(() => resolve(null), calls.answerWithinMs).unref()),
  ]);
  if (answered === null) {
    return { status: 202, body: { workflowId, status: 'PENDING', outcome: outcomeUrl(workflowId) } };
  }
  if ('error' in answered) throw outcomeUnknown(answered.error);
  return depositSlipAnswer(workflowId, answered.result);
}

export function depositSlipAnswer(workflowId: string, outcome: DepositSlipOutcome): CommandAnswer {
  if (outcome.status === 'REFUSED') {
    return {
      status: 422,
      body: {
        error: `deposit slip refused: ${outcome.reasons.join('; ')}`,
        code: 'deposit_slip_refused',
        reasons: outcome.reasons,
        workflowId,
      },
    };
  }
  return { status: outcome.slip.created ? 201 : 200, body: { workflowId, ...outcome.slip } };
}
