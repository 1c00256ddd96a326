import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { type AccountMapping, defaultAccountCodes } from '../../src/targets/account-mapping.js';
import { createTrytonTarget, type TrytonTarget } from '../../src/targets/tryton/index.js';
import { centsOf, TrytonRpc } from '../../src/targets/tryton/json-rpc.js';
import { freePort } from './free-port.js';
import { type PostgresCluster, withParentDeath } from './postgres.js';
import { recordProcessGroup } from './process-groups.js';
import { sharedPostgres } from './shared-postgres.js';

// A real Tryton 8.2 on a real PostgreSQL, on loopback, for the Tryton target's tests: PostgreSQL from Debian
// (the run's shared cluster, test/support/shared-postgres.ts), Tryton from PyPI (scripts/obtain-tryton.sh).
// Tryton prepared by scripts/tryton/setup-database.py is a template database on the cluster, made once from a
// cached dump (keyed by the setup script, the Tryton virtualenv and the year); each server's database is a copy
// of it. Each server has its own trytond, trytond-worker and trytond-cron; close() stops them and drops the
// database. Nothing listens beyond 127.0.0.1.

const root = fileURLToPath(new URL('../..', import.meta.url));
const cache = process.env.BOOKSYNC_CACHE ?? path.join(homedir(), '.cache', 'booksync');
const password = 'booksync-test-admin';

function trytonVenv(): string {
  const out = execFileSync('bash', [path.join(root, 'scripts', 'obtain-tryton.sh')], { encoding: 'utf8' });
  const venv = /TRYTON_VENV=(.+)/.exec(out)?.[1];
  if (!venv) throw new Error(`obtain-tryton.sh printed no TRYTON_VENV:\n${out}`);
  return venv.trim();
}

export interface TrytonServer {
  url: string;
  database: string;
  username: string;
  password: string;
  /** trytond's configuration file (its folder holds the admin password file `admin-password`). */
  config: string;
  /** The PostgreSQL cluster Tryton's database is on: a test may keep a database of its own there too. */
  postgres: PostgresCluster;
  /** A session of its own, for reading Tryton's books in assertions. */
  rpc: TrytonRpc;
  /** Stops trytond-worker and trytond-cron (trytond stays): Tryton's tasks wait in its queue. */
  stopWorker(): Promise<void>;
  /** Starts them again (with `queue: true`). */
  startWorker(): void;
  /** Stops trytond only (PostgreSQL stays): an outage. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
  /** Balance (debit - credit, cents) of each account, by code, as Tryton reports it. */
  balances(codes: readonly string[]): Promise<Record<string, number>>;
  /** Tryton's amount to pay, in cents, of the invoices booksync made for a payment link, each line once. */
  amountToPay(paymentLinkId: string): Promise<number>;
  /**
   * What the link's invoices owe, in cents: the amount to pay of each of its customer invoices (its own, its
   * charge invoices), credit notes left out: what a bookkeeper reads on the link's invoices.
   */
  invoicesOwe(paymentLinkId: string): Promise<number>;
  /** Tryton's amount to pay, in cents, of the customer invoices whose reference is the link's name (number). */
  amountToPayByNumber(invoiceNumber: string): Promise<number>;
  /** Runs SQL on Tryton's own database, behind Tryton's back (a bench's bulk history; never in a test of booksync). */
  sql(statement: string): string;
  /** Closes or reopens the fiscal period holding the date. */
  setPeriodState(date: string, state: 'close' | 'reopen'): Promise<void>;
}

/**
 * booksync's Tryton target on this server, as the worker makes it: its login, booksync's default accounts
 * (or `accounts`), creating the parties it does not find (or `matching`); a new adapter each call (a new
 * process).
 */
export function trytonTarget(
  tryton: TrytonServer,
  options: { accounts?: AccountMapping; matching?: 'create' | 'match-existing' } = {},
): TrytonTarget {
  return createTrytonTarget({
    url: tryton.url,
    database: tryton.database,
    username: tryton.username,
    password: tryton.password,
    accounts: options.accounts ?? defaultAccountCodes,
    matching: options.matching ?? 'create',
  });
}

/**
 * Tryton as production runs it, by default (`queue: true`): trytond, trytond-worker with the task queue on
 * (`[queue] worker = True`: an invoice's report, an invoice turning paid or posted again after its lines are
 * reconciled or unreconciled, are the worker's, after the request) and trytond-cron. booksync waits for what
 * it depends on (src/targets/tryton/reconciliation.ts, invoicesProcessed). `queue: false`: trytond alone,
 * every task done inside the request that asks for it, for a test about something else that wants no worker
 * and scheduler beside trytond on a shared machine.
 */
