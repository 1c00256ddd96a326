import fastifySwagger from '@fastify/swagger';
import type { Client } from '@temporalio/client';
import type { FastifyPluginAsync } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { ReturnedCheckFeeSplit } from '../flows/check-deposit/returned-check-fee.js';
import type { FailureThrottle } from '../ingress/failure-throttle.js';
import { bearerAuth } from './bearer-auth.js';
import { depositRoutes } from './deposit-routes.js';
import { depositSlipRoutes } from './deposit-slip-routes.js';
import { idempotency } from './idempotency.js';
import { commandApiOpenApiInfo } from './openapi.js';
import { outcomeRoutes } from './outcome-routes.js';
import { paymentLinkRoutes } from './payment-link-routes.js';
import { workflowCalls } from './workflow-calls.js';
import { type WriteOffSources, writeOffRoutes } from './write-off-routes.js';
import { writeOffWithdrawRoutes } from './write-off-withdraw-routes.js';

export interface CommandRoutesOptions {
  temporalClient: Client;
  taskQueue: string;
  /** Bearer key callers must present. */
  apiKey: string;
  /** Wrong keys counted per address, shared with the ingress's other routes asking for the key. */
  bearerThrottle?: FailureThrottle;
  signalTimeoutMs: number;
  /** How long a command waits for its outcome before answering 202 with where to ask later. */
  answerWithinMs?: number;
  /** RETURNED_CHECK_FEE_CENTS, handed to check-deposit workflows this API starts. */
  returnedCheckFeeCents?: number;
  /** RETURNED_CHECK_FEE_SPLIT, likewise (the workflow's default: the first link). */
  returnedCheckFeeSplit?: ReturnedCheckFeeSplit;
  /** SQLite file where Idempotency-Keys are bound to their requests. Default: in memory, this process only. */
  commandKeysFile?: string;
  /** The ledger's store and the service a write-off goes through; without them it answers 503. */
  writeOffs?: WriteOffSources;
}

/**
 * The business's commands (design: "the business's command ... by signal"), the whole command API as one
 * plugin the ingress mounts: bearer auth (bearer-auth.ts), Idempotency-Keys (idempotency.ts), the calls to
 * Temporal and what their failures answer (workflow-calls.ts, temporal-errors.ts), then the routes by
 * workflow. Bodies are validated before anything is signalled, so a 4xx changes nothing.
 */
export const commandRoutes: FastifyPluginAsync<CommandRoutesOptions> = async (app, options) => {
  await app.register(bearerAuth, {
    apiKey: options.apiKey,
    ...(options.bearerThrottle ? { throttle: options.bearerThrottle } : {}),
  });
  // Params, bodies and answers are the contract's zod schemas (src/command-api/contract.ts): validated on the
  // way in, serialized on the way out, and the OpenAPI document below is generated from them.
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(fastifySwagger, {
    openapi: commandApiOpenApiInfo,
    transform: jsonSchemaTransform,
  });
  app.get('/commands/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(idempotency, {
    apiKey: options.apiKey,
    ...(options.commandKeysFile ? { commandKeysFile: options.commandKeysFile } : {}),
  });
  await app.register(workflowCalls, {
    temporalClient: options.temporalClient,
    taskQueue: options.taskQueue,
    signalTimeoutMs: options.signalTimeoutMs,
    ...(options.answerWithinMs ? { answerWithinMs: options.answerWithinMs } : {}),
  });
  // In this order: the OpenAPI document lists the paths as they were registered.
  await app.register(depositRoutes, {
    ...(options.returnedCheckFeeCents ? { returnedCheckFeeCents: options.returnedCheckFeeCents } : {}),
    ...(options.returnedCheckFeeSplit ? { returnedCheckFeeSplit: options.returnedCheckFeeSplit } : {}),
  });
  await app.register(paymentLinkRoutes);
  await app.register(writeOffRoutes, options.writeOffs ? { sources: options.writeOffs } : {});
  await app.register(writeOffWithdrawRoutes, options.writeOffs ? { sources: options.writeOffs } : {});
  await app.register(depositSlipRoutes);
  await app.register(outcomeRoutes);
};
