import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';

// What the push workflow's LastError search attribute says: a reason code and, for a refusal, the entry's key
// (e.g. `TARGET_UNAVAILABLE`, `FAILED payment:pay_123`, `CONNECTION_LOST`). A search attribute is stored in
// plain, outside the payload codec, and a target's text (its refusal, its outage answer) may quote a customer
// or an invoice: the text stays in the run's query view, the target index and the encoded activity results.

/** The codes of the failure types the push activity ends with (src/flows/push/attempt.ts). */
const codes: Record<string, string> = {
  TargetUnavailableError: 'TARGET_UNAVAILABLE',
  TargetDisconnectedError: 'CONNECTION_LOST',
  NoTargetError: 'NO_TARGET',
  PushLeaseLostError: 'PUSH_LEASE_LOST',
  ServiceError: 'SERVICE_UNAVAILABLE',
};

/** The reason code of a push's failure: the activity's failure type, never its message. */
export function failureCode(error: unknown): string {
  if (!(error instanceof ActivityFailure)) return 'WORKFLOW_ERROR';
  const cause = error.cause;
  if (cause instanceof TimeoutFailure) return 'ACTIVITY_TIMEOUT';
  if (cause instanceof ApplicationFailure && cause.type) {
    return (
      codes[cause.type] ??
      cause.type
        .replace(/Error$/, '')
        .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
        .toUpperCase()
    );
  }
  return 'ACTIVITY_FAILED';
}

/** LastError of a push: its failure's code, else its last refused entry, else the target's warning's code. */
export function pushLastError(
  failure: string | null,
  refused: { count: number; key: string | undefined },
  warning: string | null | undefined,
): string | null {
  if (failure !== null) return failure;
  if (refused.count > 0 && refused.key) return `FAILED ${refused.key}`;
  return warning ? 'TARGET_WARNING' : null;
}
