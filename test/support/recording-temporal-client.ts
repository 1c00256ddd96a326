import type { Client } from '@temporalio/client';

// A stand-in for the Temporal client the ingress is given (IngressOptions.temporalClient), for tests that
// drive the real ingress app through `app.inject` without a Temporal server. It implements only what the
// ingress's signalling paths use, each member typed after the real Client's: connection.withDeadline around
// workflow.signalWithStart. Every signalWithStart is recorded instead of sent. Anything else the ingress
// might call (getHandle, startUpdateWithStart, the readiness probe's workflowService) is absent, so a route
// that starts using it fails its test loudly instead of passing on a fake answer.

type SignalWithStart = Client['workflow']['signalWithStart'];
type SignalWithStartOptions = Parameters<SignalWithStart>[1];

/** One signalWithStart the ingress made, in plain values. */
export interface RecordedSignalWithStart {
  /** The workflow type: the name given, or the workflow function's name. */
  workflowType: string;
  workflowId: string;
  taskQueue: string;
  args: unknown[];
  /** The signal's name (a SignalDefinition's name, or the string given). */
  signal: string;
  signalArgs: unknown[];
  /** The deadline (epoch ms) of the withDeadline the call ran inside; undefined when it ran outside one. */
  deadline: number | undefined;
}

/** The part of Client the ingress's signalling uses, typed after the real members. */
interface SignallingSurface {
  connection: Pick<Client['connection'], 'withDeadline'>;
  workflow: {
    signalWithStart(
      workflowTypeOrFunc: Parameters<SignalWithStart>[0],
      options: SignalWithStartOptions,
    ): Promise<{ workflowId: string; signaledRunId: string }>;
  };
}

export interface RecordingTemporalClient {
  /** What to hand to createIngress as temporalClient. */
  client: Client;
  /** Every signalWithStart, in call order. */
  calls: RecordedSignalWithStart[];
  /** Makes the next signalWithStart calls reject with `error` (Temporal unavailable, a refusal...). */
  failWith(error: unknown): void;
}

export function recordingTemporalClient(): RecordingTemporalClient {
  const calls: RecordedSignalWithStart[] = [];
  let failure: { error: unknown } | undefined;
  let currentDeadline: number | undefined;

  const surface: SignallingSurface = {
    connection: {
      async withDeadline<R>(deadline: number | Date, fn: () => Promise<R>): Promise<R> {
        const outer = currentDeadline;
        currentDeadline = typeof deadline === 'number' ? deadline : deadline.getTime();
        try {
          return await fn();
        } finally {
          currentDeadline = outer;
        }
      },
    },
    workflow: {
      async signalWithStart(workflowTypeOrFunc, options) {
        calls.push({
          workflowType: typeof workflowTypeOrFunc === 'string' ? workflowTypeOrFunc : workflowTypeOrFunc.name,
          workflowId: options.workflowId,
          taskQueue: options.taskQueue,
          args: [...(options.args ?? [])],
          signal: typeof options.signal === 'string' ? options.signal : options.signal.name,
          signalArgs: [...(options.signalArgs ?? [])],
          deadline: currentDeadline,
        });
        if (failure) throw failure.error;
        return { workflowId: options.workflowId, signaledRunId: `run-${calls.length}` };
      },
    },
  };

  return {
    // The one cast: the ingress takes a whole Client, of which this implements the signalling surface.
    client: surface as unknown as Client,
    calls,
    failWith(error) {
      failure = { error };
    },
  };
}
