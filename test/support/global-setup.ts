import type { TestProject } from 'vitest/node';
import { resolveTemporalCli, resolveTemporalTestServer } from '../../src/temporal/binaries.js';

// Runs once per `vitest run`: resolves (and if needed builds) the real Temporal servers, so test files
// only start them. Paths reach the forked test workers through the environment.
export default function setup(_project: TestProject): void {
  const cli = resolveTemporalCli();
  const testServer = resolveTemporalTestServer();
  if (cli.type === 'existing-path') process.env.TEMPORAL_CLI_PATH = cli.path;
  if (testServer.type === 'existing-path') process.env.TEMPORAL_TEST_SERVER_PATH = testServer.path;
}
