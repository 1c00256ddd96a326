import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { PostgresLedger } from '../../src/ledger/postgres-ledger.js';
import { PostgresOAuthConnections } from '../../src/targets/oauth/postgres-connection.js';
import { composeServices, nativeCommand, serviceEnvironment } from '../support/compose-file.js';
import { type PostgresCluster, startPostgres } from '../support/postgres.js';

// docker-compose.yml's booksync-database job, run natively with its own command and environment against a
// throwaway PostgreSQL (its superuser `postgres` standing for the image's `temporal`): booksync's ledger and
// OAuth connections under a `booksync` role that owns the `booksync` database and may do nothing else,
// apart from Temporal's superuser, idempotent at every `docker compose up`.

const job = composeServices()['booksync-database']!;
const run = promisify(execFile);
let postgres: PostgresCluster;
beforeAll(async () => {
  postgres = await startPostgres({ name: 'booksync-database' });
});
afterAll(() => postgres?.stop());
// Each test starts from a cluster without booksync's role and database.
afterEach(async () => {
  await postgres.psql('DROP DATABASE IF EXISTS booksync WITH (FORCE)');
  await postgres.psql('DROP ROLE IF EXISTS booksync');
  await postgres.psql('DROP ROLE IF EXISTS someone_else');
});

/** Runs the job as compose would, PostgreSQL's host being this one; answers its exit code and output. */
async function runJob(cluster: PostgresCluster, variables: Record<string, string>) {
  const environment = {
    ...serviceEnvironment(job, { TEMPORAL_DB_PASSWORD: 'superuser-password', ...variables }),
  };
  Object.assign(environment, { PGHOST: cluster.host, PGPORT: String(cluster.port), PGUSER: 'postgres' });
  const [command, ...args] = nativeCommand(job);
  try {
    const { stderr } = await run(command!, args, {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...environment },
    });
    return { code: 0, stderr };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, stderr: failed.stderr };
  }
}

const asBooksync = (cluster: PostgresCluster, database = 'booksync') =>
  `postgres://booksync:pw@${cluster.host}:${cluster.port}/${database}`;

const rolePassword = (cluster: PostgresCluster) =>
  cluster.psql("SELECT rolpassword FROM pg_authid WHERE rolname = 'booksync'");

/** What in the booksync database's public schema someone else than booksync owns. */
const notBooksyncs = (cluster: PostgresCluster) =>
  cluster.psql(
    `SELECT string_agg(name, ',' ORDER BY name) FROM (
       SELECT relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE nspname = 'public' AND relowner <> 'booksync'::regrole
       UNION ALL
       SELECT proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE nspname = 'public' AND proowner <> 'booksync'::regrole) o`,
    'booksync',
  );

