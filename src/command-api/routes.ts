import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import fastifySwagger from '@fastify/swagger';
import {
  type Client,
  type SignalDefinition,
  WithStartWorkflowOperation,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type WorkflowUpdateHandle,
  WorkflowUpdateStage,
} from '@temporalio/client';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { checkDeposit } from '../../workflows/check-deposit.js';
import {
  applyDepositUpdate,
  type CheckApplicationView,
  type CheckDepositWorkflowInput,
  checkDepositViewQuery,
  checkDepositWorkflowId,
  checkDepositWorkflowType,
  refreshDepositSignal,
  voidApplicationUpdate,
} from '../../workflows/check-deposit-contract.js';
import type { paymentLink } from '../../workflows/payment-link.js';
import {
  type LinkWriteCommand,
  linkCommandUpdate,
  type PaymentLinkWorkflowInput,
  paymentLinkViewQuery,
  paymentLinkWorkflowId,
  paymentLinkWorkflowType,
  syncPaymentLinkSignal,
} from '../../workflows/payment-link-contract.js';
import type { ReturnedCheckFeeSplit } from '../../workflows/returned-check-fee.js';
import { IngressError } from '../ingress/errors.js';
import { invalidArgumentDetails } from '../ingress/temporal-signal.js';
import { type CommandRouteName, commandRoutes as routes } from './contract.js';
import { CommandKeyStore, requestFingerprint, type StoredAnswer } from './idempotency-keys.js';
import { commandApiOpenApiInfo, schemaOf } from './openapi.js';
import { applicationAnswer, linkCommandAnswer, pendingAnswer, voidAnswer } from './outcome.js';

