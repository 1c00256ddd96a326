import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import {
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';

// A throwaway PostgreSQL cluster for tests: Debian's PostgreSQL binaries, initdb into a temporary folder
// (as the `postgres` user when the tests run as root: initdb and postgres refuse root), trust
// authentication, a free port on 127.0.0.1 only, fsync off (the data is thrown away). The server dies with
// the test process (setpriv --pdeathsig), and stop() shuts it down immediately (SIGQUIT, then SIGKILL) and
// removes the folder.

const execFileAsync = promisify(execFile);

export function postgresBin(): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions)
    if (existsSync(path.join(base, v, 'bin', 'initdb'))) return path.join(base, v, 'bin');
  throw new Error('PostgreSQL is not installed: apt-get install postgresql');
}

const asRoot = () => process.getuid?.() === 0;

/** initdb and postgres refuse to run as root: as root, they run as Debian's `postgres` user. */
function asDatabaseUser(command: string, args: string[]): [string, string[]] {
  return asRoot() ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

/**
 * setpriv arguments that run the command (as the database user if asked, when root) and have the kernel kill
 * it when the test process dies: a vitest worker killed by a timeout or Ctrl-C leaves no PostgreSQL (or
 * other helper) behind (pg_ctl would have detached it).
 */
export function withParentDeath(command: string[], asDatabase = true): string[] {
  const user = asDatabase && asRoot() ? ['--reuid=postgres', '--regid=postgres', '--init-groups'] : [];
  return [...user, '--pdeathsig', 'KILL', '--', ...command];
}

export interface PostgresCluster {
  host: string;
  port: number;
  /** The folder holding the cluster (its socket too); removed by stop(). Other helpers may keep files here. */
  dir: string;
  /** Superuser `postgres`, no password (trust). */
  url(database?: string): string;
  /** Creates a database (a copy of `template` if given) and answers its url. */
  createDatabase(name: string, options?: { template?: string }): Promise<string>;
  /**
   * The name the database created as `name` has on the server: `name` itself on a cluster of the test's own,
   * made unique on the run's shared cluster (test/support/shared-postgres.ts). url(), psql() and
   * createDatabase() take the names the test gave; SQL text naming a database needs this.
   */
  databaseName(name: string): string;
  /** Runs SQL with psql (quiet, tuples only, unaligned) and answers its output. */
  psql(sql: string, database?: string): Promise<string>;
  /** The same, synchronously. */
  psqlSync(sql: string, database?: string): string;
  /** psql -f file, for dumps. */
  psqlFile(file: string, database: string): Promise<void>;
  stop(): Promise<void>;
}

/** initdb into a new temporary folder (owned by the database user when root): the folder and its data dir. */
async function initCluster(name: string): Promise<{ dir: string; pgData: string }> {
  const bin = postgresBin();
  const dir = mkdtempSync(path.join(tmpdir(), `booksync-${name}-`));
  const pgData = path.join(dir, 'pgdata');
  mkdirSync(pgData);
  if (asRoot()) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
    chownSync(pgData, uid, gid);
  }
  try {
    const [c, a] = asDatabaseUser(path.join(bin, 'initdb'), [
      '-D',
      pgData,
      '-A',
      'trust',
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--no-sync',
    ]);
    await execFileAsync(c, a, { env: { ...process.env, LC_ALL: 'C.UTF-8' } });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, pgData };
}

const host = '127.0.0.1';

/** The server's command line: loopback only, its socket in the cluster's folder, durability off. */
function postgresCommand(pgData: string, dir: string, port: number): string[] {
  return [
    path.join(postgresBin(), 'postgres'),
    '-D',
    pgData,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    `listen_addresses=${host}`,
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
    '-c',
    'full_page_writes=off',
    '-c',
    'max_connections=300',
  ];
}

/** Waits until the server answers, or throws with `log()` once it has exited or 30 s passed. */
async function untilReady(port: number, exited: () => boolean, log: () => string): Promise<void> {
  for (const deadline = Date.now() + 30_000; ; await sleep(100)) {
    try {
      await execFileAsync(path.join(postgresBin(), 'pg_isready'), ['-q', '-h', host, '-p', String(port)]);
      return;
    } catch {
      if (exited() || Date.now() > deadline) throw new Error(`PostgreSQL did not start:\n${log()}`);
    }
  }
}

