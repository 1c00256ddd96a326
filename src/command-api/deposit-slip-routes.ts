import type { WorkflowHandle } from '@temporalio/client';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { DepositSlipBooked } from '../flows/deposit-slip/activities-contract.js';
import {
  type DepositSlip,
  type DepositSlipOutcome,
  depositSlipWorkflowId,
  depositSlipWorkflowType,
} from '../flows/deposit-slip/contract.js';
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
    return reply.sendOutcome(await outcomeOf(calls, slip.reference, handle, slip));
  });

  app.get(
    routes.depositSlipOutcome.url,
    { schema: schemaOf('depositSlipOutcome') },
    async (request, reply) => {
      const calls = app.workflowCalls;
      const { reference } = request.params;
      const workflowId = depositSlipWorkflowId(reference);
      const handle = calls.client.workflow.getHandle(workflowId);
      await calls.withDeadline(request, workflowId, () => handle.describe());
      return reply.sendOutcome(await outcomeOf(calls, reference, handle));
    },
  );
};

/** The run's result within answerWithinMs as the answer, else 202 with where to ask. */
async function outcomeOf(
  calls: WorkflowCalls,
  reference: string,
  handle: Pick<WorkflowHandle, 'result'>,
  asked?: DepositSlip,
): Promise<CommandAnswer> {
  const workflowId = depositSlipWorkflowId(reference);
  const answered = await Promise.race([
    handle.result().then(
      (result: DepositSlipOutcome) => ({ result }),
      (error: unknown) => ({ error }),
    ),
    new Promise<null>((resolve) => setTimeout(() => resolve(null), calls.answerWithinMs).unref()),
  ]);
  if (answered === null) {
    const outcome = `/commands/depositSlips/${encodeURIComponent(reference)}`;
    return { status: 202, body: { workflowId, status: 'PENDING', outcome } };
  }
  if ('error' in answered) throw outcomeUnknown(answered.error);
  const { result } = answered;
  // A run already open for this number (another request's) answers its own slip: another one is refused.
  if (asked && result.status === 'BOOKED' && !sameSlip(asked, result.slip)) {
    return depositSlipAnswer(workflowId, {
      status: 'REFUSED',
      reasons: [`deposit slip ${reference} is booked with other contents: a slip number is booked once`],
    });
  }
  return depositSlipAnswer(workflowId, result);
}

const paymentsOf = (payments: readonly { paymentLinkId: string; externalPaymentId: string }[]) =>
  payments
    .map((p) => `${p.paymentLinkId}:${p.externalPaymentId}`)
    .sort()
    .join(',');

function sameSlip(asked: DepositSlip, booked: DepositSlipBooked): boolean {
  return asked.date === booked.date && paymentsOf(asked.payments) === paymentsOf(booked.payments);
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
