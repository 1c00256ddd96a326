import type { CheckApplicationView } from '../../workflows/check-deposit.js';

// A command's outcome as the HTTP answer the caller gets: what the service did, or its refusal with the
// service's own status and code, so `booksync deposit apply` can say at the terminal what happened.

export interface CommandAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** Service refusals passed through as they are (spec 4.1 rules: 400; 403, 404, 409 with their codes). */
const passedThrough = new Set([400, 403, 404, 409, 422]);

export function applicationAnswer(
  workflowId: string,
  application: CheckApplicationView,
  outcomeUrl: string,
): CommandAnswer {
  const { commandId } = application;
  if (application.status === 'APPLYING') {
    return { status: 202, body: { workflowId, commandId, status: 'PENDING', outcome: outcomeUrl } };
  }
  if (application.status === 'FAILED') {
    const status =
      application.httpStatus && passedThrough.has(application.httpStatus) ? application.httpStatus : 502;
    return {
      status,
      body: {
        error: application.error ?? 'the service refused the application',
        code: application.errorCode ?? application.errorType ?? 'refused',
        workflowId,
        commandId,
      },
    };
  }
  return { status: 201, body: { workflowId, commandId, application } };
}
