import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { registerSearchAttributes } from '../../src/runtime/temporal/register-search-attributes.js';
import { devServerSearchAttributeFlags } from '../../src/workflow-safe/search-attributes.js';
import { startCliDevServer } from './bare-dev-server.js';
import { freePort } from './free-port.js';

// One Temporal dev server for the whole test run (started by test/support/global-setup.ts), and a namespace
// of its own for each test environment taken from it: workflow ids, task queues, search attributes and
// visibility stay apart between test files as they would on servers of their own, without a server start per
// file. The address reaches the forked test workers through the environment.

export const sharedAddressVariable = 'BOOKSYNC_TEST_TEMPORAL_ADDRESS';
/** Its Web UI, where a `booksync start` on it links each flow (TEMPORAL_UI_URL). */
export const sharedUiVariable = 'BOOKSYNC_TEST_TEMPORAL_UI_URL';

export interface SharedDevServer {
  address: string;
  uiUrl: string;
  stop(): Promise<void>;
}

/** Starts the run's dev server (in memory, loopback, booksync's search attributes in `default`, a Web UI). */
export async function startSharedDevServer(): Promise<SharedDevServer> {
  const uiPort = await freePort();
  const server = await startCliDevServer(
    [
      '--http-port',
      String(await freePort()),
      '--metrics-port',
      String(await freePort()),
      ...devServerSearchAttributeFlags(),
    ],
    { uiPort },
  );
  await server.connection.close();
  return { ...server, uiUrl: `http://127.0.0.1:${uiPort}` };
}

let namespaces = 0;

/**
 * A fresh namespace on the run's shared dev server, with booksync's search attributes, usable once this
 * returns; undefined when no shared server runs (a test file run outside vitest's global set-up).
 */
export async function sharedDevServerNamespace(): Promise<
  { address: string; namespace: string; uiUrl: string | undefined } | undefined
> {
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
  return { address, namespace, uiUrl: process.env[sharedUiVariable] };
}

/**
 * A test environment on the run's shared dev server, in a fresh namespace with booksync's search attributes;
 * undefined when no shared server runs. Its teardown closes its connections only.
 */
export async function sharedDevServerEnvironment(): Promise<TestWorkflowEnvironment | undefined> {
  const shared = await sharedDevServerNamespace();
  return (
    shared &&
    TestWorkflowEnvironment.createFromExistingServer({ address: shared.address, namespace: shared.namespace })
  );
}