describe("docker-compose.yml's booksync-database job", () => {
  it('is a one-shot job after PostgreSQL is healthy, running the script the repository ships', () => {
    expect(job.image).toBe(composeServices().postgresql!.image);
    expect(job.depends_on).toEqual({ postgresql: { condition: 'service_healthy' } });
    expect(job.restart).toBe('no');
    expect(nativeCommand(job).join(' ')).toMatch(
      /^psql -v ON_ERROR_STOP=1 -d postgres -f \/\S+\/deploy\/postgres\/booksync-database\.sql$/,
    );
  });

  it('creates a booksync role that may log in and nothing else, owning the booksync database no one else may open', async () => {
    const first = await runJob(postgres, { BOOKSYNC_DB_PASSWORD: 'first-password' });
    expect(first.code, first.stderr).toBe(0);
    expect(
      await postgres.psql(
        `SELECT rolcanlogin, rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls,
                rolpassword LIKE 'SCRAM-SHA-256$%'
           FROM pg_authid WHERE rolname = 'booksync'`,
      ),
    ).toBe('t|f|f|f|f|f|t\n');
    expect(
      await postgres.psql("SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'booksync'"),
    ).toBe('booksync\n');
    await postgres.psql('CREATE ROLE someone_else LOGIN');
    expect(await postgres.psql("SELECT has_database_privilege('someone_else', 'booksync', 'CONNECT')")).toBe(
      'f\n',
    );
    await expect(
      run('psql', [asBooksync(postgres, 'postgres'), '-c', 'CREATE DATABASE other']),
    ).rejects.toThrow(/permission denied to create database/);

    // Again, as at every `docker compose up`: nothing is created twice, the password is set anew (rotated).
    const before = await rolePassword(postgres);
    const again = await runJob(postgres, { BOOKSYNC_DB_PASSWORD: 'second-password' });
    expect(again.code, again.stderr).toBe(0);
    expect(await rolePassword(postgres)).not.toBe(before);

    // The ledger migrates and books as that role.
    const ledger = await PostgresLedger.open({ url: asBooksync(postgres) });
    try {
      await ledger.post({
        key: 'bank-charge:2026-01',
        date: '2026-01-31',
        description: 'Monthly bank fee',
        lines: [
          { account: Accounts.BankCharges, amountCents: 1_200 },
          { account: Accounts.OperatingBank, amountCents: -1_200 },
        ],
      });
      expect(await ledger.balanceOf(Accounts.BankCharges)).toBe(1_200);
    } finally {
      await ledger.close();
    }
    expect(await notBooksyncs(postgres)).toBe('\n');
  });

  it("hands a booksync database from before (the superuser's ledger and connections) to the role", async () => {
    const superuserUrl = await postgres.createDatabase('booksync');
    const before = await PostgresLedger.open({ url: superuserUrl });
    const entry = {
      key: 'bank-charge:2026-01',
      date: '2026-01-31',
      description: 'Monthly bank fee',
      lines: [
        { account: Accounts.BankCharges, amountCents: 1_200 },
        { account: Accounts.OperatingBank, amountCents: -1_200 },
      ],
    };
    await before.post(entry);
    await before.close();
    const connection = {
      companyId: '4620816365',
      refreshToken: 'sealed-token',
      connectedAt: '2026-01-02T00:00:00.000Z',
    };
    const connections = new PostgresOAuthConnections({ url: superuserUrl, target: 'quickbooks' });
    await connections.writeConnection(connection);
    await connections.close();
    // The superuser's, as the compose file of before left them.
    expect(
      await postgres.psql(
        "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public' AND tableowner = 'postgres'",
        'booksync',
      ),
    ).toMatch(/entries.*oauth_connections/);

    const handed = await runJob(postgres, { BOOKSYNC_DB_PASSWORD: 'a-password' });
    expect(handed.code, handed.stderr).toBe(0);
    expect(await notBooksyncs(postgres)).toBe('\n');

    const ledger = await PostgresLedger.open({ url: asBooksync(postgres) });
    try {
      expect((await ledger.get(entry.key))?.description).toBe(entry.description);
      await ledger.post({ ...entry, key: 'bank-charge:2026-02', date: '2026-02-28' });
      expect(await ledger.balanceOf(Accounts.BankCharges)).toBe(2_400);
    } finally {
      await ledger.close();
    }
    const asRole = new PostgresOAuthConnections({ url: asBooksync(postgres), target: 'quickbooks' });
    try {
      expect((await asRole.readConnection())?.companyId).toBe(connection.companyId);
      await asRole.writeConnection({ ...connection, refreshToken: 'rotated' });
      expect((await asRole.readConnection())?.refreshToken).toBe('rotated');
    } finally {
      await asRole.close();
    }
  });

  it('fails without BOOKSYNC_DB_PASSWORD, creating nothing', async () => {
    for (const variables of [{}, { BOOKSYNC_DB_PASSWORD: '' }]) {
      // Compose stops before (`:?`); the script refuses on its own too.
      expect(() => serviceEnvironment(job, { TEMPORAL_DB_PASSWORD: 'pw', ...variables })).toThrow(
        /set BOOKSYNC_DB_PASSWORD/,
      );
      const environment = {
        ...variables,
        PGHOST: postgres.host,
        PGPORT: String(postgres.port),
        PGUSER: 'postgres',
      };
      const [command, ...args] = nativeCommand(job);
      await expect(
        run(command!, args, {
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...environment },
        }),
      ).rejects.toThrow(/BOOKSYNC_DB_PASSWORD is not set/);
    }
    expect(await postgres.psql("SELECT count(*) FROM pg_roles WHERE rolname = 'booksync'")).toBe('0\n');
  });
});
