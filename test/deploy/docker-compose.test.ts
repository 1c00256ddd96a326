import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// No Docker engine runs here, so the stack is checked by structure and, where Debian's docker-compose
// is installed (.ci/run installs it), by its own `config` validation.
const compose = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as {
  services: Record<
    string,
    {
      image?: string;
      build?: string;
      command?: string[];
      depends_on?: Record<string, { condition: string }>;
      environment?: Record<string, string>;
      healthcheck?: { test: string[] };
      ports?: string[];
    }
  >;
};
const services = compose.services;

function hasDockerCompose(): boolean {
  try {
    execFileSync('docker-compose', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('docker-compose.yml', () => {
  it('has Temporal on PostgreSQL, the Temporal UI, and booksync worker, ingress and emulator', () => {
    expect(Object.keys(services).sort()).toEqual(
      ['emulator', 'ingress', 'postgresql', 'temporal', 'temporal-ui', 'worker'].sort(),
    );
    expect(services.temporal!.environment!.DB).toBe('postgres12');
    expect(services.temporal!.environment!.POSTGRES_SEEDS).toBe('postgresql');
  });

  it('wires every service to the others by name', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const dependency of Object.keys(service.depends_on ?? {})) {
        expect(services, `${name} depends on ${dependency}`).toHaveProperty(dependency);
        expect(service.depends_on![dependency]!.condition).toBe('service_healthy');
        expect(services[dependency]!.healthcheck, `${dependency} needs a healthcheck`).toBeDefined();
      }
    }
    for (const name of ['worker', 'ingress', 'emulator', 'temporal-ui']) {
      expect(services[name]!.environment!.TEMPORAL_ADDRESS, name).toBe('temporal:7233');
      expect(Object.keys(services[name]!.depends_on ?? {})).toContain('temporal');
    }
    expect(services.worker!.environment!.SERVICE_BASE_URL).toContain('http://emulator:4010');
  });

  it('builds booksync roles from the one Dockerfile, as CLI subcommands, with healthchecks', () => {
    expect(existsSync('Dockerfile')).toBe(true);
    const dockerfile = readFileSync('Dockerfile', 'utf8');
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^FROM .* AS deps$/m);
    for (const role of ['worker', 'ingress', 'emulator']) {
      expect(services[role]!.build).toBe('.');
      expect(services[role]!.command).toEqual([role]);
      expect(services[role]!.healthcheck).toBeDefined();
    }
  });

  it.runIf(hasDockerCompose())('passes docker-compose config validation', () => {
    const output = execFileSync('docker-compose', ['-f', 'docker-compose.yml', 'config', '--quiet'], {
      env: {
        ...process.env,
        SERVICE_API_KEY: 'test-key',
        WEBHOOK_SECRETS: 'whsec_test',
        COMMAND_API_KEY: 'test-command-key',
      },
      encoding: 'utf8',
    });
    expect(output.trim()).toBe('');
  });
});
