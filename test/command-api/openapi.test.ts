import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { commandRoutes } from '../../src/command-api/contract.js';
import { commandApiOpenApiDocument } from '../../src/command-api/openapi-document.js';

// The command API's OpenAPI document is generated from the route schemas the ingress serves with; the copy
// in docs/ must be what /commands/openapi.json answers (regenerate with `npm run docs:command-api`).

const committed = readFileSync(new URL('../../docs/command-api.openapi.json', import.meta.url), 'utf8');

describe('the command API OpenAPI document', () => {
  it('docs/command-api.openapi.json is current', async () => {
    expect(committed).toBe(await commandApiOpenApiDocument());
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
