import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { expect } from 'vitest';
import { resolveTemporalCli } from '../../src/temporal/binaries.js';
import { booksyncSearchAttributes } from '../../src/workflow-safe/search-attributes.js';
import { freePort } from './free-port.js';
import { withParentDeath } from './postgres.js';
import { waitFor } from './wait-for.js';

// A Temporal as a fresh production namespace is: the CLI's dev server started WITHOUT booksync's
// `--search-attribute` flags (test/support/temporal.ts and src/runtime/temporal/dev-server.ts give them), so tests can
// check that booksync registers its search attributes itself.

export interface BareDevServer {
  address: string;
  connection: Connection;
  stop(): Promise<void>;
}

/** `temporal server start-dev` with nothing of booksync's: no search attributes, in-memory SQLite. */
export function startBareDevServer(): Promise<BareDevServer> {
  return startCliDevServer();
}

/**
 * The CLI's dev server, in memory, on a free loopback port, with `extraArgs` (booksync's search attributes,
 * say); headless unless `uiPort` is given. It dies with this process (setpriv --pdeathsig) if stop() is
 * never called.
 */
export async function startCliDevServer(
  extraArgs: readonly string[] = [],
  options: { uiPort?: number } = {},
): Promise<BareDevServer> {
  const cli = process.env.TEMPORAL_CLI_PATH ?? (await resolveTemporalCli()).path;
  const port = await freePort();
  const child = spawn(
    'setpriv',
    withParentDeath(
      [
        cli,
        'server',
        'start-dev',
        ...(options.uiPort === undefined ? ['--headless'] : ['--ui-port', String(options.uiPort)]),
        '--ip',
        '127.0.0.1',
        '--port',
        String(port),
        '--log-level',
        'error',
        ...extraArgs,
      ],
      false,
    ),
    { stdio: 'ignore', detached: true },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const address = `127.0.0.1:${port}`;
  let connection: Connection | undefined;
  const stop = async () => {
    await connection?.close().catch(() => {});
    kill(child, 'SIGTERM');
    await Promise.race([exited, sleep(10_000)]);
    kill(child, 'SIGKILL');
  };
  try {
    await waitFor(
      `dev server on ${address}`,
      async () => {
        if (child.exitCode !== null)
          throw new Error(`temporal server start-dev exited with ${child.exitCode}`);
        try {
          connection ??= await Connection.connect({ address, connectTimeout: 1_000 });
          await connection.operatorService.listSearchAttributes({ namespace: 'default' });
          return true;
        } catch {
          return false;
        }
      },
      60_000,
      250,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { address, connection: connection as Connection, stop };
}

export function kill(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-(child.pid as number), signal);
  } catch {
    // already gone
  }
}

export async function customAttributes(
  server: BareDevServer,
  namespace = 'default',
): Promise<Record<string, string>> {
  const listed = await server.connection.operatorService.listSearchAttributes({ namespace });
  // Enum numbers to names as the API spells them ("INDEXED_VALUE_TYPE_KEYWORD"), compared by suffix below.
  const { temporal } = (await import('@temporalio/proto')).default;
  const names = temporal.api.enums.v1.IndexedValueType;
  return Object.fromEntries(
    Object.entries(listed.customAttributes ?? {}).map(([name, type]) => [name, names[type as number] ?? '']),
  );
}

export function expectAllOfBooksyncs(attributes: Record<string, string>): void {
  for (const key of booksyncSearchAttributes) {
    expect(attributes[key.name], key.name).toBe(`INDEXED_VALUE_TYPE_${key.type}`);
  }
}
