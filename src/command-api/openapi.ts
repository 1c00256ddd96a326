import { z } from 'zod';
import { type CommandRouteName, commandRoutes } from './contract.js';

// The route schemas as Fastify takes them (with fastify-type-provider-zod), and the OpenAPI document's
// header. `npm run docs:command-api` writes the document to docs/command-api.openapi.json; a test keeps it
// equal to what /commands/openapi.json serves.

type Route<N extends CommandRouteName> = (typeof commandRoutes)[N];

/** Every POST may carry one; the commands that record money require it (400 otherwise). */
const IdempotencyHeaders = z
  .object({
    'idempotency-key': z
      .string()
      .min(1)
      .max(255)
      .optional()
      .describe(
        'Binds a retry to the first request: the same key and request answer the first outcome again',
      ),
  })
  .loose();

export type RouteSchema<N extends CommandRouteName> = {
  summary: string;
  tags: string[];
  security: { bearer: string[] }[];
  params: Route<N>['params'];
  response: Route<N>['response'];
} & (Route<N> extends { body: infer B } ? { body: B; headers: typeof IdempotencyHeaders } : object);

export function schemaOf<N extends CommandRouteName>(name: N): RouteSchema<N> {
  const route = commandRoutes[name];
  return {
    summary: route.summary,
    tags: ['commands'],
    security: [{ bearer: [] }],
    params: route.params,
    response: route.response,
    ...('body' in route ? { body: route.body, headers: IdempotencyHeaders } : {}),
  } as RouteSchema<N>;
}

export const commandApiOpenApiInfo = {
  openapi: '3.1.0',
  info: {
    title: 'booksync command API',
    version: '1',
    description:
      "The business's commands to booksync's workflows. Commands that write money are Temporal Updates: the answer is the outcome, or 202 with where to ask for it.",
  },
  components: { securitySchemes: { bearer: { type: 'http' as const, scheme: 'bearer' } } },
};
