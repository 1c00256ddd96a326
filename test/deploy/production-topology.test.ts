import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { SandboxClient } from '@booksync/emulator/sandbox-client';
import type { Payment } from '@booksync/service-contract/schemas/index';
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentWorkflowId } from '../../src/flows/payment/contract.js';
import { type AccountName, Accounts } from '../../src/ledger/chart-of-accounts.js';
import { PostgresLedger } from '../../src/ledger/postgres-ledger.js';
import { ServiceClient } from '../../src/service/client.js';
import { actualEntries, cardFee, ExpectedBooks } from '../e2e/expected-books.js';
import { snapshotOf } from '../support/books-snapshot.js';
import {
  type ComposeService,
  composeServices,
  nativeCommand,
  serviceEnvironment,
} from '../support/compose-file.js';
import { freePort } from '../support/free-port.js';
import { hledgerCheck } from '../support/hledger.js';
import {
  findTemporalServer,
  type RealTemporalServer,
  startTemporalServer,
} from '../support/temporal-server.js';
import { waitFor } from '../support/wait-for.js';
import { redeliverEverything } from '../support/webhook-redelivery.js';

// The production topology, run natively because no container engine runs here. A real
// Temporal server (go.temporal.io/server on PostgreSQL), and booksync's services started from
// docker-compose.yml's own commands and environments: `booksync temporal setup` once, then the emulator, the
// ingress and THREE workers, each its own OS process sharing the books in PostgreSQL (LEDGER_URL). Only what
// a container has differently is replaced: host names (temporal, postgresql, emulator) by loopback
// addresses, ports by free ones, the /data volumes by temporary folders.
//
// 300 payments (240 by card, 60 by ACH) while worker 1 is SIGKILLed and started again and worker 2 stops
// gracefully; every event then delivered twice more, shuffled. The books in PostgreSQL must equal the
// books computed by hand (test/e2e/expected-books.ts: 0 lost, 0 twice), `hledger check -s` must pass on
// their export, and the Temporal UI's query SyncState="IN_RETURN_WINDOW" must list the 60 ACH payments.

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = path.join(root, 'bin', 'booksync.js');
const artifacts = path.join(root, 'test', '.artifacts', 'topology');
const found = findTemporalServer();
const missing = 'missing' in found ? found.missing : undefined;
const inCi = Boolean(process.env.CI) && process.env.CI !== 'false';
const hledger = spawnSync('hledger', ['--version']).status === 0;

const CARD = 240;
const ACH = 60;
const title =
  'the production topology from docker-compose.yml, natively: real Temporal, PostgreSQL books, 3 workers';

if (missing && inCi) {
  it(`${title}: the Temporal server's binaries are there (CI=true)`, () => {
    throw new Error(missing);
  });
} else if (missing) {
  console.warn(`test/deploy/production-topology.test.ts skipped: ${missing}`);
}

/** One booksync service as an OS process (its own process group), its output in test/.artifacts/topology. */
class ServiceProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly log: WriteStream;

  readonly name: string;
  constructor(name: string, command: readonly string[], env: Record<string, string>) {
    this.name = name;
    mkdirSync(artifacts, { recursive: true });
    this.log = createWriteStream(path.join(artifacts, `${name}.log`));
    this.child = spawn(process.execPath, [bin, ...command], {
      cwd: env.BOOKSYNC_DATA_DIR ?? root,
      // Exactly the service's environment, as in its container, plus where to find programs.
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.child.stdout?.pipe(this.log, { end: false });
    this.child.stderr?.pipe(this.log, { end: false });
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        this.log.end();
        resolve({ code, signal });
      }),
    );
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  signal(signal: NodeJS.Signals): void {
    try {
      process.kill(-(this.child.pid as number), signal);
    } catch {
      // already gone
    }
  }

  output(): string {
    try {
      return readFileSync(path.join(artifacts, `${this.name}.log`), 'utf8').slice(-4_000);
    } catch {
      return '';
    }
  }

  async untilHealthy(url: string, timeoutMs = 180_000): Promise<void> {
    await waitFor(
      `${this.name} at ${url}`,
      async () => {
        if (!this.running) throw new Error(`${this.name} exited:\n${this.output()}`);
        return (await fetch(url).catch(() => null))?.status === 200;
      },
      timeoutMs,
      250,
    );
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 40_000) {
    if (this.running) {
      this.signal(signal);
      const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
      const result = await this.exited;
      clearTimeout(timer);
      return result;
    }
    return this.exited;
  }
}

