import { randomBytes, randomUUID } from 'node:crypto';
import { sign } from '@booksync/service-contract/webhook-signature';
import { serviceEventSignal } from '../src/flows/in-workflow/service-event.js';
import { startDevServer } from '../test/support/temporal.js';
import { startChild } from './child.js';
import { closedLoop, type LoadResult, openLoop } from './http-load.js';
import { onInterrupt } from './interrupt.js';
import { type ProcWindow, sampleProc } from './proc-stats.js';
import { ratio, type SecureSetup, secureGoals } from './secure.js';
import { type LatencySummary, summarize } from './stats.js';

// Stage 2: signed payment.made deliveries POSTed to the ingress (a child process, as `booksync ingress`
// runs), each for a new payment, so every one is a signalWithStart that starts a workflow on a real
// Temporal dev server. No worker polls the task queue: this measures intake, not processing. Against it, in
// the same run and on the same server: the bare Temporal client's signalWithStart at the same concurrency,
// i.e. what the ingress could at best hand over. And with `secure`, the same closed loop against a second
// ingress with encryption and tracing on (PAYLOAD_KEYS, OTEL_*) between two plain ones: acks/s on against off.

export interface IngressBenchOptions {
  durationMs: number;
  rates: number[];
  concurrency: number;
  profile?: string | undefined;
  progress: (line: string) => void;
  /** Encryption and tracing on for a second closed loop (bench/secure.ts); none: no such run. */
  secure?: SecureSetup | undefined;
}

/** The closed loop with payloads encrypted and every request traced, against the plain one. */
export interface SecureIngressResult {
  closedLoop: LoadResult;
  /** The plain ingress's closed loop again, right after. */
  offAgain: LoadResult;
  /** Acks/s on / the mean acks/s off (the stage's closedLoop and offAgain); the goal ≥ 0.9. */
  acksRatio: number;
  goal: number;
  /** Trace export requests the OTLP sink took during the run: tracing was on. */
  traceExports: number;
}

export interface BareSignalResult {
  concurrency: number;
  count: number;
  seconds: number;
  perSecond: number;
  latency: LatencySummary;
}

export interface IngressResult {
  openLoop: LoadResult[];
  closedLoop: LoadResult;
  ingressProcess: ProcWindow;
  bareSignalWithStart: BareSignalResult;
  /** Ingress closed-loop acknowledgements per second / bare signalWithStart per second. */
  ratio: number;
  secure?: SecureIngressResult;
}

