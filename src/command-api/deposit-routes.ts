import { WithStartWorkflowOperation, WorkflowUpdateStage } from '@temporalio/client';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  applyDepositUpdate,
  type CheckApplicationView,
  type CheckDepositWorkflowInput,
  checkDepositViewQuery,
  checkDepositWorkflowId,
  checkDepositWorkflowType,
  refreshDepositSignal,
  voidApplicationUpdate,
} from '../flows/check-deposit/contract.js';
import type { ReturnedCheckFeeSplit } from '../flows/check-deposit/returned-check-fee.js';
import type { checkDeposit } from '../flows/check-deposit/workflow.js';
import { IngressError } from '../ingress/errors.js';
import { commandRoutes as routes } from './contract.js';
import { commandIdFrom, keyedCommandId } from './idempotency.js';
import { schemaOf } from './openapi.js';
import { applicationAnswer, pendingAnswer, voidAnswer } from './outcome.js';

export interface DepositRoutesOptions {
  /** RETURNED_CHECK_FEE_CENTS, handed to check-deposit workflows this API starts. */
  returnedCheckFeeCents?: number;
  /** RETURNED_CHECK_FEE_SPLIT, likewise (the workflow's default: the first link). */
  returnedCheckFeeSplit?: ReturnedCheckFeeSplit;
}

type CommandApp = Parameters<FastifyPluginAsyncZod>[0];

/** A check deposit's commands: apply (and its outcome), void an application, refresh, and its view. */
export const depositRoutes: FastifyPluginAsyncZod<DepositRoutesOptions> = async (app, options) => {
  applyRoute(app, options);
  applicationOutcomeRoute(app);
  voidApplicationRoute(app);
  refreshRoute(app, options);
  depositViewRoute(app);
};

/** The input of a check-deposit workflow this API starts. */
function workflowInput(checkDepositId: string, options: DepositRoutesOptions): CheckDepositWorkflowInput {
  return {
    checkDepositId,
    ...(options.returnedCheckFeeCents ? { returnedCheckFeeCents: options.returnedCheckFeeCents } : {}),
    ...(options.returnedCheckFeeSplit ? { returnedCheckFeeSplit: options.returnedCheckFeeSplit } : {}),
  };
}

const applicationUrl = (checkDepositId: string, commandId: string) =>
  `/commands/checkDeposits/${encodeURIComponent(checkDepositId)}/applications/${commandId}`;

// Apply: an Update (update-with-start), so the answer is the outcome: 201 with the application and the
// link's remainder, the service's refusal with its status and code, or 202 with where to ask when the
// service call is still being retried after answerWithinMs.
function applyRoute(app: CommandApp, options: DepositRoutesOptions): void {
  const config = { commandKey: { route: 'applyDeposit', withBody: true } } as const;
  app.post(routes.applyDeposit.url, { schema: schemaOf('applyDeposit'), config }, async (request, reply) => {
    const { workflowCalls: calls } = app;
    const checkDepositId = request.params.checkDepositId;
    const body = request.body;
    const commandId = keyedCommandId(request);
    const workflowId = checkDepositWorkflowId(checkDepositId);
    const outcomeUrl = applicationUrl(checkDepositId, commandId);
    const answered = await calls.sendUpdate(request, workflowId, () =>
      calls.client.workflow.startUpdateWithStart(applyDepositUpdate, {
        args: [{ ...body, commandId }],
        updateId: commandId,
        waitForStage: WorkflowUpdateStage.ACCEPTED,
        startWorkflowOperation: new WithStartWorkflowOperation<typeof checkDeposit>(
          checkDepositWorkflowType,
          {
            ...calls.start,
            workflowId,
            args: [workflowInput(checkDepositId, options)],
            workflowIdConflictPolicy: 'USE_EXISTING',
          },
        ),
      }),
    );
    request.log.info(
      { workflowId, commandId, checkDepositId, paymentLinkId: body.paymentLinkId },
      'apply deposit command sent',
    );
    return reply.sendOutcome(
      answered === null
        ? pendingAnswer(workflowId, commandId, outcomeUrl)
        : applicationAnswer(workflowId, answered.result, outcomeUrl),
    );
  });
}

