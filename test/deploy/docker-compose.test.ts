import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { settingsSchema } from '../../src/config/settings.js';
import { customAttributes, expectAllOfBooksyncs, startBareDevServer } from '../support/bare-dev-server.js';
import { composeServices, serviceEnvironment } from '../support/compose-file.js';
import { freePort } from '../support/free-port.js';
import { waitFor } from '../support/wait-for.js';

// No Docker engine runs here, so the stack is checked by structure, by running booksync's own services'
// commands with their environments natively where that needs nothing else (the sandbox emulator), and,
// where Debian's docker-compose is installed (.ci/run installs it), by its own `config` validation.

const services = composeServices();
const booksyncServices = Object.entries(services).filter(([, s]) => s.build === '.');
const bin = fileURLToPath(new URL('../../bin/booksync.js', import.meta.url));

/** What an operator's .env next to the compose file sets: every variable it requires. */
const variables = {
  TEMPORAL_DB_PASSWORD: 'temporal-pw',
  BOOKSYNC_DB_PASSWORD: 'booksync-pw',
  SERVICE_API_KEY: 'service-key',
  WEBHOOK_SECRETS: 'whsec_test',
  COMMAND_API_KEY: 'test-command-key',
  PAYLOAD_KEYS: `k1=${Buffer.alloc(32, 7).toString('base64')}`,
};

