import { WithStartWorkflowOperation, WorkflowUpdateStage } from '@temporalio/client';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  type LinkWriteCommand,
  linkCommandUpdate,
  type PaymentLinkWorkflowInput,
  paymentLinkViewQuery,
  paymentLinkWorkflowId,
  paymentLinkWorkflowType,
  syncPaymentLinkSignal,
} from '../flows/payment-link/contract.js';
import type { paymentLink } from '../flows/payment-link/workflow.js';
import { commandRoutes as routes } from './contract.js';
import { commandIdFrom, keyedCommandId } from './idempotency.js';
import { schemaOf } from './openapi.js';
import { linkCommandAnswer, pendingAnswer } from './outcome.js';
import type { WorkflowCalls } from './workflow-calls.js';

type CommandApp = Parameters<FastifyPluginAsyncZod>[0];

/**
 * A payment link's commands: record and void external payments and debit memos (Updates, answered with
 * their outcome), sync (a signal), and its view.
 */
export const paymentLinkRoutes: FastifyPluginAsyncZod = async (app) => {
  const write = (request: FastifyRequest, reply: FastifyReply, id: string, written: LinkWrite) =>
    linkWrite(app.workflowCalls, request, reply, id, {
      kind: written.kind,
      command: { ...written.command, commandId: keyedCommandId(request) },
    } as LinkWriteCommand);

  app.post(
    routes.recordExternalPayment.url,
    writeOptions('recordExternalPayment', true),
    async (request, reply) =>
      write(request, reply, request.params.id, { kind: 'recordExternalPayment', command: request.body }),
  );
  app.post(
    routes.voidExternalPayment.url,
    writeOptions('voidExternalPayment', false),
    async (request, reply) =>
      write(request, reply, request.params.id, {
        kind: 'voidExternalPayment',
        command: { externalPaymentId: request.params.externalPaymentId },
      }),
  );
  app.post(routes.recordDebitMemo.url, writeOptions('recordDebitMemo', true), async (request, reply) =>
    write(request, reply, request.params.id, { kind: 'recordDebitMemo', command: request.body }),
  );
  app.post(routes.voidDebitMemo.url, writeOptions('voidDebitMemo', false), async (request, reply) =>
    write(request, reply, request.params.id, {
      kind: 'voidDebitMemo',
      command: { debitMemoId: request.params.debitMemoId },
    }),
  );

  syncRoute(app);
  linkViewRoute(app);
};

/** A write command as its route reads it: the command id comes from the bound Idempotency-Key. */
type LinkWrite = {
  [K in LinkWriteCommand['kind']]: {
    kind: K;
    command: Omit<Extract<LinkWriteCommand, { kind: K }>['command'], 'commandId'>;
  };
}[LinkWriteCommand['kind']];

/** A write route's schema, and its Idempotency-Key binding (`withBody`: a retry must carry the same body). */
const writeOptions = <K extends LinkWriteCommand['kind']>(route: K, withBody: boolean) => ({
  schema: schemaOf(route),
  config: { commandKey: { route, withBody } },
});

/** A payment link's write command as an Update, its workflow started when no run is open. */
async function linkWrite(
  calls: WorkflowCalls,
  request: FastifyRequest,
  reply: FastifyReply,
  paymentLinkId: string,
  queued: LinkWriteCommand,
) {
  const workflowId = paymentLinkWorkflowId(paymentLinkId);
  const commandId = queued.command.commandId;
  const args: [PaymentLinkWorkflowInput] = [{ paymentLinkId }];
  const answered = await calls.sendUpdate(request, workflowId, () =>
    calls.client.workflow.startUpdateWithStart(linkCommandUpdate, {
      args: [queued],
      updateId: commandId,
      waitForStage: WorkflowUpdateStage.ACCEPTED,
      startWorkflowOperation: new WithStartWorkflowOperation<typeof paymentLink>(paymentLinkWorkflowType, {
        ...calls.start,
        workflowId,
        args,
        workflowIdConflictPolicy: 'USE_EXISTING',
      }),
    }),
  );
  request.log.info({ workflowId, commandId, paymentLinkId, kind: queued.kind }, 'payment link command sent');
  const outcomeUrl = `/commands/paymentLinks/${encodeURIComponent(paymentLinkId)}/commands/${commandId}`;
  return reply.sendOutcome(
    answered
      ? linkCommandAnswer(workflowId, answered.result.result, answered.result.link)
      : pendingAnswer(workflowId, commandId, outcomeUrl),
  );
}

/** Signals the link's workflow (starting it when no run is open) to pick up records made elsewhere; 202. */
function syncRoute(app: CommandApp): void {
  app.post(routes.syncLink.url, { schema: schemaOf('syncLink') }, async (request, reply) => {
    const { workflowCalls: calls } = app;
    const paymentLinkId = request.params.id;
    const body = request.body ?? {};
    const commandId = commandIdFrom(request.headers['idempotency-key']);
    const workflowId = paymentLinkWorkflowId(paymentLinkId);
    const args: [PaymentLinkWorkflowInput] = [{ paymentLinkId }];
    await calls.withDeadline(request, workflowId, () =>
      calls.client.workflow.signalWithStart(paymentLinkWorkflowType, {
        ...calls.start,
        workflowId,
        args,
        signal: syncPaymentLinkSignal,
        signalArgs: [{ reason: body.reason ?? 'command', commandId }],
      }),
    );
    request.log.info(
      { workflowId, commandId, paymentLinkId, url: request.routeOptions.url },
      'command signalled',
    );
    return reply.status(202).send({ workflowId, commandId });
  });
}

function linkViewRoute(app: CommandApp): void {
  app.get(routes.linkView.url, { schema: schemaOf('linkView') }, async (request) => {
    const workflowId = paymentLinkWorkflowId(request.params.id);
    const view = await app.workflowCalls.query(request, workflowId, paymentLinkViewQuery);
    return { ...view };
  });
}