export async function startTryton(options: { queue?: boolean } = {}): Promise<TrytonServer> {
  const queue = options.queue ?? true;
  const venv = trytonVenv();
  const cluster = await sharedPostgres({ name: 'tryton' });
  const pgPort = cluster.port;
  // trytond's configuration, password file and filestore: a folder of this server's own.
  const dir = mkdtempSync(path.join(tmpdir(), 'booksync-tryton-'));
  const psql = (sql: string, database = 'postgres') => cluster.psqlSync(sql, database);

  const config = path.join(dir, 'trytond.conf');
  const webPort = await freePort();
  writeFileSync(
    config,
    `[database]\nuri = postgresql://postgres@127.0.0.1:${pgPort}/\npath = ${dir}/filestore\n[web]\nlisten = 127.0.0.1:${webPort}\n[session]\nmax_attempt = 100\n${queue ? '[queue]\nworker = True\n' : ''}`,
  );
  const trytonEnv = { TRYTOND_CONFIG: config, TRYTONPASSFILE: path.join(dir, 'admin-password') };
  writeFileSync(trytonEnv.TRYTONPASSFILE, password);
  // Drops the database (on a cluster of its own, stops PostgreSQL) and removes the folder; a failed start-up
  // too, rather than leaving them behind.
  const release = async () => {
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  let database: string;
  try {
    const template = await templateDatabase(cluster, venv, trytonEnv);
    await cluster.createDatabase('tryton', { template });
    database = cluster.databaseName('tryton');
  } catch (error) {
    await release();
    throw error;
  }

  let trytond: ChildProcess | null = null;
  const url = `http://127.0.0.1:${webPort}`;
  let log = '';
  const keep = (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  };
  const launch = (program: string, ...args: string[]) => {
    const child = spawn(
      'setpriv',
      withParentDeath([path.join(venv, 'bin', program), '-c', config, '-d', database, ...args], false),
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, ...trytonEnv },
        // A process group of its own: halt() ends the worker's pool and the scheduler's children with it.
        detached: true,
      },
    );
    if (child.pid !== undefined) recordProcessGroup(child.pid);
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    return child;
  };
  // The queue's worker and the scheduler, one process each (the machine is shared: trytond-cron starts a
  // process per core by default, each loading Tryton's pool), for the server's life;
  // stop() and start() are trytond's alone (an outage of the web server), stopWorker() and startWorker() theirs.
  // The worker wakes on PostgreSQL's NOTIFY of a new task and also pulls every `-t` seconds without one (60 by
  // default): 5 here, so a wake-up missed on this loaded machine costs seconds, not a test's whole wait.
  const helpers: ChildProcess[] = [];
  const startWorker = () => {
    if (queue && helpers.length === 0)
      helpers.push(launch('trytond-worker', '-n', '1', '-t', '5'), launch('trytond-cron', '-n', '1'));
  };
  startWorker();
  const start = async () => {
    trytond = launch('trytond');
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        const response = await fetch(`${url}/${database}/rpc/`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ id: 0, method: 'common.server.version', params: [] }),
        });
        // Listening: Tryton 8 answers even this call only with a session (401), which is enough here.
        if (response.status < 500) return;
      } catch {
        // Not listening yet.
      }
      if (trytond.exitCode !== null || Date.now() > deadline)
        throw new Error(`trytond did not start:\n${log}`);
      await sleep(200);
    }
  };
  const stop = async () => {
    const child = trytond;
    trytond = null;
    await halt(child, 'SIGTERM');
  };
  // trytond-worker stops its pool cleanly on SIGINT (on SIGTERM it leaves its processes behind).
  const stopHelpers = () => Promise.all(helpers.splice(0).map((child) => halt(child, 'SIGINT')));
  try {
    await start();
  } catch (error) {
    await stop();
    await stopHelpers();
    await release();
    throw error;
  }
  const rpc = new TrytonRpc({ url, database, username: 'admin', password });

  return {
    url,
    database,
    username: 'admin',
    password,
    config,
    postgres: cluster,
    rpc,
    start,
    stop,
    stopWorker: async () => {
      await stopHelpers();
    },
    startWorker,
    sql: (statement) => psql(statement, database),
    async close() {
      await stop();
      await stopHelpers();
      await release();
    },
    async balances(codes) {
      const rows = await rpc.searchRead<{ code: string; balance: { decimal: string } }>(
        'account.account',
        [['code', 'in', [...codes]]],
        ['code', 'balance'],
      );
      return Object.fromEntries(rows.map((r) => [r.code, centsOf(r.balance as never)]));
    },
    async amountToPay(paymentLinkId) {
      // Tryton's amount to pay is an invoice's unreconciled lines to pay and payment lines. A credit note
      // applied to an invoice has its line among that invoice's payment lines and still among its own lines
      // to pay until both are reconciled: each line is counted once, as the party's receivable counts it.
      const rows = await rpc.searchRead<{ lines_to_pay: number[]; payment_lines: number[] }>(
        'account.invoice',
        [
          ['comment', '=', `booksync-link:${paymentLinkId}`],
          ['state', 'in', ['posted', 'paid']],
        ],
        ['lines_to_pay', 'payment_lines'],
      );
      const ids = [...new Set(rows.flatMap((r) => [...r.lines_to_pay, ...r.payment_lines]))];
      const lines = await rpc.model<{ debit: unknown; credit: unknown; reconciliation: number | null }[]>(
        'account.move.line',
        'read',
        ids,
        ['debit', 'credit', 'reconciliation'],
      );
      // And the customer's credit a credit application left open on the party under the link
      // (src/targets/tryton/credit-applications.ts): its move names the link.
      const rests = await rpc.searchRead<{ debit: unknown; credit: unknown }>(
        'account.move.line',
        [
          [
            'move.description',
            'like',
            `booksync:credit-application:%booksync link=${paymentLinkId.replace(/[\\%_]/g, (c) => `\\${c}`)} %`,
          ],
          ['reconciliation', '=', null],
          ['invoice_payment', '=', null],
        ],
        ['debit', 'credit'],
      );
      return [...lines.filter((l) => l.reconciliation === null), ...rests].reduce(
        (sum, l) => sum + centsOf(l.debit as never) - centsOf(l.credit as never),
        0,
      );
    },
    async invoicesOwe(paymentLinkId) {
      const rows = await rpc.searchRead<{ total_amount: unknown; amount_to_pay: unknown }>(
        'account.invoice',
        [
          ['comment', '=', `booksync-link:${paymentLinkId}`],
          ['state', 'in', ['posted', 'paid']],
        ],
        ['total_amount', 'amount_to_pay'],
      );
      return rows
        .filter((r) => centsOf(r.total_amount as never) > 0)
        .reduce((sum, r) => sum + centsOf(r.amount_to_pay as never), 0);
    },
    async amountToPayByNumber(invoiceNumber) {
      const rows = await rpc.searchRead<{ amount_to_pay: { decimal: string } }>(
        'account.invoice',
        [
          ['reference', '=', invoiceNumber],
          ['type', '=', 'out'],
        ],
        ['amount_to_pay'],
      );
      return rows.reduce((sum, r) => sum + centsOf(r.amount_to_pay as never), 0);
    },
    async setPeriodState(date, state) {
      const periods = await rpc.model<number[]>(
        'account.period',
        'search',
        [
          [
            'start_date',
            '<=',
            { __class__: 'date', year: +date.slice(0, 4), month: +date.slice(5, 7), day: +date.slice(8, 10) },
          ],
          [
            'end_date',
            '>=',
            { __class__: 'date', year: +date.slice(0, 4), month: +date.slice(5, 7), day: +date.slice(8, 10) },
          ],
          ['type', '=', 'standard'],
        ],
        0,
        1,
        null,
      );
      await rpc.model('account.period', state, periods);
      if (state === 'reopen') {
        // Closing a period closes its journal-periods too; reopening the period leaves them closed.
        const journalPeriods = await rpc.model<number[]>(
          'account.journal.period',
          'search',
          [['period', 'in', periods]],
          0,
          null,
          null,
        );
        if (journalPeriods.length > 0) await rpc.model('account.journal.period', 'reopen', journalPeriods);
      }
    },
  };
}

