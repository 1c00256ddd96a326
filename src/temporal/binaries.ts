import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { EphemeralServerExecutable } from '@temporalio/testing';
import { obtainTemporalCli } from './cli-source.js';
import { isExecutable, which } from './executables.js';

// Where the real Temporal servers come from (docs/operations.md, "Requirements"). The CLI: src/temporal/cli-source.ts
// decides (explicit path, PATH, cache, the release download where the internet is reachable, a Go build where
// only the registries are). The Java test server: an explicit path, a binary on PATH, booksync's cache, a
// build from Maven Central (scripts/obtain-temporal.sh), and finally the SDK's own download.

export interface TemporalBinaries {
  cli: EphemeralServerExecutable;
  testServer: EphemeralServerExecutable;
}

const obtainScript = fileURLToPath(new URL('../../scripts/obtain-temporal.sh', import.meta.url));

/** Runs the obtain script (cache hit or build) and returns what it resolved; undefined when it cannot. */
function obtain(flag: '--test-server-only'): string | undefined {
  try {
    const out = execFileSync('bash', [obtainScript, flag], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      env: process.env,
    });
    const match = /^export \w+=(.+)$/m.exec(out);
    return match?.[1]?.replace(/^'(.*)'$/, '$1');
  } catch {
    return undefined;
  }
}

function resolveOne(
  envVar: 'TEMPORAL_TEST_SERVER_PATH',
  binaryName: string,
  flag: '--test-server-only',
): EphemeralServerExecutable {
  const explicit = process.env[envVar];
  if (explicit) {
    if (!isExecutable(explicit)) throw new Error(`${envVar}=${explicit} is not an executable file`);
    return { type: 'existing-path', path: explicit };
  }
  const found = which(binaryName) ?? obtain(flag);
  if (found) return { type: 'existing-path', path: found };
  if (process.env.BOOKSYNC_TEMPORAL_DOWNLOAD === 'never') {
    throw new Error(
      `no ${binaryName}: set ${envVar}, put it on PATH, or run 'npm run temporal:obtain' (needs Maven and a JDK)`,
    );
  }
  // Last resort: the SDK's normal download, which works on a machine with internet access.
  return { type: 'cached-download' };
}

/** The Temporal CLI, always as an existing path (downloaded or built into the cache when needed). */
export async function resolveTemporalCli(): Promise<
  Extract<EphemeralServerExecutable, { type: 'existing-path' }>
> {
  return { type: 'existing-path', path: await obtainTemporalCli() };
}

export function resolveTemporalTestServer(): EphemeralServerExecutable {
  return resolveOne('TEMPORAL_TEST_SERVER_PATH', 'temporal-test-server', '--test-server-only');
}
