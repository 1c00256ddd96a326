import { type ChildProcess, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { SandboxClient, type SandboxEvent } from '../../src/emulator/sandbox-client.js';
import type { Emulator } from '../../src/emulator/server.js';
import type { Store } from '../../src/emulator/store/store.js';
import { DirectHttpDispatcher } from '../../src/emulator/webhooks/direct-http-dispatcher.js';
import { type RunningIngress, startIngress } from '../../src/ingress/main.js';
import { routeEvent } from '../../src/ingress/routing.js';
import type { AccountName } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { createLogger, type Logger } from '../../src/logging/logger.js';
import { type RunningDevServer, startDevServer } from '../../src/runtime/dev-server.js';
import { ServiceClient } from '../../src/service/client.js';
import type { TargetSummary } from '../../src/targets/target-index.js';
import { type CliRun, runBooksync } from './booksync-cli.js';
import { type BooksSnapshot, snapshotOf, waitFor } from './e2e-stack.js';
import { freePort } from './free-port.js';
import { type InProcessEmulator, startInProcessEmulator } from './in-process-stack.js';
import { redeliverEverything } from './webhook-redelivery.js';

// booksync as real OS processes on loopback, each `node bin/booksync.js <command>` in its own process group
// (so a signal to the group takes it and its children down at once), in two shapes:
// - ProcessStack, for crash and outage tests: the Temporal CLI's dev server (its own process, SQLite file,
//   restartable on the same port and file), booksync's worker as `booksync worker`, and the emulator and the
//   ingress in the test process (the emulator's deliveries by DirectHttpDispatcher). Every log line of every
//   part is captured (pino JSON) so tests can grep them.
// - BooksyncProcess, for the end-to-end tests of the accounting targets: the real `booksync start` as a
//   business runs it, on free loopback ports and a fresh data folder, plus the CLI run beside it with the
//   same environment.

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = path.join(root, 'bin', 'booksync.js');

/** `node bin/booksync.js <args>` in its own process group, its output piped. */
function spawnBooksync(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [bin, ...args], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
}

/** A signal to the child's whole process group; nothing when it is gone already. */
/**
 * Kills every process whose command line names `dir`: the Temporal dev server `booksync start` runs in a
 * process group of its own (`--db-filename <dir>/temporal.db`), so a start killed by SIGKILL (a failpoint,
 * the tests' own kill) leaves it running. Left, it holds the port: the next start's server exits at once and
 * that start works against the orphan until it dies mid-test ("tcp connect error", CI).
 */
function killLeftoversOf(dir: string): void {
  if (!dir || !existsSync('/proc')) return;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    if (Number(pid) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmdline.includes(dir)) process.kill(Number(pid), 'SIGKILL');
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (!child.pid) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

export { freePort } from './free-port.js';

/** Collects pino JSON lines in memory. */
export class LogCapture {
  readonly lines: string[] = [];
  stream(source: string): Writable {
    return new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        for (const line of chunk.toString().split('\n'))
          if (line.trim()) this.lines.push(`${source} ${line}`);
        done();
      },
    });
  }
  logger(source: string, level = 'debug'): Logger {
    return createLogger({ level, format: 'json', name: source }, this.stream(source));
  }
  text(): string {
    return this.lines.join('\n');
  }
}

export interface ProcessStackOptions {
  /** Waits between the emulator's delivery attempts (default 200/400/800/1600 ms). 5 attempts in all. */
  backoffMs?: readonly number[];
  /** Ingress signal timeout (default the ingress's 5 s). */
  signalTimeoutMs?: number;
  commandApiKey?: string;
  /** Extra environment of the worker process. */
  workerEnv?: Record<string, string>;
}

export interface WorkerProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  healthUrl: string;
}