/** Tryton template databases made on a cluster, by the cache key of their contents. */
const templates = new Map<string, Promise<string>>();

/**
 * A database holding Tryton prepared as scripts/tryton/setup-database.py leaves it, on `cluster`, from which
 * each server's database is copied (CREATE DATABASE ... TEMPLATE, a file copy): made once per cluster (on the
 * run's shared cluster, by the first file; the others wait for it), from a dump cached by the setup script,
 * the Tryton virtualenv and the year, or by running the setup and caching its dump. Answers its name as the
 * cluster knows it (createDatabase's `template`).
 */
async function templateDatabase(
  cluster: PostgresCluster,
  venv: string,
  trytonEnv: { TRYTOND_CONFIG: string; TRYTONPASSFILE: string },
): Promise<string> {
  const setupScript = path.join(root, 'scripts', 'tryton', 'setup-database.py');
  // The setup makes fiscal years around the current one: a dump from last year would lack this year's.
  const key = createHash('sha256')
    .update(readFileSync(setupScript))
    .update(venv)
    .update(String(new Date().getFullYear()))
    .digest('hex')
    .slice(0, 16);
  const name = `tryton_template_${key}`;
  const onCluster = `${cluster.port}:${name}`;
  const made = templates.get(onCluster);
  if (made) return made;
  const making = (async () => {
    // Across the run's files: the first to take the lock makes it, the others wait for its mark.
    const marks = path.join(cluster.dir, 'tryton-templates');
    mkdirSync(marks, { recursive: true, mode: 0o777 });
    const ready = path.join(marks, `${name}.ready`);
    const failed = path.join(marks, `${name}.failed`);
    let maker = false;
    try {
      mkdirSync(path.join(marks, `${name}.lock`));
      maker = true;
    } catch {
      // Another file is making it.
    }
    if (!maker) {
      for (const deadline = Date.now() + 300_000; ; await sleep(200)) {
        if (existsSync(ready)) return readFileSync(ready, 'utf8');
        if (existsSync(failed))
          throw new Error(`Tryton's template database failed: ${readFileSync(failed, 'utf8')}`);
        if (Date.now() > deadline) throw new Error("Tryton's template database was not made within 300 s");
      }
    }
    try {
      // Made with SQL of its own, not createDatabase: on the shared cluster the template outlives this file.
      await cluster.psql(`CREATE DATABASE ${name}`);
      const database = name;
      const dump = path.join(cache, `tryton-template-${key}.sql`);
      if (existsSync(dump)) await cluster.psqlFile(dump, name);
      else makeTemplate(cluster, database, dump, venv, setupScript, trytonEnv);
      writeFileSync(ready, database);
      return database;
    } catch (error) {
      writeFileSync(failed, String((error as Error).message ?? error));
      throw error;
    }
  })();
  templates.set(onCluster, making);
  return making;
}