export interface CommandRoutesOptions {
  temporalClient: Client;
  taskQueue: string;
  /** Bearer key callers must present. */
  apiKey: string;
  signalTimeoutMs: number;
  /** How long a command waits for its outcome before answering 202 with where to ask later. */
  answerWithinMs?: number;
  /** RETURNED_CHECK_FEE_CENTS, handed to check-deposit workflows this API starts. */
  returnedCheckFeeCents?: number;
  /** RETURNED_CHECK_FEE_SPLIT, likewise (the workflow's default: the first link). */
  returnedCheckFeeSplit?: ReturnedCheckFeeSplit;
  /** SQLite file where Idempotency-Keys are bound to their requests. Default: in memory, this process only. */
  commandKeysFile?: string;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The command id: the Idempotency-Key header when it is a uuid, a uuid derived from it otherwise (so any
 * client key works, and the same key always gives the same id), or a fresh uuid when none was given.
 * The workflow drops a command id it has seen, so a retried request does nothing twice.
 */
export function commandIdFrom(header: string | string[] | undefined): string {
  if (header === undefined) return randomUUID();
  if (Array.isArray(header) || header.length === 0 || header.length > 255) {
    throw new IngressError(
      400,
      'invalid_idempotency_key',
      'Idempotency-Key must be one value of 1 to 255 characters',
    );
  }
  if (uuidPattern.test(header)) return header.toLowerCase();
  const hex = createHash('sha256').update(header).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * The business's commands (design: "the business's command ... by signal"): each answers 202 once Temporal
 * accepted the signal (signalWithStart, so the owning workflow starts when no run is open). Bearer auth with
 * a constant-time comparison; bodies validated before anything is signalled, so a 4xx changes nothing.
 */
export const commandRoutes: FastifyPluginAsync<CommandRoutesOptions> = async (app, options) => {
  if (options.apiKey.length === 0) throw new Error('command API key must be non-empty');
  // Params, bodies and answers are the contract's zod schemas (src/command-api/contract.ts): validated on the
  // way in, serialized on the way out, and the OpenAPI document below is generated from them.
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(fastifySwagger, {
    openapi: commandApiOpenApiInfo,
    transform: jsonSchemaTransform,
  });
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.get('/commands/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  const expected = digest(options.apiKey);

  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer (.+)$/.exec(header) : null;
    if (!match) throw new IngressError(401, 'unauthorized', 'missing bearer key');
    // Hashing first makes both sides the same length, so the comparison time says nothing about the key.
    if (!timingSafeEqual(digest(match[1]!), expected)) {
      throw new IngressError(401, 'unauthorized', 'unknown bearer key');
    }
  });

  const withDeadline = async <T>(request: FastifyRequest, workflowId: string, call: () => Promise<T>) => {
    try {
      return await options.temporalClient.connection.withDeadline(Date.now() + options.signalTimeoutMs, call);
    } catch (err) {
      if (err instanceof IngressError) throw err;
      if (err instanceof WorkflowNotFoundError) {
        throw new IngressError(404, 'not_found', `no workflow ${workflowId}`);
      }
      const refused = invalidArgumentDetails(err);
      if (refused !== undefined) {
        throw new IngressError(400, 'rejected_by_temporal', `Temporal refused the command: ${refused}`);
      }
      request.log.error({ err, workflowId }, 'Temporal did not accept the command');
      throw new IngressError(
        503,
        'temporal_unavailable',
        'could not hand the command to Temporal; retry later',
      );
    }
  };

  const start = { taskQueue: options.taskQueue };

  const keys = CommandKeyStore.open(options.commandKeysFile);
  app.addHook('onClose', async () => keys.close());
  /** Keys are the API key's: another organization's command API never sees them. */
  const scope = digest(options.apiKey).toString('hex').slice(0, 16);

  interface Keyed {
    commandId: string;
    key: string | null;
    /** The first answer, when this key already finished the same request. */
    replay: StoredAnswer | null;
  }

  /**
   * The command's id from its Idempotency-Key, bound to this request (method, route, parameters, body): the
   * same key with another request is refused (422) and changes nothing. Commands that create money records
   * require one, so a retry after a lost answer can never record the money twice.
   */
  const keyed = (request: FastifyRequest, body: unknown, route: CommandRouteName): Keyed => {
    const required = 'moneyKey' in routes[route];
    const header = request.headers['idempotency-key'];
    if (header === undefined) {
      if (required) {
        throw new IngressError(
          400,
          'idempotency_key_required',
          'this command records money: send an Idempotency-Key header (a new one per command, the same one when you retry it)',
        );
      }
      return { commandId: commandIdFrom(undefined), key: null, replay: null };
    }
    const commandId = commandIdFrom(header);
    const key = String(header);
    const fingerprint = requestFingerprint(
      request.method,
      request.routeOptions.url ?? '',
      request.params,
      body,
    );
    const claim = keys.claim(scope, key, fingerprint);
    if (claim.state === 'reused') {
      throw new IngressError(
        422,
        'idempotency_key_reused',
        'this Idempotency-Key came with another request before; a new command needs a new key',
      );
    }
    return { commandId, key, replay: claim.state === 'same' ? claim.answer : null };
  };

  /** Sends a command's answer: its body is checked against the route's response schema by the serializer. */
  const answerWith = (reply: FastifyReply, answer: StoredAnswer) =>
    reply.status(answer.status).send(answer.body);

  /** Sends the answer, and keeps it for the key when it is final (not a 202, not a 5xx). */
  const finish = (reply: FastifyReply, command: Keyed, answer: StoredAnswer) => {
    if (command.key && answer.status !== 202 && answer.status < 500) keys.answer(scope, command.key, answer);
    return answerWith(reply, answer);
  };

  /**
   * Sends an Update (its workflow started when `send` says so) and waits up to answerWithinMs for the
   * result; null when the service call is still being retried. A validator's refusal is a 400: nothing was
   * written to the workflow's history.
   */
  const sendUpdate = async <Ret>(
    request: FastifyRequest,
    workflowId: string,
    send: () => Promise<WorkflowUpdateHandle<Ret>>,
  ): Promise<{ result: Ret } | null> => {
    const handle = await withDeadline(request, workflowId, async () => {
      try {
        return await send();
      } catch (error) {
        if (error instanceof WorkflowUpdateFailedError) {
          throw new IngressError(400, 'invalid_request', error.cause?.message ?? error.message);
        }
        throw error;
      }
    });
    const answered = await Promise.race([
      handle.result().then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      ),
      new Promise<null>((resolve) =>
        setTimeout(() => resolve(null), options.answerWithinMs ?? 10_000).unref(),
      ),
    ]);
    if (answered === null || 'result' in answered) return answered;
    const cause = answered.error instanceof WorkflowUpdateFailedError ? answered.error.cause : answered.error;
    throw new IngressError(
      409,
      'command_outcome_unknown',
      (cause as Error | undefined)?.message ?? 'unknown',
    );
  };

