import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type CliRun, projectRoot, runBooksync } from '../support/booksync-cli.js';

// A worker holds thousands of workflows in a bounded heap (docs/configuration.md, WORKER_MAX_CACHED_WORKFLOWS): every module
// it imports is transformed by tsx and its source kept by V8 for as long as the process lives. The CLI imports
// only the command that runs, and the composition root only the configured target's adapter and ledger store,
// so a worker with no target and its books in SQLite loads none of the emulator, the console, the ingress, an
// adapter or its vendor SDK (xero-node: 14 MiB of heap), nor PostgreSQL's driver (docs/benchmarks.md).

const dir = mkdtempSync(path.join(tmpdir(), 'booksync-worker-imports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function modulesOf(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  ran: (run: CliRun) => void = (run) => expect(run.stderr).toContain('cannot reach Temporal'),
): Promise<string[]> {
  const log = path.join(dir, `${args[0]}-${Date.now()}.txt`);
  const hooks = pathToFileURL(path.join(projectRoot, 'test/support/module-log/register.mjs')).href;
  const run = await runBooksync(args, {
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      NODE_OPTIONS: `--import ${hooks}`,
      MODULE_LOG: log,
      // Nothing answers here: the worker imports its modules, fails to reach Temporal and exits.
      TEMPORAL_ADDRESS: '127.0.0.1:9',
      SERVICE_BASE_URL: 'http://127.0.0.1:9',
      SERVICE_API_KEY: 'sk_test_imports',
      BOOKSYNC_DATA_DIR: dir,
      LEDGER_DB: path.join(dir, 'ledger.db'),
      ...env,
    },
    timeoutMs: 60_000,
  });
  ran(run);
  return [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))].map((url) =>
    url.startsWith('file:') ? path.relative(projectRoot, new URL(url).pathname) : url,
  );
}

describe('what a worker process imports', () => {
  it('loads the worker, not the emulator, console, ingress, adapters, vendor SDKs or PostgreSQL', async () => {
    const modules = await modulesOf(['worker']);
    // It did load the worker side (the check would pass vacuously on an empty log).
    expect(modules).toContain('src/cli/commands/worker.ts');
    expect(modules).toContain('src/runtime/worker/booksync-worker-process.ts');
    const unwanted = modules.filter((m) =>
      /^src\/(emulator|console|ingress|command-api|demo)\/|^src\/targets\/(tryton|quickbooks|xero|oauth)\/|^src\/cli\/commands\/(?!worker\.ts)|node_modules\/(xero-node|pg|fastify|@fastify)\//.test(
        m,
      ),
    );
    expect(unwanted).toEqual([]);
  }, 90_000);

  it('a command with a Temporal client loads neither the worker’s SDK nor a vendor SDK it does not call', async () => {
    // `booksync targets status` of a Xero connection: the connection's store is read, no Xero call is made.
    const modules = await modulesOf(
      ['targets', 'status'],
      {
        ACCOUNTING_TARGET: 'xero',
        XERO_CLIENT_ID: 'imports-client',
        XERO_CLIENT_SECRET: 'imports-secret',
        XERO_TOKEN_KEY: 'imports-token-key-of-forty-characters-00',
      },
      (run) => expect(run.stdout).toMatch(/^xero: 0 pushed, 0 pending, 0 failed/m),
    );
    expect(modules).toContain('src/cli/commands/targets.ts');
    expect(modules).toContain('src/targets/xero/token-store.ts');
    const unwanted = modules.filter((m) =>
      /node_modules\/(xero-node|@temporalio\/worker|rxjs)\/|^src\/targets\/xero\/(client|xero-target)\.ts$/.test(
        m,
      ),
    );
    expect(unwanted).toEqual([]);
  }, 90_000);
});