/**
 * `trytond-admin` activating Tryton's invoicing (account_invoice and what it depends on) in the empty
 * `database`, its admin's email and password set (`env` names the configuration and the password file).
 */
export function activateAccounting(
  venv: string,
  database: string,
  env: NodeJS.ProcessEnv & { TRYTOND_CONFIG: string },
): void {
  execFileSync(
    path.join(venv, 'bin', 'trytond-admin'),
    [
      '-c',
      env.TRYTOND_CONFIG,
      '-d',
      database,
      '-u',
      'account_invoice',
      '--activate-dependencies',
      '--email',
      'admin@booksync.test',
      '-p',
    ],
    { stdio: 'pipe', env },
  );
}

/** Tryton's modules activated and booksync's test company set up in `database`, then its dump cached. */
function makeTemplate(
  cluster: PostgresCluster,
  database: string,
  dump: string,
  venv: string,
  setupScript: string,
  trytonEnv: { TRYTOND_CONFIG: string; TRYTONPASSFILE: string },
): void {
  activateAccounting(venv, database, { ...process.env, ...trytonEnv });
  execFileSync(path.join(venv, 'bin', 'python'), [setupScript, database], {
    stdio: 'pipe',
    env: { ...process.env, ...trytonEnv },
  });
  mkdirSync(cache, { recursive: true });
  const sql = execFileSync(
    'pg_dump',
    ['-h', '127.0.0.1', '-p', String(cluster.port), '-U', 'postgres', '--no-owner', database],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  writeFileSync(`${dump}.${process.pid}.tmp`, sql);
  execFileSync('mv', [`${dump}.${process.pid}.tmp`, dump]);
}

/**
 * Signals a child and waits for it to exit, killing it after 5 s; then ends what is left of its process group
 * (a worker's pool, a scheduler's task), so no Tryton process outlives the test.
 */
async function halt(child: ChildProcess | null, signal: NodeJS.Signals): Promise<void> {
  if (!child || child.pid === undefined) return;
  const group = -child.pid;
  const signalGroup = (s: NodeJS.Signals) => {
    try {
      process.kill(group, s);
    } catch {
      // The group is gone.
    }
  };
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    signalGroup(signal);
    await Promise.race([exited, sleep(5_000).then(() => signalGroup('SIGKILL'))]);
  }
  signalGroup('SIGKILL');
}
