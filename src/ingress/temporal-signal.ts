import { type Client, isGrpcServiceError } from '@temporalio/client';
import { type ServiceEventSignal, serviceEventSignal } from '../flows/in-workflow/service-event.js';
import type { WorkflowRoute } from './routing.js';

/**
 * signalWithStart: starts the owning workflow if no run is open, and signals it. The signal is durable once
 * this resolves, which is when the sender may get its 2xx. A duplicate delivery signals again; workflows
 * drop it by eventId. The deadline bounds the client's own retries, so a Temporal outage answers 503 well
 * within the sender's per-attempt timeout instead of hanging.
 */
export async function signalServiceEvent(
  client: Client,
  taskQueue: string,
  route: WorkflowRoute,
  event: ServiceEventSignal,
  timeoutMs: number,
): Promise<void> {
  await client.connection.withDeadline(Date.now() + timeoutMs, () =>
    client.workflow.signalWithStart(route.workflowType, {
      workflowId: route.workflowId,
      taskQueue,
      args: route.args,
      signal: serviceEventSignal,
      signalArgs: [event],
    }),
  );
}

/** Readiness: Temporal's frontend answers within the deadline. Throws when it does not. */
export async function checkTemporal(client: Client, timeoutMs: number): Promise<void> {
  await client.connection.withDeadline(Date.now() + timeoutMs, () =>
    client.workflowService.getSystemInfo({}),
  );
}

// gRPC status INVALID_ARGUMENT (grpc-js is not a direct dependency, so its enum is not imported).
const GRPC_INVALID_ARGUMENT = 3;

/**
 * Temporal's INVALID_ARGUMENT (an id over its length limit, a malformed request): the same request will be
 * refused every time, so the caller is told 400, not 503. The client wraps the gRPC error in a cause chain.
 */
export function invalidArgumentDetails(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e !== undefined && depth < 5; depth++) {
    if (isGrpcServiceError(e)) {
      return e.code === GRPC_INVALID_ARGUMENT ? e.details || 'invalid argument' : undefined;
    }
    e = e instanceof Error ? e.cause : undefined;
  }
  return undefined;
}
