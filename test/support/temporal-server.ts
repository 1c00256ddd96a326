import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { accessSync, closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { isExecutable } from '../../src/temporal/executables.js';
import { type PostgresCluster, startPostgres, withParentDeath } from './postgres.js';
import { waitFor } from './wait-for.js';

// A real Temporal server, not the dev server: `go.temporal.io/server/cmd/server` built from the Go module
// proxy by scripts/obtain-temporal-server.sh, on a throwaway PostgreSQL cluster (test/support/postgres.ts)
// holding its two databases, `temporal` and `temporal_visibility` (SQL visibility, postgres12 plugin), whose
// schemas its own SQL tool sets up. All four services run in one process on loopback ports. The server
// knows nothing of booksync: one namespace, `default`, registered through the API as an operator would,
// and no search attribute of booksync's (booksync registers them itself). Its output and the schema tool's
// go to test/.artifacts/<name>.log; the kernel kills it if the test process dies (setpriv --pdeathsig).

const root = fileURLToPath(new URL('../..', import.meta.url));
const artifacts = path.join(root, 'test', '.artifacts');
const execFileAsync = promisify(execFile);

/** The version scripts/obtain-temporal-server.sh pins; its cache folder is found without the variables. */
export const temporalServerVersion = 'v1.29.1';

export interface TemporalServerBinaries {
  server: string;
  sqlTool: string;
  /** The module's schema/ folder (postgresql/v12/{temporal,visibility}/versioned). */
  schemaDir: string;
}

/**
 * The binaries from TEMPORAL_SERVER_PATH, TEMPORAL_SQL_TOOL_PATH and TEMPORAL_SERVER_SCHEMA_DIR (what
 * `eval "$(bash scripts/obtain-temporal-server.sh)"` sets), else from the script's cache folder; a reason
 * when they are not there.
 */
export function findTemporalServer(
  env: NodeJS.ProcessEnv = process.env,
): TemporalServerBinaries | { missing: string } {
  const cacheDir = path.join(
    env.BOOKSYNC_CACHE || path.join(homedir(), '.cache', 'booksync'),
    `temporal-server-${temporalServerVersion}`,
  );
  const server = env.TEMPORAL_SERVER_PATH || path.join(cacheDir, 'temporal-server');
  const sqlTool = env.TEMPORAL_SQL_TOOL_PATH || path.join(path.dirname(server), 'temporal-sql-tool');
  const schemaDir = env.TEMPORAL_SERVER_SCHEMA_DIR || path.join(path.dirname(server), 'schema');
  for (const [what, file] of [
    ['TEMPORAL_SERVER_PATH', server],
    ['TEMPORAL_SQL_TOOL_PATH', sqlTool],
  ] as const) {
    if (!isExecutable(file))
      return {
        missing: `no Temporal server binary at ${what}=${file}: run 'eval "$(bash scripts/obtain-temporal-server.sh)"' (builds it with go install)`,
      };
  }
  try {
    accessSync(path.join(schemaDir, 'postgresql', 'v12', 'temporal', 'versioned'));
  } catch {
    return { missing: `no Temporal schema files in TEMPORAL_SERVER_SCHEMA_DIR=${schemaDir}` };
  }
  return { server, sqlTool, schemaDir };
}

export interface RealTemporalServer {
  /** The frontend's gRPC address, host:port on 127.0.0.1. */
  address: string;
  namespace: string;
  /** A client connection to the frontend, closed by stop(). */
  connection: Connection;
  postgres: PostgresCluster;
  /** The log the server and its schema tool write, under test/.artifacts. */
  logFile: string;
  /** Milliseconds from spawning the server to the namespace answering (schema set-up not included). */
  startupMs: number;
  stop(): Promise<void>;
}

export interface StartTemporalServerOptions {
  /** Names the log file (test/.artifacts/<name>.log) and the temporary folders. */
  name?: string;
  binaries?: TemporalServerBinaries;
  /** Dynamic config values (key: value), written to the server's dynamic config file. */
  dynamicConfig?: Record<string, unknown>;
}

/** PostgreSQL, the two schemas, and a Temporal server with a `default` namespace, answering on loopback. */
export async function startTemporalServer(
  options: StartTemporalServerOptions = {},
): Promise<RealTemporalServer> {
  const name = options.name ?? 'temporal-server';
  const begun = Date.now();
  const found = options.binaries ?? findTemporalServer();
  if ('missing' in found) throw new Error(found.missing);
  mkdirSync(artifacts, { recursive: true });
  const logFile = path.join(artifacts, `${name}.log`);
  writeFileSync(logFile, '');
  const dir = mkdtempSync(path.join(tmpdir(), `booksync-${name}-`));
  let postgres: PostgresCluster | undefined;
  let child: ChildProcess | undefined;
  let connection: Connection | undefined;

  const stop = async () => {
    await connection?.close().catch(() => {});
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(10_000).then(() => child?.kill('SIGKILL'))]);
    }
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    postgres = await startPostgres({ name });
    await setUpSchemas(found, postgres, logFile);
    // Below 32768: the PostgreSQL schema keeps a member's port in cluster_membership.rpc_port, a SMALLINT,
    // and a port from the kernel's ephemeral range (32768-60999) stops the server at start ("value out of
    // range for type smallint", unable to initialize membership heartbeats).
    const port = () => freeLowPort();
    const ports = {
      frontend: await port(),
      frontendHttp: await port(),
      frontendMembership: await port(),
      history: await port(),
      historyMembership: await port(),
      matching: await port(),
      matchingMembership: await port(),
      worker: await port(),
      workerMembership: await port(),
    };
    const address = `127.0.0.1:${ports.frontend}`;
    let dynamicConfigFile: string | undefined;
    if (options.dynamicConfig && Object.keys(options.dynamicConfig).length > 0) {
      dynamicConfigFile = path.join(dir, 'dynamicconfig.yaml');
      writeFileSync(dynamicConfigFile, dynamicConfigYaml(options.dynamicConfig));
    }
    mkdirSync(path.join(dir, 'config'));
    writeFileSync(
      path.join(dir, 'config', 'booksync.yaml'),
      serverConfigYaml({ postgresPort: postgres.port, ports, dynamicConfigFile }),
    );

    const log = openSync(logFile, 'a');
    const started = Date.now();
    try {
      // v1.29's flags: the config is <root>/<config>/<env>.yaml.
      child = spawn(
        'setpriv',
        withParentDeath(
          [
            found.server,
            '--root',
            dir,
            '--config',
            'config',
            '--env',
            'booksync',
            '--allow-no-auth',
            'start',
          ],
          false,
        ),
        { stdio: ['ignore', log, log] },
      );
    } finally {
      closeSync(log);
    }
    const server = child;
    const exited = new Promise<never>((_, reject) =>
      server.once('exit', (code, signal) =>
        reject(new Error(`the Temporal server exited (${code ?? signal}) at start; see ${logFile}`)),
      ),
    );
    exited.catch(() => {});
    await Promise.race([
      exited,
      waitFor(
        `the Temporal server's frontend on ${address} (log: ${logFile})`,
        async () => {
          connection ??= await Connection.connect({ address, connectTimeout: 1_000 });
          await connection.workflowService.getSystemInfo({});
          return true;
        },
        120_000,
        250,
      ),
    ]);
    const conn = connection as unknown as Connection;
    const namespace = 'default';
    try {
      await conn.workflowService.registerNamespace({
        namespace,
        workflowExecutionRetentionPeriod: msToTs('1 day'),
      });
    } catch (error) {
      if ((error as { code?: number }).code !== 6 /* ALREADY_EXISTS */) throw error;
    }
    // Every service caches namespaces; wait until the frontend serves it, visibility included.
    await waitFor(
      `namespace ${namespace} on ${address}`,
      () =>
        conn.workflowService
          .countWorkflowExecutions({ namespace, query: '' })
          .then(() => true)
          .catch(() => false),
      60_000,
      250,
    );
    const startupMs = Date.now() - started;
    writeFileSync(
      logFile,
      `\n[booksync test] PostgreSQL and both schemas in ${started - begun} ms; the server's frontend and namespace '${namespace}' ready ${startupMs} ms after spawn\n`,
      { flag: 'a' },
    );
    return { address, namespace, connection: conn, postgres, logFile, startupMs, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** `temporal` and `temporal_visibility`, each set up at 0.0 then updated to the newest versioned schema. */
async function setUpSchemas(
  binaries: TemporalServerBinaries,
  postgres: PostgresCluster,
  logFile: string,
): Promise<void> {
  for (const [database, schema] of [
    ['temporal', 'temporal'],
    ['temporal_visibility', 'visibility'],
  ] as const) {
    await postgres.createDatabase(database);
    const connect = [
      '--plugin',
      'postgres12',
      '--endpoint',
      postgres.host,
      '--port',
      String(postgres.port),
      '--user',
      'postgres',
      '--database',
      database,
    ];
    const versioned = path.join(binaries.schemaDir, 'postgresql', 'v12', schema, 'versioned');
    for (const command of [
      ['setup-schema', '--version', '0.0'],
      ['update-schema', '--schema-dir', versioned],
    ]) {
      const args = [...connect, ...command];
      try {
        const { stdout, stderr } = await execFileAsync(binaries.sqlTool, args, {
          maxBuffer: 16 * 1024 * 1024,
        });
        writeFileSync(logFile, `$ temporal-sql-tool ${args.join(' ')}\n${stdout}${stderr}`, { flag: 'a' });
      } catch (error) {
        const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
        writeFileSync(logFile, `$ temporal-sql-tool ${args.join(' ')}\n${stdout}${stderr}`, { flag: 'a' });
        throw new Error(
          `temporal-sql-tool ${command[0]} on ${database} failed; see ${logFile}\n${stderr.slice(-2000)}`,
        );
      }
    }
  }
}

interface Ports {
  frontend: number;
  frontendHttp: number;
  frontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
}

/**
 * The server's static config, after the module's config/development-postgres12.yaml: the default store and
 * SQL visibility on PostgreSQL (postgres12 plugin, trust authentication as `postgres`), every service on
 * 127.0.0.1 and a port of its own, archival off, no metrics or pprof listener, dynamic config only when
 * given (the server's defaults otherwise).
 */
function serverConfigYaml(c: { postgresPort: number; ports: Ports; dynamicConfigFile?: string }): string {
  const store = (database: string, maxConns: number) => `
      sql:
        pluginName: "postgres12"
        databaseName: "${database}"
        connectAddr: "127.0.0.1:${c.postgresPort}"
        connectProtocol: "tcp"
        user: "postgres"
        password: ""
        maxConns: ${maxConns}
        maxIdleConns: ${maxConns}
        maxConnLifetime: "1h"`;
  const service = (grpc: number, membership: number, http?: number) => `
    rpc:
      grpcPort: ${grpc}
      membershipPort: ${membership}
      bindOnIP: "127.0.0.1"${http ? `\n      httpPort: ${http}` : ''}`;
  const { ports } = c;
  return `log:
  stdout: true
  level: info

persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: 4
  datastores:
    postgres-default:${store('temporal', 20)}
    postgres-visibility:${store('temporal_visibility', 10)}

global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "127.0.0.1"

services:
  frontend:${service(ports.frontend, ports.frontendMembership, ports.frontendHttp)}
  history:${service(ports.history, ports.historyMembership)}
  matching:${service(ports.matching, ports.matchingMembership)}
  worker:${service(ports.worker, ports.workerMembership)}

clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: "active"
  currentClusterName: "active"
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: "frontend"
      rpcAddress: "127.0.0.1:${ports.frontend}"
      httpAddress: "127.0.0.1:${ports.frontendHttp}"

dcRedirectionPolicy:
  policy: "noop"

archival:
  history:
    state: "disabled"
  visibility:
    state: "disabled"

namespaceDefaults:
  archival:
    history:
      state: "disabled"
    visibility:
      state: "disabled"

publicClient:
  hostPort: "127.0.0.1:${ports.frontend}"
${c.dynamicConfigFile ? `\ndynamicConfigClient:\n  filepath: "${c.dynamicConfigFile}"\n  pollInterval: "10s"\n` : ''}`;
}

/** A free loopback port in 20000-32767 (outside the kernel's ephemeral range that freePort() draws from). */
async function freeLowPort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const candidate = 20_000 + Math.floor(Math.random() * 12_768);
    if (taken.has(candidate)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen(candidate, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) {
      taken.add(candidate);
      return candidate;
    }
  }
  throw new Error('no free port in 20000-32767 on 127.0.0.1');
}
const taken = new Set<number>();

function dynamicConfigYaml(values: Record<string, unknown>): string {
  const lines = ['# booksync test server: dynamic config (test/support/temporal-server.ts)'];
  for (const [key, value] of Object.entries(values)) {
    lines.push(`${key}:`, `  - value: ${JSON.stringify(value)}`, '    constraints: {}');
  }
  return `${lines.join('\n')}\n`;
}
