import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
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
  /** Creates a database and answers its url. */
  createDatabase(name: string): Promise<string>;
  /** Runs SQL with psql (quiet, tuples only, unaligned) and answers its output. */
  psql(sql: string, database?: string): Promise<string>;
  /** The same, synchronously. */
  psqlSync(sql: string, database?: string): string;
  /** psql -f file, for dumps. */
  psqlFile(file: string, database: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startPostgres(options: { name?: string } = {}): Promise<PostgresCluster> {
  const bin = postgresBin();
  const dir = mkdtempSync(path.join(tmpdir(), `booksync-${options.name ?? 'postgres'}-`));
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
  const host = '127.0.0.1';
  const port = await freePort();
  const postgres: ChildProcess = spawn(
    'setpriv',
    withParentDeath([
      path.join(bin, 'postgres'),
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
      'max_connections=200',
    ]),
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
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

  for (const deadline = Date.now() + 30_000; ; await sleep(100)) {
    try {
      await execFileAsync(path.join(bin, 'pg_isready'), ['-q', '-h', host, '-p', String(port)]);
      break;
    } catch {
      if (postgres.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`PostgreSQL did not start:\n${log}`);
      }
    }
  }

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
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
      await psql(`CREATE DATABASE ${name}`);
      return url(name);
    },
    stop,
  };
}
