import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  clusterAt,
  type PostgresCluster,
  startLastingPostgres,
  startPostgres,
  stopLastingPostgres,
} from './postgres.js';
import { processGroupsVariable } from './process-groups.js';

// One PostgreSQL cluster for a whole test run, shared by the files that only need databases on it (the ledger
// store's tests, Tryton's, the OAuth connection stores): the first file that asks starts it, later files find
// it, and the run's global teardown shuts it down (a watchman does, should the run die first). Each file's
// databases carry a suffix of its own, so files side by side never meet, and are dropped when it is done. A
// test that stops PostgreSQL, or changes what is cluster-wide (roles), keeps a cluster of its own
// (startPostgres). Outside a vitest run (a bench, `scripts/tryton/local.ts`) every caller gets its own.

/** Where the run's shared cluster is described, once started: `<run folder>/shared-postgres.json`. */
const sharedFolder = (runFolder: string) => path.join(runFolder, 'shared');
const describedAt = (runFolder: string) => path.join(sharedFolder(runFolder), 'postgres.json');
const failedAt = (runFolder: string) => path.join(sharedFolder(runFolder), 'postgres.failed');

interface Described {
  port: number;
  dir: string;
  pid: number;
}

let ours: Promise<Described> | null = null;
/** Databases made by this process, for unique names. */
let made = 0;

/** Starts the run's cluster, or waits for the file that is starting it; null outside a vitest run. */
function runCluster(): Promise<Described> | null {
  const runFolder = process.env[processGroupsVariable];
  const runPid = Number(process.env.BOOKSYNC_TEST_RUN_PID);
  if (!runFolder || !Number.isInteger(runPid) || runPid <= 1) return null;
  ours ??= (async () => {
    mkdirSync(sharedFolder(runFolder), { recursive: true });
    let starter = false;
    try {
      mkdirSync(path.join(sharedFolder(runFolder), 'postgres.lock'));
      starter = true;
    } catch {
      // Another file is starting it.
    }
    if (starter) {
      try {
        const cluster = await startLastingPostgres('shared-postgres', runPid);
        const tmp = `${describedAt(runFolder)}.${process.pid}.tmp`;
        writeFileSync(tmp, JSON.stringify(cluster));
        renameSync(tmp, describedAt(runFolder));
        return cluster;
      } catch (error) {
        writeFileSync(failedAt(runFolder), String((error as Error).message ?? error));
        throw error;
      }
    }
    for (const deadline = Date.now() + 90_000; ; await sleep(100)) {
      if (existsSync(describedAt(runFolder)))
        return JSON.parse(readFileSync(describedAt(runFolder), 'utf8')) as Described;
      if (existsSync(failedAt(runFolder)))
        throw new Error(
          `the run's shared PostgreSQL did not start: ${readFileSync(failedAt(runFolder), 'utf8')}`,
        );
      if (Date.now() > deadline) throw new Error("the run's shared PostgreSQL did not start within 90 s");
    }
  })();
  return ours;
}

/**
 * Databases of this file's own on the run's shared cluster: a PostgresCluster whose createDatabase, url,
 * psql and databaseName take the names the test gives and use them suffixed, and whose stop() drops them (the
 * server stays). Outside a vitest run, a cluster of the caller's own (`name` names its folder).
 */
export async function sharedPostgres(options: { name?: string } = {}): Promise<PostgresCluster> {
  const shared = runCluster();
  if (!shared) return startPostgres(options);
  const { port, dir } = await shared;
  const names = new Map<string, string>();
  const actual = (name: string) => names.get(name) ?? name;
  const dropAll = async () => {
    const own = [...names.values()];
    names.clear();
    for (const database of own) await cluster.psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  };
  const cluster = clusterAt(port, dir, dropAll);
  return {
    ...cluster,
    url: (database) => cluster.url(database === undefined ? undefined : actual(database)),
    psql: (sql, database) => cluster.psql(sql, database === undefined ? undefined : actual(database)),
    psqlSync: (sql, database) => cluster.psqlSync(sql, database === undefined ? undefined : actual(database)),
    psqlFile: (file, database) => cluster.psqlFile(file, actual(database)),
    async createDatabase(name, createOptions = {}) {
      const unique = `${name}_${process.pid}_${++made}`;
      const template = createOptions.template === undefined ? undefined : actual(createOptions.template);
      await cluster.createDatabase(unique, { template });
      names.set(name, unique);
      return cluster.url(unique);
    },
    databaseName: actual,
  };
}

/** The run's global teardown: shuts the shared cluster down if a file started one. */
export function stopSharedPostgres(runFolder: string): void {
  if (!existsSync(describedAt(runFolder))) return;
  stopLastingPostgres(JSON.parse(readFileSync(describedAt(runFolder), 'utf8')) as Described);
}