export class ProcessStack {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'booksync-proc-'));
  readonly logs = new LogCapture();
  readonly taskQueue = `reliability-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  readonly ledgerPath = path.join(this.dir, 'books.db');
  readonly temporalDb = path.join(this.dir, 'temporal.db');
  readonly adminToken = `admin-${Math.random().toString(36).slice(2)}-token-xyz`;
  temporalPort = 0;
  temporalAddress = '';
  devServer: RunningDevServer | null = null;
  connection: Connection | null = null;
  client!: Client;
  emulator!: Emulator;
  store!: Store;
  emulatorUrl = '';
  apiKey = '';
  service!: ServiceClient;
  sandbox!: SandboxClient;
  ingress: RunningIngress | null = null;
  ingressUrl = '';
  webhookSecret = '';
  subscriptionId = '';
  worker: WorkerProcess | null = null;
  workerStarts = 0;
  private ledger: EmbeddedLedger | null = null;
  private emulatorSide: InProcessEmulator | null = null;

  constructor(readonly options: ProcessStackOptions = {}) {}

  static async start(options: ProcessStackOptions = {}): Promise<ProcessStack> {
    const stack = new ProcessStack(options);
    try {
      stack.temporalPort = await freePort();
      await stack.startTemporal();
      stack.connection = await Connection.connect({ address: stack.temporalAddress });
      stack.client = new Client({ connection: stack.connection });
      await stack.startEmulator();
      await stack.startIngress();
      await stack.startWorker();
    } catch (error) {
      await stack.stop();
      throw error;
    }
    return stack;
  }

  // ---- Temporal dev server (a process; restartable on the same port and SQLite file) ----------------

  async startTemporal(): Promise<void> {
    this.devServer = await startDevServer({
      dbFile: this.temporalDb,
      port: this.temporalPort,
      uiPort: await freePort(),
      namespace: 'default',
      logger: this.logs.logger('temporal-dev-server', 'warn'),
    });
    this.temporalAddress = this.devServer.address;
  }

  async stopTemporal(): Promise<void> {
    await this.devServer?.stop();
    this.devServer = null;
  }

  // ---- emulator (in process) ---------------------------------------------------------------------------

  private async startEmulator(): Promise<void> {
    this.emulatorSide = await startInProcessEmulator({
      dbPath: path.join(this.dir, 'emulator.db'),
      adminToken: this.adminToken,
      logger: this.logs.logger('emulator'),
      serviceTimeoutMs: 20_000,
      serviceLogger: this.logs.logger('test-service-client'),
      dispatcher: (store) =>
        new DirectHttpDispatcher({ store, backoffMs: this.options.backoffMs ?? [200, 400, 800, 1_600] }),
    });
    this.emulator = this.emulatorSide.emulator;
    this.store = this.emulator.store;
    this.apiKey = this.emulatorSide.apiKey;
    this.emulatorUrl = this.emulatorSide.serviceUrl;
    this.service = this.emulatorSide.service;
    this.sandbox = new SandboxClient({
      baseUrl: this.emulatorUrl,
      apiKey: this.apiKey,
      adminToken: this.adminToken,
    });
  }

  // ---- ingress (in process, signals through the test's Temporal client) ------------------------------

  private async startIngress(): Promise<void> {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/webhooks/service`;
    const subscription = await this.service.createWebhook({ url });
    if (!subscription.secret) throw new Error('unsigned subscription');
    this.webhookSecret = subscription.secret;
    this.subscriptionId = subscription.id;
    this.ingress = await startIngress({
      host: '127.0.0.1',
      port,
      temporal: { client: this.client },
      taskQueue: this.taskQueue,
      webhookSecrets: [this.webhookSecret],
      ...(this.options.commandApiKey ? { commandApiKey: this.options.commandApiKey } : {}),
      ...(this.options.signalTimeoutMs ? { signalTimeoutMs: this.options.signalTimeoutMs } : {}),
      logger: this.logs.logger('ingress'),
    });
    this.ingressUrl = this.ingress.address;
  }

  // ---- worker (`node bin/booksync.js worker`, its own process group) ---------------------------------

  workerEnvironment(metricsPort: number): Record<string, string> {
    return {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...(process.env.TEMPORAL_CLI_PATH ? { TEMPORAL_CLI_PATH: process.env.TEMPORAL_CLI_PATH } : {}),
      BOOKSYNC_DATA_DIR: this.dir,
      TEMPORAL_ADDRESS: this.temporalAddress,
      TEMPORAL_TASK_QUEUE: this.taskQueue,
      SERVICE_BASE_URL: this.emulatorUrl,
      SERVICE_API_KEY: this.apiKey,
      LEDGER_DB: this.ledgerPath,
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'json',
      // A worker these tests kill mid-push leaves its marks in flight: the next attempt waits 5 s for that
      // write, not production's 90 s.
      PUSH_IN_FLIGHT_WAIT_SECONDS: '5',
      ...this.options.workerEnv,
    };
  }

  /** Starts a worker process and waits until its /readyz answers 200 (workflow bundle built, polling). */
  async startWorker(timeoutMs = 180_000): Promise<WorkerProcess> {
    const metricsPort = await freePort();
    const n = ++this.workerStarts;
    const child = spawnBooksync(['worker'], this.workerEnvironment(metricsPort));
    child.stdout?.pipe(this.logs.stream(`worker#${n}`));
    child.stderr?.pipe(this.logs.stream(`worker#${n}:stderr`));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const worker: WorkerProcess = { child, exited, healthUrl: `http://127.0.0.1:${metricsPort}` };
    this.worker = worker;
    let gone = false;
    void exited.then(() => {
      gone = true;
    });
    await waitFor(
      `worker #${n} ready`,
      async () => {
        if (gone) throw new Error(`worker #${n} exited with ${child.exitCode}:\n${this.tail(`worker#${n}`)}`);
        const response = await fetch(`${worker.healthUrl}/readyz`).catch(() => null);
        return response?.status === 200;
      },
      timeoutMs,
      250,
    ).catch((error) => {
      if (gone) throw error;
      throw new Error(`${String(error)}\n${this.tail(`worker#${n}`)}`);
    });
    return worker;
  }

  /** SIGKILL to the worker's process group: no drain, no goodbye, activities cut mid-flight. */
  async killWorker(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const worker = this.worker;
    if (!worker || worker.child.exitCode !== null || worker.child.signalCode !== null) return;
    killGroup(worker.child, signal);
    await worker.exited;
    this.worker = null;
  }

  tail(source: string, n = 30): string {
    return this.logs.lines
      .filter((l) => l.startsWith(`${source} `))
      .slice(-n)
      .join('\n');
  }

  /** `node bin/booksync.js <args>` against this stack; resolves with the exit code and output. */
  async runCli(args: string[], env: Record<string, string> = {}, timeoutMs = 300_000) {
    const run = await runBooksync(args, {
      env: { ...this.workerEnvironment(0), LOG_LEVEL: 'warn', ...env },
      detached: true,
      timeoutMs,
    });
    this.logs.lines.push(...`${run.stdout}\n${run.stderr}`.split('\n').map((l) => `cli ${l}`));
    return run;
  }

  // ---- reading the world -------------------------------------------------------------------------------

  async events(): Promise<SandboxEvent[]> {
    const all: SandboxEvent[] = [];
    for (let page = 1; ; page++) {
      const response = await fetch(`${this.emulatorUrl}/sandbox/events?page=${page}&pageSize=100`, {
        headers: { authorization: `Bearer ${this.apiKey}` },
      });
      const { events, totalResults } = (await response.json()) as {
        events: SandboxEvent[];
        totalResults: number;
      };
      all.push(...events);
      if (events.length === 0 || all.length >= totalResults) return all;
    }
  }

  /** The ledger file the worker writes, opened read-side in the test process. */
  books(): Promise<BooksSnapshot> {
    this.ledger ??= EmbeddedLedger.open({ path: this.ledgerPath });
    const ledger = this.ledger;
    return (async () => {
      const balances: Partial<Record<AccountName, number>> = {};
      for (const b of await ledger.balances()) balances[b.account] = b.balanceCents;
      return snapshotOf(await ledger.allEntries(), balances);
    })();
  }

  async entryCount(): Promise<number> {
    return Object.keys((await this.books()).entries).length;
  }

  /** The workflows the emulator's events route to. */
  async workflowIds(): Promise<string[]> {
    const log = await this.events();
    return [
      ...new Set(
        log.flatMap((e) => routeEvent(e.event.category, e.event.associated_object_id)?.workflowId ?? []),
      ),
    ];
  }

  /** How many of `ids` have an activity or a workflow task under way right now. */
  async busyWorkflows(ids: readonly string[]): Promise<number> {
    let busy = 0;
    for (let i = 0; i < ids.length; i += 20) {
      const described = await Promise.all(
        ids.slice(i, i + 20).map((id) =>
          this.client.workflow
            .getHandle(id)
            .describe()
            .catch((error) => {
              if (error instanceof WorkflowNotFoundError) return null;
              throw error;
            }),
        ),
      );
      for (const d of described) {
        if (!d) continue;
        if (d.status.name !== 'RUNNING') continue;
        if ((d.raw.pendingActivities ?? []).length > 0 || d.raw.pendingWorkflowTask) busy++;
      }
    }
    return busy;
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
        const ids = [
          ...new Set(
            log.flatMap((e) => routeEvent(e.event.category, e.event.associated_object_id)?.workflowId ?? []),
          ),
        ];
        return (await this.busyWorkflows(ids)) === 0;
      },
      timeoutMs,
      1_000,
    );
  }

  // ---- stopping ----------------------------------------------------------------------------------------

  async stop(): Promise<void> {
    const attempt = async (what: () => Promise<unknown> | unknown) => {
      try {
        await what();
      } catch {
        // keep stopping the rest
      }
    };
    await attempt(() => this.ingress?.close());
    await attempt(() => this.killWorker('SIGKILL'));
    await attempt(() => this.emulatorSide?.close({ deliveriesWithinMs: 5_000 }));
    await attempt(() => this.ledger?.close());
    await attempt(() => this.connection?.close());
    await attempt(() => this.stopTemporal());
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export class BooksyncProcess {
  env: NodeJS.ProcessEnv = {};
  dataDir = '';
  output = '';
  private stack: ChildProcess | null = null;

  /** A data folder and ports of its own; `env` is the target's settings. */
  async prepare(env: NodeJS.ProcessEnv): Promise<this> {
    this.dataDir = mkdtempSync(path.join(tmpdir(), 'booksync-e2e-'));
    this.env = {
      ...process.env,
      BOOKSYNC_DATA_DIR: this.dataDir,
      TEMPORAL_DEV_PORT: String(await freePort()),
      TEMPORAL_UI_PORT: String(await freePort()),
      EMULATOR_PORT: String(await freePort()),
      INGRESS_PORT: String(await freePort()),
      METRICS_PORT: String(await freePort()),
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      CI: '',
      // The demo's day only: these tests go on in its month (test/cli/readme-main-command.test.ts runs the
      // whole demo, its month closed, as a newcomer's `npm start` does).
      DEMO_CLOSES_MONTH: 'false',
      // A stack these tests kill mid-push leaves its marks in flight: the next attempt waits 5 s for that
      // write, not production's 90 s.
      PUSH_IN_FLIGHT_WAIT_SECONDS: '5',
      ...env,
    };
    return this;
  }

  /** `booksync start [args]` (e.g. --no-demo); with a failpoint it may kill itself, see `exited`. */
  start(extra: NodeJS.ProcessEnv = {}, args: readonly string[] = []): ChildProcess {
    const child = spawnBooksync(['start', ...args], { ...this.env, ...extra });
    const collect = (c: Buffer) => {
      this.output += c.toString();
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.stack = child;
    return child;
  }

  /** Waits for a start to be up (the marker `booksync start` prints once everything listens). */
  async running(from: number): Promise<void> {
    await this.untilOutput('booksync is running', from).catch(() => this.untilOutput('Temporal UI', from));
  }

  /** Waits for a self-killed start to die, then kills what it left (its dev server child). */
  async exited(child: ChildProcess): Promise<NodeJS.Signals | null> {
    const signal =
      child.exitCode !== null || child.signalCode !== null
        ? child.signalCode
        : await new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_c, s) => resolve(s)));
    killGroup(child, 'SIGKILL');
    killLeftoversOf(this.dataDir);
    await sleep(1_000);
    return signal;
  }

  /**
   * `booksync start` again after a crash, then `booksync reconcile --all`, as an operator would: deliveries the
   * killed stack never acknowledged may have spent the sender's five attempts while it was down (slow restarts
   * under load), and reconciliation books what they missed. Returns reconcile's exit code.
   */
  async restartAndReconcile(): Promise<number> {
    const from = this.output.length;
    this.start();
    await this.running(from);
    return (await this.cli(['reconcile', '--all'])).code;
  }

  async untilOutput(marker: string, from: number, ms = 400_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!this.output.slice(from).includes(marker)) {
      if (Date.now() > deadline) throw new Error(`no "${marker}" in time:\n${this.output.slice(-4000)}`);
      await sleep(250);
    }
  }

  /** The CLI, with this stack's settings. */
  cli(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<CliRun> {
    return runBooksync(args, { env: { ...this.env, ...extra } });
  }

  async targetStatus(): Promise<TargetSummary> {
    const { stdout } = await this.cli(['targets', 'status', '--json']);
    return (JSON.parse(stdout) as { targets: TargetSummary[] }).targets[0] as TargetSummary;
  }

  /** Until nothing is PENDING at the (first) target. */
  async untilPushed(ms = 300_000): Promise<TargetSummary> {
    const deadline = Date.now() + ms;
    for (;;) {
      const s = await this.targetStatus();
      if (s.pending === 0) return s;
      if (Date.now() > deadline) throw new Error(`still pending: ${JSON.stringify(s)}`);
      await sleep(1_000);
    }
  }

  private apiKey(): string {
    const file = path.join(this.dataDir, 'embedded-credentials.json');
    return (JSON.parse(readFileSync(file, 'utf8')) as { apiKey: string }).apiKey;
  }

  /** A client of the embedded emulator, as the business's own key. */
  service(): ServiceClient {
    return new ServiceClient({
      baseUrl: `http://127.0.0.1:${this.env.EMULATOR_PORT}`,
      apiKey: this.apiKey(),
    });
  }

  sandbox(): SandboxClient {
    return new SandboxClient({
      baseUrl: `http://127.0.0.1:${this.env.EMULATOR_PORT}`,
      apiKey: this.apiKey(),
    });
  }

  /**
   * Every event the service sent so far delivered again to the ingress, twice each, shuffled, signed as the
   * service signs them; returns how many were sent. Nothing new may come of them.
   */
  async redeliverEverythingTwice(seed: number): Promise<number> {
    const secret = (await this.service().listWebhooks()).webhooks.find((w) => w.secret)?.secret as string;
    return redeliverEverything({
      sandbox: this.sandbox(),
      ingressUrl: `http://127.0.0.1:${this.env.INGRESS_PORT}`,
      secret,
      times: 2,
      seed,
    });
  }

  /** Ctrl-C to the running stack (its data folder stays, for a start again); what is left is killed. */
  async halt(): Promise<void> {
    const stack = this.stack;
    if (stack?.pid && stack.exitCode === null && stack.signalCode === null) {
      const gone = new Promise((resolve) => stack.once('exit', resolve));
      killGroup(stack, 'SIGINT');
      // Ctrl-C drains the worker (up to its 20 s grace); on a loaded machine that is more than a few seconds.
      await Promise.race([gone, sleep(30_000)]);
    }
    if (stack) killGroup(stack, 'SIGKILL'); // whatever of the group is left
    killLeftoversOf(this.dataDir); // the dev server, in a group of its own
  }

  /** Stops the stack; its output is kept in test/.artifacts/<name>.log for a failure's post-mortem. */
  async stop(name: string): Promise<void> {
    await this.halt();
    mkdirSync('test/.artifacts', { recursive: true });
    writeFileSync(path.join('test/.artifacts', `${name}.log`), this.output);
    // A process of the group may still be closing its files for a moment after the signal.
    if (this.dataDir) rmSync(this.dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
}
