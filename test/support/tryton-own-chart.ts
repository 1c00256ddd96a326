import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { activateAccounting, type TrytonServer } from './tryton.js';

// A test Tryton (startTryton) whose company's chart is Tryton's own, made by the Create
// Chart wizard from the account module's template (scripts/tryton/setup-tryton-chart.py), none of booksync's
// accounts: what `booksync targets setup tryton` meets at a business starting with Tryton. Prepared once
// (trytond-admin, then the script) and cached as a dump keyed by the script and the Tryton virtualenv,
// restored per call in place of booksync's database.

const root = fileURLToPath(new URL('../..', import.meta.url));
const cache = process.env.BOOKSYNC_CACHE ?? path.join(homedir(), '.cache', 'booksync');

/**
 * The test Tryton's database replaced by one with Tryton's own chart (same name: trytond serves the databases
 * it was started with); trytond is stopped meanwhile and started again on it.
 */
export async function useOwnChart(tryton: TrytonServer): Promise<void> {
  const out = execFileSync('bash', [path.join(root, 'scripts', 'obtain-tryton.sh')], { encoding: 'utf8' });
  const venv = /TRYTON_VENV=(.+)/.exec(out)?.[1]?.trim();
  if (!venv) throw new Error(`obtain-tryton.sh printed no TRYTON_VENV:\n${out}`);
  const { database } = tryton;
  const { port } = tryton.postgres;
  const { config } = tryton;
  const passFile = path.join(path.dirname(config), 'admin-password');
  const env = { ...process.env, TRYTOND_CONFIG: config, TRYTONPASSFILE: passFile };
  const script = path.join(root, 'scripts', 'tryton', 'setup-tryton-chart.py');
  const key = createHash('sha256').update(readFileSync(script)).update(venv).digest('hex').slice(0, 16);
  const dump = path.join(cache, `tryton-own-chart-${key}.sql`);
  const pg = ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres'];
  await tryton.stop();
  tryton.postgres.psqlSync(`DROP DATABASE ${database}`);
  tryton.postgres.psqlSync(`CREATE DATABASE ${database}`);
  if (existsSync(dump)) {
    execFileSync('psql', [...pg, '-d', database, '-q', '-f', dump], { stdio: 'pipe' });
  } else {
    activateAccounting(venv, database, env);
    execFileSync(path.join(venv, 'bin', 'python'), [script, database], { stdio: 'pipe', env });
    mkdirSync(cache, { recursive: true });
    const sql = execFileSync('pg_dump', [...pg, '--no-owner', database], {
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    });
    writeFileSync(`${dump}.${process.pid}.tmp`, sql);
    execFileSync('mv', [`${dump}.${process.pid}.tmp`, dump]);
  }
  await tryton.start();
}
