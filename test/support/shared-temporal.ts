import { type ChildProcess, spawn } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { registerSearchAttributes } from '../../src/temporal/register-search-attributes.js';
import { devServerSearchAttributeFlags } from '../../src/workflow-safe/search-attributes.js';
import { freePort } from './free-port.js';
import { withParentDeath } from './postgres.js';

// One Temporal dev server for the whole test run (started by test/support/global-setup.ts), and a namespace
// of its own for each test environment taken from it: workflow ids, task queues, search attributes and
// visibility stay apart between test files as they would on servers of their own, without a server start per
// file. The address reaches the forked test workers through the environment.

export const sharedAddressVariable = 'BOOKSYNC_TEST_TEMPORAL_ADDRESS';

export interface SharedDevServer {
  address: string;
  stop(): Promise<void>;
}

/** Starts the run's dev server (in memory, loopback, booksync's search attributes in `default`). */
export async function startSharedDevServer(cliPath: string): Promise<SharedDevServer> {
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const args = withParentDeath(
    [
      cliPath,
      'server',
      'start-dev',
      '--headless',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--http-port',
      String(await freePort()),
      '--metrics-port',
      String(await freePort()),
      '--log-level',
      'error',
      ...devServerSearchAttributeFlags(),
    ],
    false,
  );
  // setpriv: the kernel kills the server if vitest dies without its teardown.
  const child: ChildProcess = spawn('setpriv', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      child.kill('SIGKILL');
    }
  };
  for (const deadline = Date.now() + 60_000; ; ) {
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      await connection.workflowService.getSystemInfo({});
      await connection.close();
      return { address, stop };
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`the shared Temporal dev server did not start: ${String(error)}\n${log}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

let namespaces = 0;

/**
 * A test environment on the run's shared dev server, in a fresh namespace with booksync's search attributes;
 * undefined when no shared server runs (a test file run outside vitest's global set-up). Its teardown closes
 * its connections only.
 */
export async function sharedDevServerEnvironment(): Promise<TestWorkflowEnvironment | undefined> {
  const address = process.env[sharedAddressVariable];
  if (!address) return undefined;
  const namespace = `test-${process.pid}-${++namespaces}-${Math.random().toString(36).slice(2, 8)}`;
  const connection = await Connection.connect({ address });
  try {
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    await registerSearchAttributes(connection, namespace);
    // Usable once the frontend's namespace registry has it.
    for (const deadline = Date.now() + 30_000; ; ) {
      try {
        await connection.workflowService.listWorkflowExecutions({ namespace, pageSize: 1 });
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    await connection.close();
  }
  return TestWorkflowEnvironment.createFromExistingServer({ address, namespace });
}
