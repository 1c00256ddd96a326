import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EmulatorHttpError } from '../errors.js';
import type { Store } from '../store/store.js';
import { findPrincipalByKey, type Principal } from './organizations.js';
import type { Permission } from './permissions.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1];
}

const unauthorized = () => new EmulatorHttpError(401, 'missing or unknown bearer API key');

/** Part 5 rules 1 and 3: 401 without a known key, 403 with no code when the member has no REST access. */
export function authenticateApiKey(store: Store) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const key = bearerOf(request);
    if (key === undefined) throw unauthorized();
    const principal = store.read((reader) => findPrincipalByKey(reader, key));
    if (!principal) throw unauthorized();
    if (principal.member.rest_api_access !== 1) {
      throw new EmulatorHttpError(403, 'this API key has no REST API access');
    }
    request.principal = principal;
    request.log = request.log.child({ orgId: principal.org.id });
  };
}

/**
 * The paths the emulator's admin token guards instead of an API key (decision “Sandbox controls”, E17): creating organizations and
 * moving the clock every organization shares. The API-key hook lets exactly these through to their own check.
 */
export const ADMIN_PATHS: ReadonlySet<string> = new Set(['/sandbox/organizations', '/sandbox/clock/advance']);

/** The admin token of ADMIN_PATHS, compared in constant time. */
export function authenticateAdmin(adminToken: string | undefined) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const given = bearerOf(request);
    if (!adminToken || given === undefined)
      throw new EmulatorHttpError(401, 'missing or unknown admin token');
    const a = Buffer.from(given);
    const b = Buffer.from(adminToken);
    if (a.length !== b.length || !timingSafeEqual(a, b))
      throw new EmulatorHttpError(401, 'missing or unknown admin token');
  };
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new EmulatorHttpError(401, 'missing or unknown bearer API key');
  return request.principal;
}

export function orgIdOf(request: FastifyRequest): string {
  return principalOf(request).org.id;
}

/** Part 5 rule 4 and decision “Team members and permissions”: checked before any permission. */
export function requireActiveBanking(request: FastifyRequest): void {
  if (principalOf(request).org.banking_active !== 1) {
    throw new EmulatorHttpError(
      403,
      'the organization has no active banking account',
      'SERVICE_BANKING_NOT_ACTIVE',
    );
  }
}

/** Part 5 rule 5: the message names the permission. */
export function requirePermission(request: FastifyRequest, permission: Permission): void {
  if (!principalOf(request).permissions.includes(permission)) {
    throw new EmulatorHttpError(403, `missing permission ${permission}`, 'MISSING_PERMISSION');
  }
}
