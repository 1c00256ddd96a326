import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { FastifyBaseLogger } from 'fastify';
import { IngressError } from '../ingress/errors.js';
import { invalidArgumentDetails } from '../ingress/temporal-signal.js';

// What a Temporal call's failure tells the command API's caller, in one place: the ingress's error handler
// turns each IngressError into `{error, code}` with its status.

/** A call that did not reach its workflow: no such run (404), refused by Temporal (400), or unreachable (503). */
export function callFailure(err: unknown, workflowId: string, log: FastifyBaseLogger): IngressError {
  if (err instanceof IngressError) return err;
  if (err instanceof WorkflowNotFoundError) {
    return new IngressError(404, 'not_found', `no workflow ${workflowId}`);
  }
  const refused = invalidArgumentDetails(err);
  if (refused !== undefined) {
    return new IngressError(400, 'rejected_by_temporal', `Temporal refused the command: ${refused}`);
  }
  log.error({ err, workflowId }, 'Temporal did not accept the command');
  return new IngressError(503, 'temporal_unavailable', 'could not hand the command to Temporal; retry later');
}

/** An Update the workflow's validator refused: a 400, and nothing was written to the workflow's history. */
export function updateRejected(error: unknown): unknown {
  if (error instanceof WorkflowUpdateFailedError) {
    return new IngressError(400, 'invalid_request', error.cause?.message ?? error.message);
  }
  return error;
}

/** An accepted Update whose handler failed: whether the command took effect is not known (409). */
export function outcomeUnknown(error: unknown): IngressError {
  const cause = error instanceof WorkflowUpdateFailedError ? error.cause : error;
  return new IngressError(409, 'command_outcome_unknown', (cause as Error | undefined)?.message ?? 'unknown');
}