describe.skipIf(missing !== undefined)(title, () => {
  const services = composeServices();
  const dir = mkdtempSync(path.join(tmpdir(), 'booksync-topology-'));
  const variables = {
    COMMAND_API_KEY: 'topology-command-api-key',
    EMULATOR_ADMIN_TOKEN: 'topology-emulator-admin-token',
    TEMPORAL_DB_PASSWORD: 'topology-db-password',
    BOOKSYNC_DB_PASSWORD: 'topology-booksync-db-password',
    SERVICE_API_KEY: '',
    WEBHOOK_SECRETS: '',
    // A fresh key each run, as an operator's secret store hands it over (never in the repository).
    PAYLOAD_KEYS: `topology=${randomBytes(32).toString('base64')}`,
  };
  const processes: ServiceProcess[] = [];
  let server: RealTemporalServer;
  let client: Client;
  let ledger: PostgresLedger;
  let service: ServiceClient;
  let sandbox: SandboxClient;
  let emulatorUrl: string;
  let ingressPort: number;
  let ledgerUrl: string;

  /** What a container has differently from this machine: where the other services are, and its ports. */
  function native(name: string, overrides: Record<string, string>): Record<string, string> {
    const composed = serviceEnvironment(services[name] as ComposeService, variables);
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(composed)) {
      env[key] = value
        .replace('temporal:7233', server.address)
        .replace('http://emulator:4010', emulatorUrl ?? '')
        .replace('@postgresql:5432/', `@127.0.0.1:${server.postgres.port}/`)
        .replace(/^0\.0\.0\.0$/, '127.0.0.1');
    }
    return { ...env, ...overrides };
  }

  function start(name: string, compose: string, overrides: Record<string, string>): ServiceProcess {
    const started = new ServiceProcess(name, services[compose]!.command!, native(compose, overrides));
    processes.push(started);
    return started;
  }

  async function startWorker(n: number): Promise<ServiceProcess> {
    const port = await freePort();
    const worker = start(`worker-${n}`, 'worker', {
      BOOKSYNC_DATA_DIR: path.join(dir, 'booksync-data'),
      METRICS_PORT: String(port),
      LOG_LEVEL: 'debug',
    });
    await worker.untilHealthy(`http://127.0.0.1:${port}/readyz`);
    return worker;
  }

  beforeAll(async () => {
    server = await startTemporalServer({ name: 'topology-temporal-server' });
    client = new Client({ connection: server.connection, namespace: server.namespace });
    // docker-compose.yml's booksync-database job: the `booksync` role and the database the workers'
    // LEDGER_URL names, made by the job's own script, as the cluster's superuser (`postgres` here).
    const job = services['booksync-database']!;
    const [psql, ...psqlArgs] = nativeCommand(job);
    const made = spawnSync(psql!, psqlArgs, {
      env: {
        PATH: process.env.PATH ?? '',
        ...native('booksync-database', {
          PGHOST: server.postgres.host,
          PGPORT: String(server.postgres.port),
          PGUSER: 'postgres',
        }),
      },
      encoding: 'utf8',
    });
    expect(made.status, made.stderr).toBe(0);

    for (const volume of ['booksync-data', 'ingress-data', 'emulator-data']) {
      mkdirSync(path.join(dir, volume), { recursive: true, mode: 0o700 });
    }

    // The sandbox profile's emulator; the worker's SERVICE_API_KEY is its demo key, as an operator reads it.
    const emulatorPort = await freePort();
    emulatorUrl = `http://127.0.0.1:${emulatorPort}`;
    const emulator = start('emulator', 'emulator', {
      BOOKSYNC_DATA_DIR: path.join(dir, 'emulator-data'),
      EMULATOR_PORT: String(emulatorPort),
    });
    await emulator.untilHealthy(`${emulatorUrl}/healthz`);
    const credentials = JSON.parse(
      readFileSync(path.join(dir, 'emulator-data', 'embedded-credentials.json'), 'utf8'),
    ) as { apiKey: string };
    variables.SERVICE_API_KEY = credentials.apiKey;
    ledgerUrl = native('worker', {}).LEDGER_URL ?? '';
    service = new ServiceClient({ baseUrl: emulatorUrl, apiKey: credentials.apiKey, timeoutMs: 30_000 });
    sandbox = new SandboxClient({
      baseUrl: emulatorUrl,
      apiKey: credentials.apiKey,
      adminToken: variables.EMULATOR_ADMIN_TOKEN,
    });

    ingressPort = await freePort();
    const subscription = await service.createWebhook({
      url: `http://127.0.0.1:${ingressPort}/webhooks/service`,
    });
    variables.WEBHOOK_SECRETS = subscription.secret ?? '';

    // The one-shot job compose runs before the workers and the ingress: nothing is pre-registered.
    const setup = start('booksync-setup', 'booksync-setup', {});
    expect((await setup.exited).code, setup.output()).toBe(0);

    const ingress = start('ingress', 'ingress', {
      BOOKSYNC_DATA_DIR: path.join(dir, 'ingress-data'),
      INGRESS_PORT: String(ingressPort),
      OPS_PORT: String(await freePort()),
    });
    await ingress.untilHealthy(`http://127.0.0.1:${ingressPort}/readyz`);
  }, 600_000);

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGTERM', 10_000)));
    await ledger?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('books 300 payments exactly once through a SIGKILL, a graceful stop and duplicated deliveries', async () => {
    const workers = [await startWorker(1), await startWorker(2), await startWorker(3)];

    const links: { id: string; amount: number; method: 'Card' | 'ACH' }[] = [];
    for (let i = 0; i < CARD + ACH; i++) {
      const amount = 10_000 + i * 7;
      const link = await service.createPaymentLink({ name: `TOPO-${i}`, requestedAmountCents: amount });
      links.push({ id: link.id, amount, method: i < CARD ? 'Card' : 'ACH' });
    }
    // Card and ACH interleaved, so both kinds are in flight when the workers go down.
    const order = links.map((_, i) => i).sort((a, b) => (a % 5) - (b % 5) || a - b);

    const payments: Payment[] = [];
    const pay = async (index: number) => {
      const link = links[index]!;
      payments.push(await sandbox.payLink(link.id, link.method));
    };
    let next = 0;
    const payUntil = async (count: number) => {
      const inFlight = Array.from({ length: 6 }, async () => {
        while (next < count) await pay(order[next++]!);
      });
      await Promise.all(inFlight);
    };

    await payUntil(100);
    // Worker 1 dies mid-work: no drain, activities cut off; its workflow tasks time out to the others.
    workers[0]!.signal('SIGKILL');
    expect((await workers[0]!.exited).signal).toBe('SIGKILL');
    await payUntil(200);
    // Worker 2 is stopped as `docker compose stop` does (SIGTERM, within stop_grace_period): it drains.
    const graceful = await workers[1]!.stop('SIGTERM', 35_000);
    expect(graceful, workers[1]!.output()).toEqual({ code: 0, signal: null });
    workers[0] = await startWorker(4);
    await payUntil(links.length);
    expect(payments).toHaveLength(300);

    // Everything the service sent, delivered twice more in a shuffled order.
    const redelivered = await redeliverEverything({
      sandbox,
      ingressUrl: `http://127.0.0.1:${ingressPort}`,
      secret: variables.WEBHOOK_SECRETS,
      times: 2,
      seed: 19,
    });
    expect(redelivered).toBeGreaterThanOrEqual(300);

    // Written down by hand (expected-books.ts): each link's invoice, each payment, each absorbed card fee.
    const expected = new ExpectedBooks();
    const byLink = new Map(links.map((l) => [l.id, l]));
    for (const payment of payments) {
      const link = byLink.get(payment.paymentLinkId as string)!;
      expected.invoice(link.id, link.amount);
      expected.payment(
        payment.id,
        link.amount,
        link.method === 'Card' ? cardFee(link.amount, 0).platformFee : 0,
      );
    }

    ledger = await PostgresLedger.open({ url: ledgerUrl });
    const books = async () => {
      const balances: Partial<Record<AccountName, number>> = {};
      for (const b of await ledger.balances()) balances[b.account] = b.balanceCents;
      return snapshotOf(await ledger.allEntries(), balances);
    };
    await waitFor(
      'every expected entry in the PostgreSQL ledger',
      async () => (await ledger.allEntries()).length >= expected.entries.size,
      300_000,
      1_000,
    );
    // Let the duplicates drain through the workers: nothing more may be booked of them.
    await sleep(10_000);
    const final = await books();
    expect(actualEntries(final)).toEqual(expected.entries);
    expect(final.balances).toEqual(expected.balances());
    expect(final.balances[Accounts.AccountsReceivable]).toBe(0);
    expect(final.balanced).toBe(true);

    if (hledger) await hledgerCheck(ledger, dir, expected.balances());

    // The Temporal UI's question, answered by the real server's SQL visibility.
    const achPayments = payments.filter((p) => byLink.get(p.paymentLinkId as string)!.method === 'ACH');
    const open = await waitFor(
      'the ACH payments listed IN_RETURN_WINDOW',
      async () => {
        const ids: string[] = [];
        for await (const w of client.workflow.list({ query: 'SyncState="IN_RETURN_WINDOW"' }))
          ids.push(w.workflowId);
        return ids.length >= ACH ? ids : undefined;
      },
      120_000,
      1_000,
    );
    expect(open.sort()).toEqual(achPayments.map((p) => paymentWorkflowId(p.id)).sort());

    // Temporal's own tables after the day: the histories and the workflows' state hold no invoice
    // (a payment link's name, TOPO-n) anywhere, payloads being encrypted with PAYLOAD_KEYS. The scan reads
    // the stored blobs as they are: the activities' names, which Temporal keeps in plain, are found.
    const occurrences = async (table: string, text: string) =>
      Number(
        (
          await server.postgres.psql(
            `SELECT count(*) FROM ${table} WHERE position(convert_to('${text}', 'UTF8') in data) > 0`,
            'temporal',
          )
        ).trim(),
      );
    expect(await occurrences('history_node', 'syncPayment')).toBeGreaterThan(0);
    expect({
      history: await occurrences('history_node', 'TOPO-'),
      executions: await occurrences('executions', 'TOPO-'),
    }).toEqual({ history: 0, executions: 0 });

    // Both surviving workers and the restarted one stop cleanly.
    for (const worker of [workers[0]!, workers[2]!]) {
      expect(await worker.stop('SIGTERM', 35_000), worker.output()).toEqual({ code: 0, signal: null });
    }
  }, 1_200_000);

  it.runIf(!hledger)('skips the hledger check only where hledger is not installed', () => {
    expect(inCi, 'CI installs hledger').toBe(false);
  });
});
