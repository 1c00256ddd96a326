import type { CheckApplicationView, VoidCommandView } from '../flows/check-deposit/contract.js';
import type { CommandFailure } from '../flows/in-workflow/command-failure.js';
import type { LinkCommandAnswer, LinkCommandResult } from '../flows/payment-link/contract.js';

// A command's outcome as the HTTP answer the caller gets: what the service did, or its refusal with the
// service's own status and code, so `booksync deposit apply` can say at the terminal what happened.

export interface CommandAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** Service refusals passed through as they are (spec 4.1 rules: 400; 403, 404, 409 with their codes). */
const passedThrough = new Set([400, 403, 404, 409, 422]);

/** Refusals booksync itself makes (no service status). */
const ownRefusals: Record<string, number> = { UnknownApplication: 404 };

/** Still being worked on: where to ask for the outcome. */
export function pendingAnswer(workflowId: string, commandId: string, outcomeUrl: string): CommandAnswer {
  return { status: 202, body: { workflowId, commandId, status: 'PENDING', outcome: outcomeUrl } };
}

function refusal(workflowId: string, commandId: string, failure: Partial<CommandFailure>): CommandAnswer {
  const status =
    failure.httpStatus && passedThrough.has(failure.httpStatus)
      ? failure.httpStatus
      : (ownRefusals[failure.errorType ?? ''] ?? 502);
  return {
    status,
    body: {
      error: failure.error ?? 'the service refused the command',
      code: failure.errorCode ?? failure.errorType ?? 'refused',
      workflowId,
      commandId,
    },
  };
}

export function applicationAnswer(
  workflowId: string,
  application: CheckApplicationView,
  outcomeUrl: string,
): CommandAnswer {
  const { commandId } = application;
  if (application.status === 'APPLYING') return pendingAnswer(workflowId, commandId, outcomeUrl);
  if (application.status === 'FAILED') return refusal(workflowId, commandId, application);
  return { status: 201, body: { workflowId, commandId, application } };
}

export function voidAnswer(workflowId: string, record: VoidCommandView): CommandAnswer {
  if (record.status === 'FAILED') return refusal(workflowId, record.commandId, record);
  return { status: 200, body: { workflowId, commandId: record.commandId, void: record } };
}

export function linkCommandAnswer(
  workflowId: string,
  result: LinkCommandResult,
  link: LinkCommandAnswer['link'] | null,
): CommandAnswer {
  if (result.status === 'FAILED') return refusal(workflowId, result.commandId, result);
  const remainderCents =
    link?.requestedAmountCents != null && link.completedAmountCents != null
      ? link.requestedAmountCents - link.completedAmountCents
      : null;
  return {
    status: result.kind.startsWith('record') ? 201 : 200,
    body: {
      workflowId,
      commandId: result.commandId,
      result,
      ...(link ? { link: { ...link, remainderCents } } : {}),
    },
  };
}
