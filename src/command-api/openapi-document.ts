import { Client } from '@temporalio/client';
import Fastify from 'fastify';
import { commandRoutes } from './routes.js';

// The command API's OpenAPI document for `npm run docs:command-api` and the test that keeps
// docs/command-api.openapi.json current: the command API plugin alone on a bare Fastify, no ingress. The
// running ingress mounts the same plugin, so GET /commands/openapi.json serves this very document. Apart
// from openapi.ts, which the routes import for their schemas.

/** The document as the command API serves it; nothing reaches Temporal (the client connects lazily). */
export async function commandApiOpenApiDocument(): Promise<string> {
  const apiKey = 'openapi-document-only-key';
  const app = Fastify();
  await app.register(commandRoutes, {
    temporalClient: new Client(),
    taskQueue: 'openapi',
    apiKey,
    signalTimeoutMs: 1_000,
  });
  try {
    const response = await app.inject({
      method: 'GET',
      url: '/commands/openapi.json',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    if (response.statusCode !== 200)
      throw new Error(`/commands/openapi.json answered ${response.statusCode}`);
    return `${JSON.stringify(response.json(), null, 2)}\n`;
  } finally {
    await app.close();
  }
}
