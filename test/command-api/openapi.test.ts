import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { commandRoutes } from '../../src/command-api/contract.js';
import { commandApiOpenApiDocument } from '../../src/command-api/openapi-document.js';
import { createIngress } from '../../src/ingress/server.js';

// The command API's OpenAPI document is generated from the command API plugin alone (no ingress); the copy
// in docs/ must be what the ingress's /commands/openapi.json answers (regenerate with `npm run docs:command-api`).

const committed = readFileSync(new URL('../../docs/command-api.openapi.json', import.meta.url), 'utf8');

describe('the command API OpenAPI document', () => {
  it('docs/command-api.openapi.json is current', async () => {
    expect(committed).toBe(await commandApiOpenApiDocument());
  });

  it('is what the ingress serves at /commands/openapi.json, and only with the key', async () => {
    const apiKey = 'openapi-test-key';
    const app = createIngress({
      temporalClient: new Client(),
      taskQueue: 'openapi-test',
      webhookSecrets: ['whsec_openapi_test'],
      commandApiKey: apiKey,
    });
    try {
      const url = '/commands/openapi.json';
      const served = await app.inject({ url, headers: { authorization: `Bearer ${apiKey}` } });
      expect(served.statusCode).toBe(200);
      expect(`${JSON.stringify(served.json(), null, 2)}\n`).toBe(committed);
      expect((await app.inject({ url })).statusCode).toBe(401);
    } finally {
      await app.close();
    }
  });

  it('is valid OpenAPI 3.1 and lists every route of the contract with its answers', async () => {
    const document = JSON.parse(committed) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    for (const route of Object.values(commandRoutes)) {
      const path = route.url.replace(/:(\w+)/g, '{$1}');
      const operation = document.paths[path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${path}`).toBeDefined();
      expect(Object.keys(operation?.responses ?? {}).sort()).toEqual(Object.keys(route.response).sort());
    }
  });
});
