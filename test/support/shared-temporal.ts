import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { registerSearchAttributes } from '../../src/temporal/register-search-attributes.js';
import { devServerSearchAttributeFlags } from '../../src/workflow-safe/search-attributes.js';
import { startCliDevServer } from './bare-dev-server.js';
import { freePort } from './free-port.js';

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
export async function startSharedDevServer(): Promise<SharedDevServer> {
  const server = await startCliDevServer([
    '--http-port',
    String(await freePort()),
    '--metrics-port',
    String(await freePort()),
    ...devServerSearchAttributeFlags(),
  ]);
  await server.connection.close();
  return server;
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
