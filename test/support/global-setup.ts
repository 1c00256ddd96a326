import type { TestProject } from 'vitest/node';
import { resolveTemporalCli, resolveTemporalTestServer } from '../../src/temporal/binaries.js';

// Runs once per `vitest run`: resolves (and if needed builds) the real Temporal servers, so test files
// only start them. Paths reach the forked test workers through the environment.
export default async function setup(_project: TestProject): Promise<void> {
  const cli = await resolveTemporalCli();
  const testServer = resolveTemporalTestServer();
  process.env.TEMPORAL_CLI_PATH = cli.path;
  if (testServer.type === 'existing-path') process.env.TEMPORAL_TEST_SERVER_PATH = testServer.path;
}
