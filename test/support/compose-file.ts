import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

// docker-compose.yml as the tests read it: no container engine runs here, so booksync's services are run
// natively from the file's own commands and environments, with only what a container has differently
// (host names, ports, data folders) replaced.

export interface ComposeService {
  image?: string;
  build?: string;
  command?: string[];
  entrypoint?: string[];
  profiles?: string[];
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string | number>;
  healthcheck?: { test: string[] };
  ports?: string[];
  volumes?: string[];
  restart?: string;
  stop_grace_period?: string;
}

const file = fileURLToPath(new URL('../../docker-compose.yml', import.meta.url));
const composeDir = path.dirname(file);

export function composeServices(): Record<string, ComposeService> {
  return (parse(readFileSync(file, 'utf8'), { merge: true }) as { services: Record<string, ComposeService> })
    .services;
}

/** Compose's `${NAME}`, `${NAME:-default}`, `${NAME:?message}` and `$$`, against `variables`. */
export function interpolate(value: string | number, variables: Record<string, string | undefined>): string {
  return String(value).replace(
    /\$\$|\$\{([A-Z0-9_]+)(?:(:?[-?])([^}]*))?\}/g,
    (whole, name?: string, op?: string, arg?: string) => {
      if (whole === '$$') return '$';
      const set = variables[name!];
      const present = op?.startsWith(':') ? set !== undefined && set !== '' : set !== undefined;
      if (present) return set!;
      if (op?.endsWith('?')) throw new Error(`${name}: ${arg}`);
      return op?.endsWith('-') ? arg! : '';
    },
  );
}

/** A service's environment as compose would hand it to the container, given the .env `variables`. */
export function serviceEnvironment(
  service: ComposeService,
  variables: Record<string, string | undefined> = {},
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(v, variables)]),
  );
}

/**
 * The service's entrypoint and command as run here: a path a bind mount (`./host:/container`) puts in the
 * container is the host file it mounts.
 */
export function nativeCommand(service: ComposeService): string[] {
  const mounts = new Map(
    (service.volumes ?? [])
      .map((volume) => volume.split(':'))
      .filter(([host]) => host?.startsWith('./'))
      .map(([host, container]) => [container as string, path.join(composeDir, host as string)]),
  );
  return [...(service.entrypoint ?? []), ...(service.command ?? [])].map((arg) => mounts.get(arg) ?? arg);
}
