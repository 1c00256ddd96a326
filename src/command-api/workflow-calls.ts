import type { Client, QueryDefinition, WorkflowUpdateHandle } from '@temporalio/client';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { callFailure, outcomeUnknown, updateRejected } from './temporal-errors.js';

export interface WorkflowCallsOptions {
  temporalClient: Client;
  taskQueue: string;
  signalTimeoutMs: number;
  /** How long a command waits for its outcome before answering 202 with where to ask later. */
  answerWithinMs?: number;
}

/** How the command routes reach their workflows: `app.workflowCalls`, decorated by the plugin below. */
export interface WorkflowCalls {
  client: Client;
  /** Where the workflows a command starts run. */
  start: { taskQueue: string };
  /** How long a command waits for its outcome before answering 202 with where to ask later. */
  answerWithinMs: number;
  /** Runs a Temporal call within signalTimeoutMs; its failure becomes the HTTP answer (temporal-errors.ts). */
  withDeadline<T>(request: FastifyRequest, workflowId: string, call: () => Promise<T>): Promise<T>;
  /** Asks a workflow's query (its view), within the same deadline. */
  query<T>(request: FastifyRequest, workflowId: string, query: QueryDefinition<T, []>): Promise<T>;
  /**
   * Sends an Update (its workflow started when `send` says so) and waits up to answerWithinMs for the
   * result; null when the service call is still being retried.
   */
  sendUpdate<Ret>(
    request: FastifyRequest,
    workflowId: string,
    send: () => Promise<WorkflowUpdateHandle<Ret>>,
  ): Promise<{ result: Ret } | null>;
}

declare module 'fastify' {
  interface FastifyInstance {
    workflowCalls: WorkflowCalls;
  }
}

export const workflowCalls = fp<WorkflowCallsOptions>(
  async (app, options) => {
    const answerWithinMs = options.answerWithinMs ?? 10_000;
    const withDeadline: WorkflowCalls['withDeadline'] = async (request, workflowId, call) => {
      try {
        return await options.temporalClient.connection.withDeadline(
          Date.now() + options.signalTimeoutMs,
          call,
        );
      } catch (err) {
        throw callFailure(err, workflowId, request.log);
      }
    };
    const sendUpdate: WorkflowCalls['sendUpdate'] = async (request, workflowId, send) => {
      const handle = await withDeadline(request, workflowId, async () => {
        try {
          return await send();
        } catch (error) {
          throw updateRejected(error);
        }
      });
      const answered = await Promise.race([
        handle.result().then(
          (result) => ({ result }),
          (error: unknown) => ({ error }),
        ),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), answerWithinMs).unref()),
      ]);
      if (answered === null || 'result' in answered) return answered;
      throw outcomeUnknown(answered.error);
    };
    const query: WorkflowCalls['query'] = (request, workflowId, definition) =>
      withDeadline(request, workflowId, () =>
        options.temporalClient.workflow.getHandle(workflowId).query(definition),
      );
    app.decorate('workflowCalls', {
      client: options.temporalClient,
      start: { taskQueue: options.taskQueue },
      answerWithinMs,
      withDeadline,
      query,
      sendUpdate,
    } satisfies WorkflowCalls);
  },
  { name: 'command-api-workflow-calls' },
);
