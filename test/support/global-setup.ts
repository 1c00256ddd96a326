import type { TestProject } from 'vitest/node';
import { resolveTemporalCli, resolveTemporalTestServer } from '../../src/temporal/binaries.js';
import { endRecordedProcessGroups, openProcessGroupRegistry } from './process-groups.js';
import { stopSharedPostgres } from './shared-postgres.js';
import { sharedAddressVariable, sharedUiVariable, startSharedDevServer } from './shared-temporal.js';

// Runs once per `vitest run`: resolves (and if needed builds) the real Temporal servers and starts the run's
// one Temporal dev server (each test environment takes a namespace of its own on it: test/support/temporal.ts).
// The run's shared PostgreSQL is started by the first file needing it (test/support/shared-postgres.ts) and
// stopped here.
// Paths and the address reach the forked test workers through the environment. At the end it also ends the
// process groups test servers left behind (process-groups.ts).
export default async function setup(_project: TestProject): Promise<() => Promise<void>> {
  const cli = await resolveTemporalCli();
  const testServer = resolveTemporalTestServer();
  process.env.TEMPORAL_CLI_PATH = cli.path;
  if (testServer.type === 'existing-path') process.env.TEMPORAL_TEST_SERVER_PATH = testServer.path;
  const groups = openProcessGroupRegistry();
  // Servers a file starts for the whole run (the shared PostgreSQL) watch this process and end with it.
  process.env.BOOKSYNC_TEST_RUN_PID = String(process.pid);
  const shared = await startSharedDevServer();
  process.env[sharedAddressVariable] = shared.address;
  process.env[sharedUiVariable] = shared.uiUrl;
  return async () => {
    delete process.env[sharedAddressVariable];
    delete process.env[sharedUiVariable];
    await shared.stop();
    stopSharedPostgres(groups);
    const left = endRecordedProcessGroups(groups);
    if (left.length > 0)
      console.warn(`booksync: ended ${left.length} process groups test servers left running`);
  };
}