/** A command's outcome later (after a 202): the deposit's view of that application. */
function applicationOutcomeRoute(app: CommandApp): void {
  app.get(
    routes.applicationOutcome.url,
    { schema: schemaOf('applicationOutcome') },
    async (request, reply) => {
      const { checkDepositId, commandId } = request.params;
      const workflowId = checkDepositWorkflowId(checkDepositId);
      const view = await app.workflowCalls.query(request, workflowId, checkDepositViewQuery);
      const application = view.applications.find((a: CheckApplicationView) => a.commandId === commandId);
      if (!application) throw new IngressError(404, 'not_found', `no application by command ${commandId}`);
      return reply.sendOutcome(
        applicationAnswer(workflowId, application, applicationUrl(checkDepositId, commandId)),
      );
    },
  );
}

function voidApplicationRoute(app: CommandApp): void {
  const config = { commandKey: { route: 'voidApplication', withBody: false } } as const;
  app.post(
    routes.voidApplication.url,
    { schema: schemaOf('voidApplication'), config },
    async (request, reply) => {
      const { workflowCalls: calls } = app;
      const { checkDepositId, externalPaymentId } = request.params;
      const commandId = keyedCommandId(request);
      const workflowId = checkDepositWorkflowId(checkDepositId);
      // No start: voiding an application of a deposit booksync never applied has nothing to undo here (404).
      const answered = await calls.sendUpdate(request, workflowId, () =>
        calls.client.workflow.getHandle(workflowId).startUpdate(voidApplicationUpdate, {
          args: [{ externalPaymentId, commandId }],
          updateId: commandId,
          waitForStage: WorkflowUpdateStage.ACCEPTED,
        }),
      );
      request.log.info(
        { workflowId, commandId, checkDepositId, externalPaymentId },
        'void application command sent',
      );
      const outcomeUrl = `/commands/checkDeposits/${encodeURIComponent(checkDepositId)}/voids/${commandId}`;
      return reply.sendOutcome(
        answered ? voidAnswer(workflowId, answered.result) : pendingAnswer(workflowId, commandId, outcomeUrl),
      );
    },
  );
}

// "Look at the deposit now": the bank's verdict on a check has no webhook (spec 6.5), so the workflow
// polls on timers; this asks it to look at once. Starts a run when none is open (e.g. a cleared check
// that came back later), which books what is missing.
function refreshRoute(app: CommandApp, options: DepositRoutesOptions): void {
  app.post(routes.refreshDeposit.url, { schema: schemaOf('refreshDeposit') }, async (request, reply) => {
    const { workflowCalls: calls } = app;
    const checkDepositId = request.params.checkDepositId;
    const commandId = commandIdFrom(request.headers['idempotency-key']);
    const workflowId = checkDepositWorkflowId(checkDepositId);
    await calls.withDeadline(request, workflowId, () =>
      calls.client.workflow.signalWithStart(checkDepositWorkflowType, {
        ...calls.start,
        workflowId,
        args: [workflowInput(checkDepositId, options)],
        signal: refreshDepositSignal,
        signalArgs: [{ reason: `refresh command ${commandId}` }],
      }),
    );
    request.log.info({ workflowId, commandId, checkDepositId }, 'refresh deposit command signalled');
    return reply.status(202).send({ workflowId, commandId });
  });
}

function depositViewRoute(app: CommandApp): void {
  app.get(routes.depositView.url, { schema: schemaOf('depositView') }, async (request) => {
    const workflowId = checkDepositWorkflowId(request.params.checkDepositId);
    const view = await app.workflowCalls.query(request, workflowId, checkDepositViewQuery);
    return { ...view };
  });
}