export async function startPostgres(options: { name?: string } = {}): Promise<PostgresCluster> {
  const { dir, pgData } = await initCluster(options.name ?? 'postgres');
  const port = await freePort();
  const postgres: ChildProcess = spawn('setpriv', withParentDeath(postgresCommand(pgData, dir, port)), {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  postgres.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  });

  const stop = async () => {
    if (postgres.exitCode === null && postgres.signalCode === null) {
      const exited = new Promise((resolve) => postgres.once('exit', resolve));
      postgres.kill('SIGQUIT'); // PostgreSQL's immediate shutdown: the data is thrown away anyway.
      await Promise.race([exited, sleep(5_000).then(() => postgres.kill('SIGKILL'))]);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await untilReady(
      port,
      () => postgres.exitCode !== null,
      () => log,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return clusterAt(port, dir, stop);
}

/**
 * A cluster that outlives the test file starting it (the run's shared cluster): its own process group, its
 * log in its folder, and a watchman that shuts it down when `watchedPid` (the vitest run) is gone, should the
 * run's global teardown never come. Answers the port, the folder and the server's pid.
 */
export async function startLastingPostgres(
  name: string,
  watchedPid: number,
): Promise<{ port: number; dir: string; pid: number }> {
  const { dir, pgData } = await initCluster(name);
  const port = await freePort();
  const logFile = path.join(dir, 'postgres.log');
  const logFd = openSync(logFile, 'a');
  const command = asRoot()
    ? ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', ...postgresCommand(pgData, dir, port)]
    : ['--', ...postgresCommand(pgData, dir, port)];
  const postgres = spawn('setpriv', command, { stdio: ['ignore', 'ignore', logFd], detached: true });
  closeSync(logFd);
  postgres.unref();
  const pid = postgres.pid;
  if (pid === undefined) throw new Error('PostgreSQL did not start (no process)');
  let exited = false;
  postgres.once('exit', () => {
    exited = true;
  });
  spawn(
    'bash',
    [
      '-c',
      'while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 1; done; kill -QUIT "$2" 2>/dev/null; sleep 5; rm -rf "$3"',
      'watchman',
      String(watchedPid),
      String(pid),
      dir,
    ],
    { stdio: 'ignore', detached: true },
  ).unref();
  try {
    await untilReady(
      port,
      () => exited,
      () => (existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-4000) : ''),
    );
  } catch (error) {
    stopLastingPostgres({ pid, dir });
    throw error;
  }
  return { port, dir, pid };
}

/** Shuts down a lasting cluster at once (its data is thrown away) and removes its folder. */
export function stopLastingPostgres(cluster: { pid: number; dir: string }): void {
  try {
    process.kill(-cluster.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
  rmSync(cluster.dir, { recursive: true, force: true });
}

/** The cluster on `port` (its socket in `dir`), as tests use it; `stop` is how this user ends it. */
export function clusterAt(port: number, dir: string, stop: () => Promise<void>): PostgresCluster {
  const psqlArgs = (database: string) => ['-h', host, '-p', String(port), '-U', 'postgres', '-d', database];
  const url = (database = 'postgres') => `postgres://postgres@${host}:${port}/${database}`;
  const psql = async (sql: string, database = 'postgres') =>
    (
      await execFileAsync('psql', [...psqlArgs(database), '-v', 'ON_ERROR_STOP=1', '-qtAc', sql], {
        encoding: 'utf8',
      })
    ).stdout;
  return {
    host,
    port,
    dir,
    url,
    psql,
    psqlSync: (sql, database = 'postgres') =>
      execFileSync('psql', [...psqlArgs(database), '-v', 'ON_ERROR_STOP=1', '-qtAc', sql], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    async psqlFile(file, database) {
      await execFileAsync('psql', [...psqlArgs(database), '-q', '-f', file], { maxBuffer: 64 * 1024 * 1024 });
    },
    async createDatabase(name, options = {}) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
      const template = options.template;
      if (template !== undefined && !/^[a-z_][a-z0-9_]*$/.test(template))
        throw new Error(`not a plain database name: ${template}`);
      await psql(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
      return url(name);
    },
    databaseName: (name) => name,
    stop,
  };
}