export async function benchIngress(options: IngressBenchOptions): Promise<IngressResult> {
  const env = await startDevServer();
  const taskQueue = `bench-ingress-${process.pid}`;
  const secret = `whsec_${randomBytes(24).toString('base64url')}`;
  const run = randomBytes(3).toString('hex');
  let ingress: Awaited<ReturnType<typeof startChild<{ address: string }>>> | undefined;
  let secureIngress: typeof ingress;
  const forget = onInterrupt(async () => {
    await ingress?.stop();
    await secureIngress?.stop();
    await env.teardown();
  });
  try {
    ingress = await startChild<{ address: string }>(
      'ingress-server.ts',
      { temporalAddress: env.address, taskQueue, secrets: [secret] },
      { profile: options.profile },
    );
    const baseUrl = ingress.ready.address;
    let serial = 0;
    const delivery = () => {
      const body = JSON.stringify({
        id: randomUUID(),
        created_at: new Date().toISOString(),
        category: 'payment.made',
        associated_object_type: 'payment',
        associated_object_id: `pay_bench${run}${serial++}`,
        type: 'event',
      });
      return {
        method: 'POST' as const,
        path: '/webhooks/service',
        headers: {
          'content-type': 'application/json',
          'service-signature': sign(secret, body, Math.floor(Date.now() / 1000)),
        },
        body,
      };
    };

    // 2 s of warm-up (half a quick run's measured loops).
    const warmupMs = Math.min(2_000, options.durationMs / 2);
    options.progress(`ingress: warm-up (${options.concurrency} clients, ${warmupMs / 1000} s)`);
    await closedLoop({ baseUrl, make: delivery, durationMs: warmupMs, concurrency: options.concurrency });

    const open: LoadResult[] = [];
    for (const rate of options.rates) {
      options.progress(`ingress: open loop ${rate}/s for ${options.durationMs / 1000} s`);
      open.push(
        await openLoop({
          baseUrl,
          make: delivery,
          durationMs: options.durationMs,
          ratePerSecond: rate,
          maxInFlight: 256,
        }),
      );
    }

    options.progress(`ingress: closed loop, ${options.concurrency} clients, ${options.durationMs / 1000} s`);
    const sampler = sampleProc(ingress.pid);
    const closed = await closedLoop({
      baseUrl,
      make: delivery,
      durationMs: options.durationMs,
      concurrency: options.concurrency,
    });
    const ingressProcess = sampler.stop();

    let secure: SecureIngressResult | undefined;
    if (options.secure) {
      const exportsBefore = options.secure.exports();
      secureIngress = await startChild<{ address: string }>(
        'ingress-server.ts',
        { temporalAddress: env.address, taskQueue, secrets: [secret], secure: true },
        { env: options.secure.env },
      );
      const secureUrl = secureIngress.ready.address;
      options.progress(
        `ingress: encryption and tracing on: warm-up ${warmupMs / 1000} s, closed loop ${options.durationMs / 1000} s`,
      );
      await closedLoop({
        baseUrl: secureUrl,
        make: delivery,
        durationMs: warmupMs,
        concurrency: options.concurrency,
      });
      const on = await closedLoop({
        baseUrl: secureUrl,
        make: delivery,
        durationMs: options.durationMs,
        concurrency: options.concurrency,
      });
      await secureIngress.stop();
      secureIngress = undefined;
      // Off again right after: the ratio is against the mean of the runs before and after, so a machine
      // whose load changes meanwhile (other work, the server's growing history) does not tilt it.
      options.progress(
        `ingress: encryption and tracing off again, closed loop ${options.durationMs / 1000} s`,
      );
      const offAgain = await closedLoop({
        baseUrl,
        make: delivery,
        durationMs: options.durationMs,
        concurrency: options.concurrency,
      });
      secure = {
        closedLoop: on,
        offAgain,
        acksRatio: ratio(on.okPerSecond, (closed.okPerSecond + offAgain.okPerSecond) / 2),
        goal: secureGoals.ingressAcksRatioAtLeast,
        traceExports: options.secure.exports() - exportsBefore,
      };
    }

    options.progress(`ingress: bare client signalWithStart, ${options.concurrency} in flight`);
    const bare = await bareSignalWithStart(env.client, taskQueue, run, options);
    return {
      openLoop: open,
      closedLoop: closed,
      ingressProcess,
      bareSignalWithStart: bare,
      ratio: Math.round((closed.okPerSecond / bare.perSecond) * 1000) / 1000,
      ...(secure ? { secure } : {}),
    };
  } finally {
    forget();
    await ingress?.stop();
    await secureIngress?.stop();
    await env.teardown();
  }
}

async function bareSignalWithStart(
  client: Awaited<ReturnType<typeof startDevServer>>['client'],
  taskQueue: string,
  run: string,
  options: IngressBenchOptions,
): Promise<BareSignalResult> {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + options.durationMs;
  let serial = 0;
  const lane = async () => {
    while (performance.now() < deadline) {
      const objectId = `pay_bare${run}${serial++}`;
      const t0 = performance.now();
      await client.workflow.signalWithStart('payment', {
        workflowId: `payment-${objectId}`,
        taskQueue,
        args: [{ paymentId: objectId }],
        signal: serviceEventSignal,
        signalArgs: [
          {
            eventId: randomUUID(),
            category: 'payment.made',
            objectType: 'payment',
            objectId,
            createdAt: new Date().toISOString(),
          },
        ],
      });
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, lane));
  const seconds = (performance.now() - started) / 1000;
  return {
    concurrency: options.concurrency,
    count: latencies.length,
    seconds: Math.round(seconds * 100) / 100,
    perSecond: Math.round((latencies.length / seconds) * 10) / 10,
    latency: summarize(latencies),
  };
}
