import type { SandboxEvent } from '@booksync/emulator/sandbox-client';
import { type BooksSnapshot, booksOf } from './books-snapshot.js';
import { runBooksync } from './booksync-cli.js';
import { LogCapture } from './stack/log-capture.js';
import { allEvents, busyWorkflows, routedWorkflows } from './stack/quiet.js';
import { type Stack, startStack } from './stack/stack.js';
import type { WorkerProcess } from './stack/worker-process.js';
import { waitFor } from './wait-for.js';

// booksync's worker as a real OS process (`booksync worker`, its own process group) for crash and outage
// tests, a preset of the composed stack (stack/stack.ts): the Temporal CLI's dev server as its own process
// (SQLite file, restartable on the same port and file), the emulator (direct deliveries) and the ingress in
// the test process, every log line of every part captured (pino JSON) so tests can grep them.

export interface ProcessStackOptions {
  /** Waits between the emulator's delivery attempts (default 200/400/800/1600 ms). 5 attempts in all. */
  backoffMs?: readonly number[];
  /** Ingress signal timeout (default the ingress's 5 s). */
  signalTimeoutMs?: number;
  commandApiKey?: string;
  /** Extra environment of the worker process. */
  workerEnv?: Record<string, string>;
}

export class ProcessStack {
  readonly dir: string;
  readonly taskQueue: string;
  readonly ledgerPath: string;
  readonly adminToken: string;
  readonly emulatorUrl: string;
  readonly apiKey: string;
  readonly ingressUrl: string;
  readonly webhookSecret: string;
  readonly subscriptionId: string;

  private readonly stack: Stack;
  readonly logs: LogCapture;
  private constructor(stack: Stack, logs: LogCapture) {
    this.stack = stack;
    this.logs = logs;
    const emulator = stack.emulator!;
    const subscription = stack.ingress!.subscription!;
    this.dir = stack.dir;
    this.taskQueue = stack.taskQueue;
    this.ledgerPath = stack.ledger!.path;
    this.adminToken = emulator.adminToken;
    this.emulatorUrl = emulator.serviceUrl;
    this.apiKey = emulator.apiKey;
    this.ingressUrl = stack.ingress!.url;
    this.webhookSecret = subscription.secret;
    this.subscriptionId = subscription.id;
  }

  static async start(options: ProcessStackOptions = {}): Promise<ProcessStack> {
    const logs = new LogCapture();
    const stack = await startStack({
      name: 'proc',
      logs,
      temporal: 'process',
      emulator: {
        adminToken: `admin-${Math.random().toString(36).slice(2)}-token-xyz`,
        dispatch: 'direct',
        ...(options.backoffMs ? { backoffMs: options.backoffMs } : {}),
        onDisk: true,
        serviceTimeoutMs: 20_000,
        closeWithinMs: 5_000,
      },
      ledger: 'sqlite',
      worker: { run: 'process', ...(options.workerEnv ? { env: options.workerEnv } : {}) },
      ingress: {
        ...(options.commandApiKey ? { commandApiKey: options.commandApiKey } : {}),
        ...(options.signalTimeoutMs ? { signalTimeoutMs: options.signalTimeoutMs } : {}),
      },
      taskQueuePrefix: 'reliability',
    });
    return new ProcessStack(stack, logs);
  }

  get client() {
    return this.stack.temporal.client;
  }
  get service() {
    return this.stack.emulator!.service;
  }
  get sandbox() {
    return this.stack.emulator!.sandbox;
  }
  /** The worker process now (null once killed). */
  get worker(): WorkerProcess | null {
    return this.stack.workerProcess!.current;
  }
  get workerStarts(): number {
    return this.stack.workerProcess!.starts;
  }

  /** The Temporal dev server down / back on the same port and SQLite file. */
  stopTemporal(): Promise<void> {
    return this.stack.temporal.stop();
  }
  startTemporal(): Promise<void> {
    return this.stack.temporal.start();
  }

  /** Starts a worker process and waits until its /readyz answers 200. */
  startWorker(timeoutMs?: number): Promise<WorkerProcess> {
    return this.stack.workerProcess!.start(timeoutMs);
  }
  /** SIGKILL to the worker's process group: no drain, no goodbye, activities cut mid-flight. */
  killWorker(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    return this.stack.workerProcess!.kill(signal);
  }

  /** `node bin/booksync.js <args>` against this stack; resolves with the exit code and output. */
  async runCli(args: string[], env: Record<string, string> = {}, timeoutMs = 300_000) {
    const run = await runBooksync(args, {
      env: { ...this.stack.workerProcess!.environment(0), LOG_LEVEL: 'warn', ...env },
      detached: true,
      timeoutMs,
    });
    this.logs.lines.push(...`${run.stdout}\n${run.stderr}`.split('\n').map((l) => `cli ${l}`));
    return run;
  }

  // ---- reading the world -------------------------------------------------------------------------------

  events(): Promise<SandboxEvent[]> {
    return allEvents(this.sandbox);
  }

  /** The ledger file the worker writes, opened read-side in the test process. */
  books(): Promise<BooksSnapshot> {
    return booksOf(this.stack.ledger!.open());
  }

  async entryCount(): Promise<number> {
    return Object.keys((await this.books()).entries).length;
  }

  /** The workflows the emulator's events route to. */
  async workflowIds(): Promise<string[]> {
    return routedWorkflows(await this.events());
  }

  /** How many of `ids` have an activity or a workflow task under way right now. */
  busyWorkflows(ids: readonly string[]): Promise<number> {
    return busyWorkflows(this.client, ids);
  }

  /**
   * Waits until every event was acknowledged by the ingress (or, with `allowUndelivered`, spent its
   * attempts) and no routed workflow has work under way.
   */
  async waitForQuiet(timeoutMs = 300_000, options: { allowUndelivered?: boolean } = {}): Promise<void> {
    await waitFor(
      'deliveries settled and workflows idle',
      async () => {
        const log = await this.events();
        for (const entry of log) {
          const mine = entry.attempts.filter((a) => a.subscriptionId === this.subscriptionId);
          const acked = mine.some((a) => a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300);
          if (acked) continue;
          if (options.allowUndelivered && mine.length >= 5) continue;
          return false;
        }
        return (await this.busyWorkflows(routedWorkflows(log))) === 0;
      },
      timeoutMs,
      1_000,
    );
  }

  /** Every part, the ingress first; whatever fails to stop, the rest still stops. */
  async stop(): Promise<void> {
    await this.stack.close().catch(() => undefined);
  }
}