  /** A payment link's write command as an Update, its workflow started when no run is open. */
  const linkWrite = async (
    request: FastifyRequest,
    reply: FastifyReply,
    route: CommandRouteName,
    paymentLinkId: string,
    body: unknown,
    commandOf: (commandId: string) => LinkWriteCommand,
  ) => {
    const command = keyed(request, body, route);
    if (command.replay) return answerWith(reply, command.replay);
    const queued = commandOf(command.commandId);
    const workflowId = paymentLinkWorkflowId(paymentLinkId);
    const commandId = queued.command.commandId;
    const args: [PaymentLinkWorkflowInput] = [{ paymentLinkId }];
    const answered = await sendUpdate(request, workflowId, () =>
      options.temporalClient.workflow.startUpdateWithStart(linkCommandUpdate, {
        args: [queued],
        updateId: commandId,
        waitForStage: WorkflowUpdateStage.ACCEPTED,
        startWorkflowOperation: new WithStartWorkflowOperation<typeof paymentLink>(paymentLinkWorkflowType, {
          ...start,
          workflowId,
          args,
          workflowIdConflictPolicy: 'USE_EXISTING',
        }),
      }),
    );
    request.log.info(
      { workflowId, commandId, paymentLinkId, kind: queued.kind },
      'payment link command sent',
    );
    const outcomeUrl = `/commands/paymentLinks/${encodeURIComponent(paymentLinkId)}/commands/${commandId}`;
    return finish(
      reply,
      command,
      answered
        ? linkCommandAnswer(workflowId, answered.result.result, answered.result.link)
        : pendingAnswer(workflowId, commandId, outcomeUrl),
    );
  };

  /** Signals a payment link's workflow (starting it when no run is open) and answers 202. */
  const linkCommand = async <Command>(
    request: FastifyRequest,
    reply: FastifyReply,
    paymentLinkId: string,
    commandId: string,
    signal: SignalDefinition<[Command]>,
    command: NoInfer<Command>,
  ) => {
    const workflowId = paymentLinkWorkflowId(paymentLinkId);
    const args: [PaymentLinkWorkflowInput] = [{ paymentLinkId }];
    await withDeadline(request, workflowId, () =>
      options.temporalClient.workflow.signalWithStart(paymentLinkWorkflowType, {
        ...start,
        workflowId,
        args,
        signal,
        signalArgs: [command],
      }),
    );
    request.log.info(
      { workflowId, commandId, paymentLinkId, url: request.routeOptions.url },
      'command signalled',
    );
    return reply.status(202).send({ workflowId, commandId });
  };

  // Apply: an Update (update-with-start), so the answer is the outcome: 201 with the application and the
  // link's remainder, the service's refusal with its status and code, or 202 with where to ask when the
  // service call is still being retried after answerWithinMs.
  typed.post(routes.applyDeposit.url, { schema: schemaOf('applyDeposit') }, async (request, reply) => {
    const checkDepositId = request.params.checkDepositId;
    const body = request.body;
    const command = keyed(request, body, 'applyDeposit');
    if (command.replay) return answerWith(reply, command.replay);
    const { commandId } = command;
    const workflowId = checkDepositWorkflowId(checkDepositId);
    const input: CheckDepositWorkflowInput = {
      checkDepositId,
      ...(options.returnedCheckFeeCents ? { returnedCheckFeeCents: options.returnedCheckFeeCents } : {}),
      ...(options.returnedCheckFeeSplit ? { returnedCheckFeeSplit: options.returnedCheckFeeSplit } : {}),
    };
    const outcomeUrl = `/commands/checkDeposits/${encodeURIComponent(checkDepositId)}/applications/${commandId}`;
    const answered = await sendUpdate(request, workflowId, () =>
      options.temporalClient.workflow.startUpdateWithStart(applyDepositUpdate, {
        args: [{ ...body, commandId }],
        updateId: commandId,
        waitForStage: WorkflowUpdateStage.ACCEPTED,
        startWorkflowOperation: new WithStartWorkflowOperation<typeof checkDeposit>(
          checkDepositWorkflowType,
          {
            ...start,
            workflowId,
            args: [input],
            workflowIdConflictPolicy: 'USE_EXISTING',
          },
        ),
      }),
    );
    request.log.info(
      { workflowId, commandId, checkDepositId, paymentLinkId: body.paymentLinkId },
      'apply deposit command sent',
    );
    return finish(
      reply,
      command,
      answered === null
        ? pendingAnswer(workflowId, commandId, outcomeUrl)
        : applicationAnswer(workflowId, answered.result, outcomeUrl),
    );
  });

