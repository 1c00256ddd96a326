import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { privateSqliteFile } from '@booksync/private-files';
import { Connection } from '@temporalio/client';
import type { Logger } from '../../logging/logger.js';
import { obtainTemporalCli } from '../../temporal/cli-source.js';
import { devServerSearchAttributeFlags } from '../../workflow-safe/search-attributes.js';

export interface DevServerOptions {
  dbFile: string;
  port: number;
  uiPort: number;
  namespace: string;
  logger: Logger;
  /** The codec server the Web UI decodes payloads through (PAYLOAD_KEYS); none by default. */
  uiCodecEndpoint?: string;
}

export interface RunningDevServer {
  address: string;
  uiUrl: string;
  stop(): Promise<void>;
}

/** Where the dev server's Web UI is (loopback, as the server listens). */
export function devServerUiUrl(uiPort: number): string {
  return `http://127.0.0.1:${uiPort}`;
}

/**
 * The Temporal CLI's dev server as a child process: SQLite file (workflows survive restarts), Web UI,
 * booksync's search attributes, loopback only.
 */
export async function startDevServer(options: DevServerOptions): Promise<RunningDevServer> {
  // Found or obtained (downloaded, or built with Go) as src/temporal/cli-source.ts decides; its error names
  // the three ways to get the CLI.
  const cliPath = await obtainTemporalCli();
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(options.port),
    '--ui-port',
    String(options.uiPort),
    '--db-filename',
    options.dbFile,
    '--namespace',
    options.namespace,
    '--log-level',
    'warn',
    ...(options.uiCodecEndpoint ? ['--ui-codec-endpoint', options.uiCodecEndpoint] : []),
    ...devServerSearchAttributeFlags(),
  ];
  // A port already taken would make the server exit at once, and booksync could then talk to whatever holds
  // the port (a dev server left by a booksync killed with SIGKILL, say) as if it were its own.
  await portsFree([options.port, options.uiPort]);
  // Its own process group: a terminal's Ctrl-C reaches only booksync, which stops the server last, after
  // the worker drained. If booksync itself dies, the 'exit' hook below still takes the server down; killed
  // by SIGKILL, no hook runs: on Linux the kernel then kills the server too (setpriv --pdeathsig).
  const [command, ...commandArgs] = withParentDeath([cliPath, ...args]);
  const child = spawn(command as string, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const log = options.logger.child({ component: 'temporal-dev-server' });
  // The server's own log lines are noisy (and expected during shutdown); kept at debug.
  child.stdout?.on('data', (chunk: Buffer) => log.debug(chunk.toString().trim()));
  child.stderr?.on('data', (chunk: Buffer) => log.debug(chunk.toString().trim()));
  let stopping = false;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      process.removeListener('exit', killOnExit);
      if (!stopping) log.error({ code }, 'the Temporal dev server exited');
      resolve(code);
    }),
  );

  const address = `127.0.0.1:${options.port}`;
  await waitUntilServing(address, child, exited);
  // The server creates its SQLite file itself; once it serves, the file and its side files are owner-only (decision “Owner-only data folder”).
  privateSqliteFile(options.dbFile);
  return {
    address,
    uiUrl: devServerUiUrl(options.uiPort),
    stop: () => {
      stopping = true;
      return stopChild(child, exited);
    },
  };
}

async function waitUntilServing(
  address: string,
  child: ChildProcess,
  exited: Promise<number | null>,
): Promise<void> {
  const deadline = Date.now() + 60_000;
  let done = false;
  void exited.then(() => {
    done = true;
  });
  while (Date.now() < deadline) {
    if (done)
      throw new Error(`the Temporal dev server exited with code ${child.exitCode} (port ${address} in use?)`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      await connection.workflowService.getSystemInfo({});
      await connection.close();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  child.kill('SIGKILL');
  throw new Error(`the Temporal dev server did not answer on ${address} within 60 s`);
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  const timeout = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timeout);
}

/** util-linux's setpriv (every Debian, the image included): the child gets SIGKILL when booksync dies. */
const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find(
  (p) => process.platform === 'linux' && existsSync(p),
);

function withParentDeath(command: string[]): string[] {
  return setpriv ? [setpriv, '--pdeathsig', 'KILL', '--', ...command] : command;
}

/** Refuses to start on a port something already listens on (loopback, where the server listens). */
async function portsFree(ports: readonly number[]): Promise<void> {
  for (const port of ports) {
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
      const probe = createServer();
      probe.once('error', resolve);
      probe.listen({ port, host: '127.0.0.1', exclusive: true }, () => probe.close(() => resolve(null)));
    });
    if (error?.code === 'EADDRINUSE') {
      throw new Error(
        `port ${port} on 127.0.0.1 is in use, and booksync's own Temporal dev server listens there (TEMPORAL_DEV_PORT, TEMPORAL_UI_PORT). Stop what holds it (a dev server left by an earlier booksync shows as \`temporal server start-dev\` in ps), choose other ports, or set TEMPORAL_ADDRESS to use a Temporal server you run yourself.`,
      );
    }
    if (error) throw error;
  }
}
