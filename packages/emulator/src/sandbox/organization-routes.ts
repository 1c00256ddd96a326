import { PERMISSIONS, percent } from '@booksync/service-contract/schemas/index';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { authenticateAdmin } from '../auth/authenticate.js';
import { createOrganization } from '../auth/organizations.js';
import type { RouteDeps } from '../routes/deps.js';
import { parseInput } from '../routes/input.js';

// Sandbox-only input (no service resource): the shape of a new organization.
const NewOrganizationBody = z.object({
  name: z.string().min(1),
  feePassthroughPercent: percent.optional(),
  achEnabled: z.boolean().optional(),
  creditCardEnabled: z.boolean().optional(),
  bankingActive: z.boolean().optional(),
  members: z
    .array(
      z.object({
        name: z.string().min(1),
        restApiAccess: z.boolean().optional(),
        permissions: z.array(z.enum(PERMISSIONS)).optional(),
        apiKeys: z.int().min(0).max(10).optional(),
      }),
    )
    .optional(),
});

/** Decision “Sandbox controls”: authenticated by the admin token (like clock moves, E17), not an API key; answers the keys once. */
export function organizationRoutes(app: FastifyInstance, { store, adminToken }: RouteDeps): void {
  app.post('/sandbox/organizations', { onRequest: authenticateAdmin(adminToken) }, async (request, reply) => {
    const input = parseInput(NewOrganizationBody, request.body);
    const created = store.write((tx) => createOrganization(tx, input));
    request.log.info({ orgId: created.organization.id }, 'organization created');
    return reply.code(201).send(created);
  });
}
