import type { ChildProcess } from 'node:child_process';
import { freePort } from '../free-port.js';
import { waitFor } from '../wait-for.js';
import { killGroup, spawnBooksync } from './booksync-child.js';
import type { Closer } from './closer.js';
import type { LogCapture } from './log-capture.js';

export interface ProcessWorkerChoice {
  /** Extra environment of the worker process. */
  env?: Record<string, string>;
}

export interface WorkerProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  healthUrl: string;
}

export interface ProcessWorkerPart {
  /** The worker process now (null once killed). */
  readonly current: WorkerProcess | null;
  /** How many worker processes were started. */
  readonly starts: number;
  /** Starts a worker process and waits until its /readyz answers 200 (workflow bundle built, polling). */
  start(timeoutMs?: number): Promise<WorkerProcess>;
  /** A signal to the worker's process group (SIGKILL: no drain, activities cut mid-flight); waits for its exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** The worker's settings, as `booksync worker` reads them (the CLI run beside it takes them too). */
  environment(metricsPort: number): Record<string, string>;
}

/** booksync's worker as `node bin/booksync.js worker`, its every log line captured. */
export async function startProcessWorker(
  choice: ProcessWorkerChoice,
  context: {
    dir: string;
    closing: Closer;
    logs: LogCapture;
    temporalAddress: string;
    temporalNamespace: string;
    taskQueue: string;
    serviceUrl: string;
    apiKey: string;
    ledgerPath: string;
  },
): Promise<ProcessWorkerPart> {
  const { logs } = context;
  let current: WorkerProcess | null = null;
  let starts = 0;
  const environment = (metricsPort: number): Record<string, string> => ({
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    ...(process.env.TEMPORAL_CLI_PATH ? { TEMPORAL_CLI_PATH: process.env.TEMPORAL_CLI_PATH } : {}),
    BOOKSYNC_DATA_DIR: context.dir,
    TEMPORAL_ADDRESS: context.temporalAddress,
    TEMPORAL_NAMESPACE: context.temporalNamespace,
    TEMPORAL_TASK_QUEUE: context.taskQueue,
    SERVICE_BASE_URL: context.serviceUrl,
    SERVICE_API_KEY: context.apiKey,
    LEDGER_DB: context.ledgerPath,
    METRICS_PORT: String(metricsPort),
    LOG_LEVEL: 'debug',
    LOG_FORMAT: 'json',
    // A worker these tests kill mid-push leaves its marks in flight: the next attempt waits 5 s for that
    // write, not production's 90 s.
    PUSH_IN_FLIGHT_WAIT_SECONDS: '5',
    // Seconds, not production's minute: an outage test waits for the outage, not for the next attempt.
    PUSH_POLL_INTERVAL: '5s',
    PUSH_RETRY_MAX_INTERVAL: '5s',
    // A worker killed mid-push is resumed 10 s later, not production's minute.
    PUSH_HEARTBEAT_TIMEOUT: '10s',
    // The hourly reconciliation Schedule fires at the top of an hour: a test running across one had the
    // emulator's seeded links booked (found by reconciliation, no event tells of them) beside what it
    // expects. The tests that are about reconciliation run it themselves.
    RECONCILE_INTERVAL: '3650d',
    ...choice.env,
  });
  const start = async (timeoutMs = 180_000) => {
    const metricsPort = await freePort();
    const n = ++starts;
    const source = `worker#${n}`;
    const child = spawnBooksync(['worker'], environment(metricsPort));
    child.stdout?.pipe(logs.stream(source));
    child.stderr?.pipe(logs.stream(`${source}:stderr`));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const worker: WorkerProcess = { child, exited, healthUrl: `http://127.0.0.1:${metricsPort}` };
    current = worker;
    let gone = false;
    void exited.then(() => {
      gone = true;
    });
    await waitFor(
      `worker #${n} ready`,
      async () => {
        if (gone) throw new Error(`worker #${n} exited with ${child.exitCode}:\n${logs.tail(source)}`);
        const response = await fetch(`${worker.healthUrl}/readyz`).catch(() => null);
        return response?.status === 200;
      },
      timeoutMs,
      250,
    ).catch((error) => {
      if (gone) throw error;
      throw new Error(`${String(error)}\n${logs.tail(source)}`);
    });
    return worker;
  };
  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    const worker = current;
    if (!worker || worker.child.exitCode !== null || worker.child.signalCode !== null) return;
    killGroup(worker.child, signal);
    await worker.exited;
    current = null;
  };
  context.closing.push(() => kill('SIGKILL'));
  await start();
  return {
    get current() {
      return current;
    },
    get starts() {
      return starts;
    },
    start,
    kill,
    environment,
  };
}