  /** A command's outcome later (after a 202): the deposit's view of that application. */
  typed.get(
    routes.applicationOutcome.url,
    { schema: schemaOf('applicationOutcome') },
    async (request, reply) => {
      const { params } = request;
      const checkDepositId = params.checkDepositId;
      const commandId = params.commandId;
      const workflowId = checkDepositWorkflowId(checkDepositId);
      const view = await withDeadline(request, workflowId, () =>
        options.temporalClient.workflow.getHandle(workflowId).query(checkDepositViewQuery),
      );
      const application = view.applications.find((a: CheckApplicationView) => a.commandId === commandId);
      if (!application) throw new IngressError(404, 'not_found', `no application by command ${commandId}`);
      const outcomeUrl = `/commands/checkDeposits/${encodeURIComponent(checkDepositId)}/applications/${commandId}`;
      const answer = applicationAnswer(workflowId, application, outcomeUrl);
      return answerWith(reply, answer);
    },
  );

  typed.post(routes.voidApplication.url, { schema: schemaOf('voidApplication') }, async (request, reply) => {
    const { params } = request;
    const checkDepositId = params.checkDepositId;
    const externalPaymentId = params.externalPaymentId;
    const command = keyed(request, null, 'voidApplication');
    if (command.replay) return answerWith(reply, command.replay);
    const { commandId } = command;
    const workflowId = checkDepositWorkflowId(checkDepositId);
    // No start: voiding an application of a deposit booksync never applied has nothing to undo here (404).
    const answered = await sendUpdate(request, workflowId, () =>
      options.temporalClient.workflow.getHandle(workflowId).startUpdate(voidApplicationUpdate, {
        args: [{ externalPaymentId, commandId }],
        updateId: commandId,
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      }),
    );
    request.log.info(
      { workflowId, commandId, checkDepositId, externalPaymentId },
      'void application command sent',
    );
    return finish(
      reply,
      command,
      answered
        ? voidAnswer(workflowId, answered.result)
        : pendingAnswer(
            workflowId,
            commandId,
            `/commands/checkDeposits/${encodeURIComponent(checkDepositId)}/voids/${commandId}`,
          ),
    );
  });

  // "Look at the deposit now": the bank's verdict on a check has no webhook (spec 6.5), so the workflow
  // polls on timers; this asks it to look at once. Starts a run when none is open (e.g. a cleared check
  // that came back later), which books what is missing.
  typed.post(routes.refreshDeposit.url, { schema: schemaOf('refreshDeposit') }, async (request, reply) => {
    const checkDepositId = request.params.checkDepositId;
    const commandId = commandIdFrom(request.headers['idempotency-key']);
    const workflowId = checkDepositWorkflowId(checkDepositId);
    const input: CheckDepositWorkflowInput = {
      checkDepositId,
      ...(options.returnedCheckFeeCents ? { returnedCheckFeeCents: options.returnedCheckFeeCents } : {}),
      ...(options.returnedCheckFeeSplit ? { returnedCheckFeeSplit: options.returnedCheckFeeSplit } : {}),
    };
    await withDeadline(request, workflowId, () =>
      options.temporalClient.workflow.signalWithStart(checkDepositWorkflowType, {
        ...start,
        workflowId,
        args: [input],
        signal: refreshDepositSignal,
        signalArgs: [{ reason: `refresh command ${commandId}` }],
      }),
    );
    request.log.info({ workflowId, commandId, checkDepositId }, 'refresh deposit command signalled');
    return reply.status(202).send({ workflowId, commandId });
  });

