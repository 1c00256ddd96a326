import type { ChildProcess } from 'node:child_process';
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
import { setTimeout as sleep } from 'node:timers/promises';
import { SandboxClient } from '@booksync/emulator/sandbox-client';
import { Client, Connection } from '@temporalio/client';
import { loadSettings } from '../../src/config/settings.js';
import type { TargetSummary } from '../../src/flows/push/target-index.js';
import { openLedgerStore } from '../../src/runtime/ledger-store.js';
import { ServiceClient } from '../../src/service/client.js';
import { type CliRun, runBooksync } from './booksync-cli.js';
import { freePort } from './free-port.js';
import { sharedDevServerNamespace } from './shared-temporal.js';
import { killGroup, spawnBooksync } from './stack/booksync-child.js';
import { waitFor } from './wait-for.js';
import { redeliverEverything } from './webhook-redelivery.js';

// The real `booksync start` as a business runs it, for the end-to-end tests of the accounting targets: on
// free loopback ports and a fresh data folder, its own process group, plus the CLI run beside it with the
// same environment. Unlike the composed stack (stack/stack.ts), booksync itself starts every part here but
// Temporal: by default it is given the test run's shared dev server (TEMPORAL_ADDRESS) and a namespace of
// its own there, as a business gives it the Temporal server it runs; `{ temporal: 'own' }` lets it start its
// embedded dev server, as `npm start` does (test/cli/readme-main-command.test.ts covers that way whole).

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

export interface PrepareOptions {
  /** 'shared' (default where the run's dev server is up): a namespace of its own there; 'own': its embedded dev server. */
  temporal?: 'shared' | 'own';
}

export class BooksyncProcess {
  env: NodeJS.ProcessEnv = {};
  /** The Temporal server and namespace this stack's workflows run in. */
  temporalAddress = '';
  namespace = 'default';
  dataDir = '';
  output = '';
  private stack: ChildProcess | null = null;

  /** A data folder and ports of its own; `env` is the target's settings. */
  async prepare(env: NodeJS.ProcessEnv, options: PrepareOptions = {}): Promise<this> {
    this.dataDir = mkdtempSync(path.join(tmpdir(), 'booksync-e2e-'));
    const shared = options.temporal === 'own' ? undefined : await sharedDevServerNamespace();
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
      // The push's own poll and its longest wait between attempts at an unreachable target: seconds, not
      // production's minute, so an outage test waits for the outage, not for the next attempt.
      PUSH_POLL_INTERVAL: '5s',
      PUSH_RETRY_MAX_INTERVAL: '5s',
      // A worker killed mid-push is resumed 10 s later, not production's minute.
      PUSH_HEARTBEAT_TIMEOUT: '10s',
      // The hourly reconciliation Schedule fires at the top of an hour: a test running across one would
      // have what reconciliation finds (the emulator's seeded links) booked beside what it expects.
      RECONCILE_INTERVAL: '3650d',
      ...(shared
        ? {
            TEMPORAL_ADDRESS: shared.address,
            TEMPORAL_NAMESPACE: shared.namespace,
            ...(shared.uiUrl ? { TEMPORAL_UI_URL: shared.uiUrl } : {}),
          }
        : {}),
      ...env,
    };
    this.temporalAddress = this.env.TEMPORAL_ADDRESS ?? `127.0.0.1:${this.env.TEMPORAL_DEV_PORT}`;
    this.namespace = this.env.TEMPORAL_NAMESPACE ?? 'default';
    return this;
  }

  /** A Temporal client of this stack's namespace; the caller closes `connection`. */
  async temporal(): Promise<{ client: Client; connection: Connection }> {
    const connection = await Connection.connect({ address: this.temporalAddress });
    return { client: new Client({ connection, namespace: this.namespace }), connection };
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

  /**
   * Waits for a start to be up (the marker `booksync start` prints once everything listens, or its Temporal UI
   * line); a start that exits first fails at once with its output, instead of after the whole wait.
   */
  async running(from: number, ms = 400_000): Promise<void> {
    const child = this.stack;
    const deadline = Date.now() + ms;
    for (;;) {
      const output = this.output.slice(from);
      if (output.includes('booksync is running') || output.includes('Temporal UI')) return;
      if (child && (child.exitCode !== null || child.signalCode !== null))
        throw new Error(
          `booksync start exited (${child.exitCode ?? child.signalCode}) before it was running:\n${this.output.slice(-4000)}`,
        );
      if (Date.now() > deadline)
        throw new Error(`booksync start not running in time:\n${this.output.slice(-4000)}`);
      await sleep(250);
    }
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

  /**
   * What `booksync targets status` says of the (first) target, read in this process from the same store with
   * the same code: the polls of untilPushed would otherwise start a CLI process (2 s of CPU) every second and
   * take a core from the stack under test. `booksync targets status` itself is tested in test/cli.
   */
  async targetStatus(): Promise<TargetSummary> {
    const settings = loadSettings(this.env);
    const target = settings.ACCOUNTING_TARGET?.[0];
    if (!target) throw new Error('no ACCOUNTING_TARGET in this stack');
    const store = await openLedgerStore(settings);
    try {
      return await store.targetIndex.summary(target);
    } finally {
      await store.close();
    }
  }

  /** What `booksync targets status --json` says of every configured target, read in this process as above. */
  async targetStatuses(): Promise<TargetSummary[]> {
    const settings = loadSettings(this.env);
    const store = await openLedgerStore(settings);
    try {
      const targets = settings.ACCOUNTING_TARGET ?? [];
      return await Promise.all(targets.map((target) => store.targetIndex.summary(target)));
    } finally {
      await store.close();
    }
  }

  /**
   * Until the books are settled: no workflow of the stack has a signal to handle or an activity pending (an
   * activity of a worker killed mid-flight is retried only once its timeout passed: its entries come that
   * late) and then nothing is
   * PENDING at the (first) target. What a count of the books is taken after.
   */
  async untilSettled(ms = 300_000): Promise<TargetSummary> {
    const deadline = Date.now() + ms;
    const { client, connection } = await this.temporal();
    try {
      for (;;) {
        const busy: string[] = [];
        for await (const info of client.workflow.list({ query: 'ExecutionStatus="Running"' })) {
          const described = await client.workflow.getHandle(info.workflowId, info.runId).describe();
          // A signal not handled yet is a pending workflow task; what it asks for, pending activities.
          const { pendingActivities, pendingWorkflowTask } = described.raw;
          if ((pendingActivities?.length ?? 0) > 0 || pendingWorkflowTask) busy.push(info.workflowId);
        }
        if (busy.length === 0) break;
        if (Date.now() > deadline) throw new Error(`activities still pending in ${busy.join(', ')}`);
        await sleep(1_000);
      }
    } finally {
      await connection.close();
    }
    return this.untilPushed(Math.max(1_000, deadline - Date.now()));
  }

  /** Until nothing is PENDING at the (first) target. */
  untilPushed(ms = 300_000): Promise<TargetSummary> {
    return waitFor(
      'nothing pending at the target',
      async () => {
        const s = await this.targetStatus();
        if (s.pending > 0) throw new Error(`still pending: ${JSON.stringify(s)}`);
        return s;
      },
      ms,
      1_000,
    );
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
