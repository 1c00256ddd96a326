import * as schemas from '@booksync/service-contract/schemas/index';
import { SIGNATURE_HEADER } from '@booksync/service-contract/webhook-signature';
import { z } from 'zod';
import { SERVICE_BASE_URLS } from './base-urls.js';
import type { Operation } from './operation.js';
import { operations, pathParams } from './operations.js';

// OpenAPI 3.1 document of the service, generated from the zod schemas and the operations table, so the
// document cannot drift from the client. Sandbox controls are the emulator's and are not part of it.

type JsonSchema = Record<string, unknown>;
export type OpenApiDocument = Record<string, unknown> & {
  openapi: string;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, JsonSchema> } & Record<string, unknown>;
};
export interface OpenApiOperation {
  operationId: string;
  parameters?: JsonSchema[];
  requestBody?: JsonSchema;
  responses: Record<string, { description: string; content?: Record<string, { schema: JsonSchema }> }>;
  [key: string]: unknown;
}

export const COMPONENT_REF_PREFIX = '#/components/schemas/';

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  400: 'Invalid input, or a rule of the operation refused it',
  401: 'Missing or unknown bearer token',
  403: 'No REST API access, SERVICE_BANKING_NOT_ACTIVE, or MISSING_PERMISSION (part 5)',
  404: 'Not found (or another organization’s object)',
  409: 'REFERENCE_CONFLICT or SHARED_ACCOUNT',
  413: 'Upload larger than 10 MiB',
  500: 'Internal error; may be a plain-text body',
};

/**
 * The named object schemas of src/service/schemas become components, under their export names. Query and
 * multipart field schemas are not bodies of their own: they become parameters and inline form schemas.
 */
function componentSchemas(): Map<z.ZodType, string> {
  const named = new Map<z.ZodType, string>();
  for (const [name, value] of Object.entries(schemas)) {
    if (!(value instanceof z.ZodObject) || !/^[A-Z]/.test(name)) continue;
    if (name.endsWith('Query') || name.endsWith('Fields')) continue;
    if (!named.has(value)) named.set(value, name);
  }
  return named;
}

function stripMeta(schema: JsonSchema): JsonSchema {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

function buildComponents(named: Map<z.ZodType, string>): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [schema, id] of named) registry.add(schema, { id });
  const { schemas: converted } = z.toJSONSchema(registry, {
    uri: (id) => `${COMPONENT_REF_PREFIX}${id}`,
    unrepresentable: 'throw',
  }) as { schemas: Record<string, JsonSchema> };
  return Object.fromEntries(
    Object.keys(converted)
      .sort()
      .map((key) => [key, stripMeta(converted[key] as JsonSchema)]),
  );
}

const ref = (name: string): JsonSchema => ({ $ref: `${COMPONENT_REF_PREFIX}${name}` });

function nameOf(named: Map<z.ZodType, string>, schema: z.ZodType): string {
  const name = named.get(schema);
  if (name === undefined)
    throw new Error('schema used by an operation is not exported from schemas/index.ts');
  return name;
}

function parameters(operation: Operation): JsonSchema[] {
  const result: JsonSchema[] = pathParams(operation.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    description: 'Opaque identifier (decision “Identifiers”)',
    schema: { type: 'string', minLength: 1 },
  }));
  if (operation.query) {
    for (const [name, field] of Object.entries(operation.query.shape)) {
      const schema = stripMeta(z.toJSONSchema(field as z.ZodType, { io: 'input' }) as JsonSchema);
      const required = !(field as z.ZodType).safeParse(undefined).success;
      result.push({ name, in: 'query', required, schema });
    }
  }
  return result;
}

function multipartSchema(operation: Operation): JsonSchema {
  const fields = stripMeta(
    z.toJSONSchema(operation.body?.schema as z.ZodType, { io: 'input' }) as JsonSchema,
  );
  const binary = { type: 'string', contentMediaType: 'application/octet-stream' };
  const files = operation.id === 'depositCheck' ? ['frontImage', 'backImage'] : ['file'];
  return {
    ...fields,
    properties: {
      ...(fields.properties as JsonSchema),
      ...Object.fromEntries(files.map((name) => [name, binary])),
    },
    required: [...((fields.required as string[] | undefined) ?? []), ...files],
  };
}