  typed.get(routes.depositView.url, { schema: schemaOf('depositView') }, async (request) => {
    const checkDepositId = request.params.checkDepositId;
    const workflowId = checkDepositWorkflowId(checkDepositId);
    const view = await withDeadline(request, workflowId, () =>
      options.temporalClient.workflow.getHandle(workflowId).query(checkDepositViewQuery),
    );
    return { ...view };
  });

  typed.post(
    routes.recordExternalPayment.url,
    { schema: schemaOf('recordExternalPayment') },
    async (request, reply) =>
      linkWrite(request, reply, 'recordExternalPayment', request.params.id, request.body, (commandId) => ({
        kind: 'recordExternalPayment',
        command: { ...request.body, commandId },
      })),
  );

  typed.post(
    routes.voidExternalPayment.url,
    { schema: schemaOf('voidExternalPayment') },
    async (request, reply) =>
      linkWrite(request, reply, 'voidExternalPayment', request.params.id, null, (commandId) => ({
        kind: 'voidExternalPayment',
        command: { externalPaymentId: request.params.externalPaymentId, commandId },
      })),
  );

  typed.post(routes.recordDebitMemo.url, { schema: schemaOf('recordDebitMemo') }, async (request, reply) =>
    linkWrite(request, reply, 'recordDebitMemo', request.params.id, request.body, (commandId) => ({
      kind: 'recordDebitMemo',
      command: { ...request.body, commandId },
    })),
  );

  typed.post(routes.voidDebitMemo.url, { schema: schemaOf('voidDebitMemo') }, async (request, reply) =>
    linkWrite(request, reply, 'voidDebitMemo', request.params.id, null, (commandId) => ({
      kind: 'voidDebitMemo',
      command: { debitMemoId: request.params.debitMemoId, commandId },
    })),
  );

  typed.post(routes.syncLink.url, { schema: schemaOf('syncLink') }, async (request, reply) => {
    const paymentLinkId = request.params.id;
    const body = request.body ?? {};
    const commandId = commandIdFrom(request.headers['idempotency-key']);
    return linkCommand(request, reply, paymentLinkId, commandId, syncPaymentLinkSignal, {
      reason: body.reason ?? 'command',
      commandId,
    });
  });

  typed.get(routes.linkView.url, { schema: schemaOf('linkView') }, async (request) => {
    const paymentLinkId = request.params.id;
    const workflowId = paymentLinkWorkflowId(paymentLinkId);
    const view = await withDeadline(request, workflowId, () =>
      options.temporalClient.workflow.getHandle(workflowId).query(paymentLinkViewQuery),
    );
    return { ...view };
  });

  /** A void's outcome later (after a 202). */
  typed.get(routes.voidOutcome.url, { schema: schemaOf('voidOutcome') }, async (request, reply) => {
    const { params } = request;
    const checkDepositId = params.checkDepositId;
    const commandId = params.commandId;
    const workflowId = checkDepositWorkflowId(checkDepositId);
    const view = await withDeadline(request, workflowId, () =>
      options.temporalClient.workflow.getHandle(workflowId).query(checkDepositViewQuery),
    );
    const record = view.voids.find((v) => v.commandId === commandId);
    if (!record) throw new IngressError(404, 'not_found', `no void by command ${commandId}`);
    const answer = voidAnswer(workflowId, record);
    return answerWith(reply, answer);
  });

  /** A payment link command's outcome later (after a 202); the link's last 20 commands are kept. */
  typed.get(
    routes.linkCommandOutcome.url,
    { schema: schemaOf('linkCommandOutcome') },
    async (request, reply) => {
      const paymentLinkId = request.params.id;
      const commandId = request.params.commandId;
      const workflowId = paymentLinkWorkflowId(paymentLinkId);
      const view = await withDeadline(request, workflowId, () =>
        options.temporalClient.workflow.getHandle(workflowId).query(paymentLinkViewQuery),
      );
      const result = view.commands.find((c) => c.commandId === commandId);
      if (!result)
        throw new IngressError(404, 'not_found', `no command ${commandId} among the link's last 20`);
      const answer = linkCommandAnswer(workflowId, result, {
        requestedAmountCents: view.requestedAmountCents,
        completedAmountCents: view.completedAmountCents,
        debitMemoAmountCents: view.debitMemoAmountCents,
      });
      return answerWith(reply, answer);
    },
  );
};