function hasDockerCompose(): boolean {
  try {
    execFileSync('docker-compose', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** "35s", "1m30s", "500ms" in seconds. */
function seconds(duration: string): number {
  let total = 0;
  for (const [, n, unit] of duration.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    total += Number(n) * { ms: 0.001, s: 1, m: 60, h: 3600 }[unit as 'ms' | 's' | 'm' | 'h'];
  }
  return total;
}

describe('docker-compose.yml', () => {
  it('has Temporal on PostgreSQL with its schema and namespace jobs, the Temporal UI, and booksync', () => {
    expect(Object.keys(services).sort()).toEqual(
      [
        'postgresql',
        'temporal-schema',
        'temporal',
        'temporal-namespace',
        'temporal-ui',
        'booksync-database',
        'booksync-setup',
        'worker',
        'ingress',
        'emulator',
      ].sort(),
    );
    expect(services.temporal!.environment!.DB).toBe('postgres12');
    expect(services.temporal!.environment!.POSTGRES_SEEDS).toBe('postgresql');
  });

  it("uses Temporal's maintained images: temporalio/server, the schema set up by admin-tools' SQL tool", () => {
    for (const [name, service] of Object.entries(services)) {
      expect(service.image ?? '', name).not.toMatch(/auto-setup/);
    }
    const version = /^temporalio\/server:(.+)$/.exec(services.temporal!.image ?? '')?.[1];
    expect(version).toBeDefined();
    // Schema and namespace jobs from the admin-tools of the same release as the server.
    expect(services['temporal-schema']!.image).toBe(`temporalio/admin-tools:${version}`);
    expect(services['temporal-namespace']!.image).toBe(`temporalio/admin-tools:${version}`);

    const schema = services['temporal-schema']!;
    expect(schema.environment).toMatchObject({ SQL_PLUGIN: 'postgres12', SQL_HOST: 'postgresql' });
    const script = [...(schema.entrypoint ?? []), ...(schema.command ?? [])].join(' ');
    for (const [db, dir] of [
      ['temporal', 'temporal'],
      ['temporal_visibility', 'visibility'],
    ] as const) {
      expect(script).toContain(`temporal-sql-tool --db ${db} create-database`);
      expect(script).toContain(`temporal-sql-tool --db ${db} setup-schema -v 0.0`);
      expect(script).toContain(
        `temporal-sql-tool --db ${db} update-schema -d /etc/temporal/schema/postgresql/v12/${dir}/versioned`,
      );
    }
    expect(services.temporal!.depends_on).toEqual({
      'temporal-schema': { condition: 'service_completed_successfully' },
    });
    expect(services['temporal-namespace']!.command!.join(' ')).toContain(
      'temporal operator namespace create',
    );
  });

  it('wires every service to the others by name, long-running ones healthy, one-shot jobs completed', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        expect(services, `${name} depends on ${dependency}`).toHaveProperty(dependency);
        const target = services[dependency]!;
        expect(target.profiles, `${name} cannot depend on a service of a profile`).toBeUndefined();
        if (condition === 'service_healthy') {
          expect(target.healthcheck, `${dependency} needs a healthcheck`).toBeDefined();
        } else {
          expect(condition, `${name} -> ${dependency}`).toBe('service_completed_successfully');
          // A one-shot job: runs once to completion, nothing published, never restarted after success.
          expect(target.restart ?? 'no', dependency).toBe('no');
          expect(target.ports, dependency).toBeUndefined();
        }
      }
    }
    for (const name of ['worker', 'ingress', 'booksync-setup', 'temporal-ui', 'temporal-namespace']) {
      expect(services[name]!.environment!.TEMPORAL_ADDRESS, name).toBe('temporal:7233');
    }
    expect(services.worker!.environment!.SERVICE_BASE_URL).toContain('http://emulator:4010');
  });

  it('has no default for any password: compose stops without TEMPORAL_DB_PASSWORD or BOOKSYNC_DB_PASSWORD', () => {
    const text = readFileSync('docker-compose.yml', 'utf8');
    const references = [...text.matchAll(/\$\{([A-Z0-9_]*PASSWORD[A-Z0-9_]*)(:?[-?]?)[^}]*\}/g)];
    expect(new Set(references.map(([, name]) => name))).toEqual(
      new Set(['TEMPORAL_DB_PASSWORD', 'BOOKSYNC_DB_PASSWORD']),
    );
    for (const [reference, , op] of references) expect(op, reference).toBe(':?');
    const users = {
      postgresql: ['TEMPORAL_DB_PASSWORD'],
      'temporal-schema': ['TEMPORAL_DB_PASSWORD'],
      temporal: ['TEMPORAL_DB_PASSWORD'],
      'booksync-database': ['TEMPORAL_DB_PASSWORD', 'BOOKSYNC_DB_PASSWORD'],
      worker: ['BOOKSYNC_DB_PASSWORD'],
    };
    for (const [name, needs] of Object.entries(users)) {
      for (const missing of needs) {
        expect(() => serviceEnvironment(services[name]!, { ...variables, [missing]: '' }), name).toThrow(
          `${missing}: set ${missing}`,
        );
      }
    }
  });

  it("keeps booksync's ledger and tokens under a role of its own, not Temporal's superuser", () => {
    const superuser = serviceEnvironment(services.postgresql!, variables).POSTGRES_USER;
    const ledger = new URL(serviceEnvironment(services.worker!, variables).LEDGER_URL!);
    expect(ledger.username).toBe('booksync');
    expect(ledger.username).not.toBe(superuser);
    expect(ledger.password).toBe('booksync-pw');
    expect(ledger.pathname).toBe('/booksync');
    // The database is not the superuser's from the first start: the job creates it for the role.
    expect(services.postgresql!.environment!.POSTGRES_DB).toBe('postgres');
    expect(services.worker!.depends_on?.['booksync-database']).toEqual({
      condition: 'service_completed_successfully',
    });
    // The ingress and the setup job reach no database.
    for (const name of ['ingress', 'booksync-setup']) {
      expect(JSON.stringify(serviceEnvironment(services[name]!, variables)), name).not.toMatch(
        /postgres|PASSWORD/i,
      );
    }
  });

  it("registers booksync's search attributes in a one-shot job the worker and ingress wait for", () => {
    const setup = services['booksync-setup']!;
    expect(setup.build).toBe('.');
    expect(setup.command).toEqual(['temporal', 'setup']);
    // After the namespace exists (which is after Temporal is up).
    expect(setup.depends_on).toEqual({
      'temporal-namespace': { condition: 'service_completed_successfully' },
    });
    for (const name of ['worker', 'ingress']) {
      expect(services[name]!.depends_on?.['booksync-setup'], name).toEqual({
        condition: 'service_completed_successfully',
      });
      // The same Temporal and namespace as the job registered them in.
      expect(services[name]!.environment!.TEMPORAL_NAMESPACE).toBe(setup.environment!.TEMPORAL_NAMESPACE);
    }
  });

  it("runs booksync-setup's own command and environment natively: a fresh Temporal gets booksync's search attributes", async () => {
    const setup = services['booksync-setup']!;
    const server = await startBareDevServer();
    const dir = mkdtempSync(path.join(tmpdir(), 'booksync-compose-setup-'));
    try {
      // Compose's defaults, and the one thing that differs here: where Temporal is.
      const environment = serviceEnvironment(setup);
      environment.TEMPORAL_ADDRESS = server.address;
      const output = execFileSync(process.execPath, [bin, ...setup.command!], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...environment },
        encoding: 'utf8',
      });
      expect(output).toMatch(/^registered \d+ of \d+ search attributes in namespace 'default'/);
      expectAllOfBooksyncs(await customAttributes(server));
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('builds booksync roles from the one Dockerfile, as CLI subcommands, with healthchecks', () => {
    expect(existsSync('Dockerfile')).toBe(true);
    const dockerfile = readFileSync('Dockerfile', 'utf8');
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^FROM .* AS deps$/m);
    for (const role of ['worker', 'ingress', 'emulator']) {
      expect(services[role]!.build).toBe('.');
      expect(services[role]!.command![0]).toBe(role);
      expect(services[role]!.healthcheck).toBeDefined();
    }
  });

  it('copies into the image only what the repository has, and everything the worker runs from', () => {
    const dockerfile = readFileSync('Dockerfile', 'utf8');
    // COPY <sources...> <destination>, from the build context (not another stage).
    const sources = [...dockerfile.matchAll(/^COPY (?!--from)(.+)$/gm)].flatMap((m) =>
      m[1]!.trim().split(/\s+/).slice(0, -1),
    );
    expect(sources.filter((source) => !existsSync(source))).toEqual([]);
    // bin/ starts src/ (the flows, the worker, the CLI), so both are in the image.
    expect(sources).toEqual(expect.arrayContaining(['bin', 'src', 'package.json']));
  });

  it("gives the worker and the ingress longer to stop than the worker's shutdown grace", () => {
    const source = readFileSync('src/runtime/worker/booksync-worker.ts', 'utf8');
    const grace = /shutdownGraceTime:\s*'([^']+)'/.exec(source)?.[1];
    expect(grace, 'shutdownGraceTime in src/runtime/worker/booksync-worker.ts').toBeDefined();
    for (const name of ['worker', 'ingress']) {
      const period = services[name]!.stop_grace_period;
      expect(period, `${name} stop_grace_period`).toBeDefined();
      // Docker's default is 10 s; the drain must fit, with time to close the ledger and connections after it.
      expect(seconds(period!), name).toBeGreaterThanOrEqual(seconds(grace!) + 10);
    }
  });

  it('sets only variables booksync reads on its services', () => {
    const known = new Set(Object.keys(settingsSchema.shape));
    for (const [name, service] of booksyncServices) {
      for (const variable of Object.keys(service.environment ?? {})) {
        expect(known.has(variable), `${name} sets ${variable}, which no setting reads`).toBe(true);
      }
    }
    // The emulator serves the service over HTTP on its own: no Temporal.
    expect(services.emulator!.environment).not.toHaveProperty('TEMPORAL_ADDRESS');
    expect(services.emulator!.depends_on).toBeUndefined();
    // The ingress talks to Temporal, not to the service.
    expect(services.ingress!.environment).not.toHaveProperty('SERVICE_API_KEY');
  });

  it('publishes to the internet only the webhook port; operations, Temporal, the UI and the emulator on loopback', () => {
    const published = Object.entries(services).flatMap(([name, s]) =>
      (s.ports ?? []).map((port) => ({ name, port })),
    );
    const open = published.filter(({ port }) => !port.startsWith('127.0.0.1:'));
    const ingress = services.ingress!.environment!;
    expect(open).toEqual([{ name: 'ingress', port: `${ingress.INGRESS_PORT}:${ingress.INGRESS_PORT}` }]);
    // The command API, /metrics and /events/unrouted have their own listener, published on loopback only.
    expect(ingress.OPS_PORT).toBeDefined();
    expect(ingress.OPS_PORT).not.toBe(ingress.INGRESS_PORT);
    expect(services.ingress!.ports).toContain(`127.0.0.1:${ingress.OPS_PORT}:${ingress.OPS_PORT}`);
  });

  describe('the sandbox emulator, run natively from its service command and environment', () => {
    const emulator = services.emulator!;
    const run = async (token: string | undefined) => {
      const dir = mkdtempSync(path.join(tmpdir(), 'booksync-compose-emulator-'));
      const port = await freePort();
      const environment = serviceEnvironment(
        emulator,
        token === undefined ? {} : { EMULATOR_ADMIN_TOKEN: token },
      );
      // Only what a container has differently: its data folder, and a free loopback port here.
      Object.assign(environment, {
        BOOKSYNC_DATA_DIR: dir,
        EMULATOR_HOST: '127.0.0.1',
        EMULATOR_PORT: String(port),
      });
      const child = spawn(process.execPath, [bin, ...emulator.command!], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...environment },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d: Buffer) => {
        output += d.toString();
      });
      child.stderr.on('data', (d: Buffer) => {
        output += d.toString();
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      return {
        port,
        child,
        exited,
        output: () => output,
        stop: async () => {
          if (child.exitCode === null) child.kill('SIGTERM');
          await exited;
          rmSync(dir, { recursive: true, force: true });
        },
      };
    };

    it('refuses to start without EMULATOR_ADMIN_TOKEN, or with one shorter than 16 characters', async () => {
      expect(emulator.profiles).toEqual(['sandbox']);
      for (const [token, message] of [
        [undefined, "booksync: EMULATOR_ADMIN_TOKEN: required by 'booksync emulator --require-admin-token'"],
        ['', "booksync: EMULATOR_ADMIN_TOKEN: required by 'booksync emulator --require-admin-token'"],
        ['fifteen-chars-x', 'booksync: EMULATOR_ADMIN_TOKEN: at least 16 characters'],
      ] as const) {
        const started = await run(token);
        const code = await started.exited;
        const output = started.output();
        await started.stop();
        expect(code, output).toBe(1);
        expect(output.trim().split('\n'), output).toHaveLength(1);
        expect(output).toContain(message);
      }
    });

    it('starts with a token of 16 characters or more, and its healthcheck URL answers without auth', async () => {
      const started = await run('a-sandbox-admin-token-0123');
      try {
        const health = emulator.healthcheck!.test.join(' ');
        expect(health).toContain('http://127.0.0.1:4010/healthz');
        const status = await waitFor(
          'the emulator healthy',
          async () => {
            if (started.child.exitCode !== null) throw new Error(`exited:\n${started.output()}`);
            const response = await fetch(`http://127.0.0.1:${started.port}/healthz`).catch(() => null);
            return response?.status;
          },
          60_000,
          200,
        );
        expect(status).toBe(200);
      } finally {
        await started.stop();
      }
    });
  });

  describe.runIf(hasDockerCompose())('docker-compose config validation', () => {
    const config = (args: string[], env: Record<string, string>) =>
      execFileSync('docker-compose', ['-f', 'docker-compose.yml', ...args, 'config', '--quiet'], {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });

    it('passes, with and without the sandbox profile, without EMULATOR_ADMIN_TOKEN when not in the sandbox', () => {
      expect(config([], variables).trim()).toBe('');
      expect(
        config(['--profile', 'sandbox'], {
          ...variables,
          EMULATOR_ADMIN_TOKEN: 'a-sandbox-admin-token-0123',
        }).trim(),
      ).toBe('');
    });

    it('stops on a missing secret of the worker or ingress, naming it', () => {
      expect(() => config([], { ...variables, COMMAND_API_KEY: '' })).toThrow(/set COMMAND_API_KEY/);
      expect(() => config([], { ...variables, PAYLOAD_KEYS: '' })).toThrow(/set PAYLOAD_KEYS/);
    });

    it('stops without either database password, naming it: there is no default password', () => {
      for (const name of ['TEMPORAL_DB_PASSWORD', 'BOOKSYNC_DB_PASSWORD']) {
        const { [name as keyof typeof variables]: _, ...without } = variables;
        expect(() => config([], without), name).toThrow(new RegExp(`set ${name}`));
        expect(() => config([], { ...variables, [name]: '' }), name).toThrow(new RegExp(`set ${name}`));
      }
    });
  });
});
