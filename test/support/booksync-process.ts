import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TargetSummary } from '../../src/accounting/targets/target-index.js';
import { SandboxClient } from '../../src/emulator/sandbox-client.js';
import { ServiceClient } from '../../src/service/client.js';
import { type CliRun, runBooksync } from './booksync-cli.js';
import { freePort } from './free-port.js';
import { redeliverEverything } from './webhook-redelivery.js';

// The real `booksync start` as a business runs it, in its own process group, on free loopback ports and a
// fresh data folder; plus the CLI run beside it with the same environment. For the end-to-end tests of the
// accounting targets.

const bin = path.resolve('bin/booksync.js');

export class BooksyncProcess {
  env: NodeJS.ProcessEnv = {};
  dataDir = '';
  output = '';
  private stack: ChildProcess | null = null;

  /** A data folder and ports of its own; `env` is the target's settings. */
  async prepare(env: NodeJS.ProcessEnv): Promise<this> {
    this.dataDir = mkdtempSync(path.join(os.tmpdir(), 'booksync-e2e-'));
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
      ...env,
    };
    return this;
  }

  /** `booksync start`; with a failpoint it may kill itself, see `exited`. */
  start(extra: NodeJS.ProcessEnv = {}): ChildProcess {
    const child = spawn(process.execPath, [bin, 'start'], {
      env: { ...this.env, ...extra },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
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
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // Already gone.
    }
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

  /** Stops the stack; its output is kept in test/.artifacts/<name>.log for a failure's post-mortem. */
  async stop(name: string): Promise<void> {
    const stack = this.stack;
    if (stack?.pid && stack.exitCode === null && stack.signalCode === null) {
      const gone = new Promise((resolve) => stack.once('exit', resolve));
      try {
        process.kill(-stack.pid, 'SIGINT');
      } catch {
        // Gone already.
      }
      // Ctrl-C drains the worker (up to its 20 s grace); on a loaded machine that is more than a few seconds.
      await Promise.race([gone, sleep(30_000)]);
    }
    if (stack?.pid) {
      try {
        process.kill(-stack.pid, 'SIGKILL'); // whatever of the group is left (the dev server)
      } catch {
        // Gone already.
      }
    }
    mkdirSync('test/.artifacts', { recursive: true });
    writeFileSync(path.join('test/.artifacts', `${name}.log`), this.output);
    // A process of the group may still be closing its files for a moment after the signal.
    if (this.dataDir) rmSync(this.dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
}