function errorResponse(status: number): OpenApiOperation['responses'][string] {
  const content: Record<string, { schema: JsonSchema }> = {
    'application/json': { schema: ref('ErrorBody') },
  };
  // Part 7: some 500 responses carry plain text instead of the JSON body.
  if (status >= 500) content['text/plain'] = { schema: { type: 'string' } };
  return { description: STATUS_TEXT[status] ?? 'Error', content };
}

function buildOperation(operation: Operation, named: Map<z.ZodType, string>): OpenApiOperation {
  const responses: OpenApiOperation['responses'] = {
    [String(operation.successStatus)]: {
      description: STATUS_TEXT[operation.successStatus] ?? 'Success',
      content: { 'application/json': { schema: ref(nameOf(named, operation.response)) } },
    },
  };
  if (operation.repeatStatus !== undefined) {
    responses[String(operation.repeatStatus)] = {
      description:
        'The same externalReferenceId for the same payment: the existing record, nothing recorded twice (decision “Reference rule”)',
      content: { 'application/json': { schema: ref(nameOf(named, operation.response)) } },
    };
  }
  for (const status of operation.errorStatuses) responses[String(status)] = errorResponse(status);
  // Part 7: any other status is an unexpected error with the same body shape.
  responses.default = { description: 'Unexpected error', content: errorResponse(500).content };

  const result: OpenApiOperation = {
    operationId: operation.id,
    summary: operation.summary,
    description: /^\d/.test(operation.section)
      ? `Spec section ${operation.section}.`
      : `Defined by ${operation.section} (docs/service-decisions.md).`,
    tags: [operation.banking ? 'banking' : (operation.path.split('/')[1] ?? 'service')],
    responses,
  };
  const params = parameters(operation);
  if (params.length > 0) result.parameters = params;
  if (operation.body) {
    const schema =
      operation.body.contentType === 'application/json'
        ? ref(nameOf(named, operation.body.schema))
        : multipartSchema(operation);
    result.requestBody = { required: true, content: { [operation.body.contentType]: { schema } } };
  }
  return result;
}

export function buildOpenApiDocument(): OpenApiDocument {
  const named = componentSchemas();
  const paths: OpenApiDocument['paths'] = {};
  for (const operation of Object.values(operations) as Operation[]) {
    const item = paths[operation.path] ?? {};
    item[operation.method.toLowerCase()] = buildOperation(operation, named);
    paths[operation.path] = item;
  }
  const sortedPaths = Object.fromEntries(
    Object.keys(paths)
      .sort()
      .map((path) => [path, paths[path] ?? {}]),
  );

  return {
    openapi: '3.1.0',
    info: {
      title: 'Payment Collection and Payables Service',
      version: '1.0.0',
      description:
        'Generated from src/service (scripts/generate-openapi.ts). Spec: service-interface.md 1.0.0; ' +
        'everything the spec leaves "not shown" follows docs/service-decisions.md.',
    },
    servers: [
      { url: SERVICE_BASE_URLS.sandbox, description: 'sandbox (placeholder, decision “Service client”)' },
      {
        url: SERVICE_BASE_URLS.production,
        description: 'production (placeholder, decision “Service client”)',
      },
    ],
    security: [{ bearerAuth: [] }],
    paths: sortedPaths,
    webhooks: {
      event: {
        post: {
          summary: 'Event delivery (part 6)',
          parameters: [
            {
              name: SIGNATURE_HEADER,
              in: 'header',
              required: false,
              description:
                't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">; absent for unsigned legacy webhooks',
              schema: { type: 'string', pattern: '^t=\\d+(,v1=[0-9a-f]{64})+$' },
            },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: ref('EventEnvelope') } } },
          responses: { '200': { description: 'Any 2xx acknowledges the delivery' } },
        },
      },
    },
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
      schemas: buildComponents(named),
    },
  };
}

/** The committed form of docs/openapi.json. */
export function serializeOpenApiDocument(document: OpenApiDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
