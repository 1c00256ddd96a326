import { join } from 'node:path';
import type { ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { OpenAPIBackend, type Operation } from 'openapi-backend';
import { parse } from 'yaml';
import { contractsDir } from '../contracts.js';
import { packageVersion, parsedFile } from '../parse-cache.js';
import { DocumentSchemas } from './document-schemas.js';

// Xero's published contract of its Accounting API (OpenAPI 3.0, xero_accounting.yaml, v16.1.0), read from
// ../shared at test time, never copied into the repository. The checker holds the Xero double and the
// adapter to it: every request the SDK sends and every response the double answers goes through here.
//
// Routing by method + path, parameters and a required body's presence are openapi-backend's; request bodies
// and responses per status code are checked by Ajv 8 over the document itself (document-schemas.ts: each
// shared schema compiled once, not once per operation), with ajv-formats for uuid / date / date-time.
// Adjustments to the document, made in memory when it is loaded:
// - siblings of `$ref` are dropped (Xero writes `$ref` with `type: string` beside it; OpenAPI 3.0 ignores
//   such siblings, and openapi-backend's strict definition check refuses them);
// - for REQUESTS, every object schema with `properties` and no `additionalProperties` gets
//   `additionalProperties: false`, so a misspelt field (`InvoiceNumbr`) is a violation, not silently
//   ignored as the real API would. Xero's spec declares no additionalProperties at all.
//   `{ unknownRequestProperties: 'allow' }` validates requests exactly as the document says.
// - RESPONSES are validated open, as documented: real Xero answers (and the document's own examples) carry
//   fields its schemas do not declare: the envelope `Id`, `Status`, `ProviderName`, `DateTimeUTC`, and
//   `DateString`, `DueDateString`, `CreatedDateUTCString` on documents. Types, enums, formats and required
//   properties of the declared fields are checked. `{ unknownResponseProperties: 'reject' }` closes them
//   too, with the envelope allowed: for the double, which should write only what Xero documents.
// Xero's examples are not all valid against its schemas (createBankTransfer's request example has Amount
// "50.00", getPayments' response example BatchPayment.TotalAmount "50.00", createBankTransactions' request
// example a lowercase `bankTransactions`): the checker reports them, which is right.
//
// What the document itself leaves open, and the checker therefore does not enforce:
// - `required`: Xero marks only a few properties required (BankTransaction Type/LineItems/BankAccount,
//   BankTransfer FromBankAccount/ToBankAccount/Amount, ManualJournal Narration, Allocation, Item Code);
//   Invoice, Contact and Payment have none in the spec, though the API refuses a Contact without Name.
//   `checkRequest` adds nothing beyond the document; the double should answer Xero's ValidationException.
// - dates: Xero's date fields are `type: string` with `x-is-msdate: true`; requests carry `YYYY-MM-DD`,
//   responses Xero's `/Date(1573755038314+0000)/`. Both are strings, so both pass; `msDate` below writes
//   the response form, and `checkMsDates` (opt-in) checks a response's x-is-msdate fields hold it.
// - `/Contacts/{ContactNumber}` and `/Contacts/{ContactID}` are the same route to a router: a GET of
//   `/Contacts/<id>` matches getContactByContactNumber first. Both answer `Contacts`, so the check is the same.

export interface XeroRequest {
  method: string;
  /** Path under the API root; a leading `/api.xro/2.0` and a `?query` are accepted and split off. */
  path: string;
  query?: Record<string, string | string[] | undefined>;
  headers?: Record<string, string | string[] | undefined>;
  body?: unknown;
}

export interface XeroContractOptions {
  /** Default 'reject': request objects may carry only the properties their schema declares. */
  unknownRequestProperties?: 'reject' | 'allow';
  /** Default 'allow' (as documented); 'reject' closes response objects too, the envelope excepted. */
  unknownResponseProperties?: 'reject' | 'allow';
}

/** What Xero writes around every collection response, undeclared in the document's schemas. */
const ENVELOPE = ['Id', 'Status', 'ProviderName', 'DateTimeUTC'];

const API_ROOT = '/api.xro/2.0';

const addFormats = addFormatsModule as unknown as <A>(ajv: A, formats: string[]) => A;

const contractPath = process.env.XERO_OPENAPI_FILE ?? join(contractsDir(), 'xero', 'xero_accounting.yaml');

type Json = Record<string, unknown>;

/** Visits every object in a parsed document, parents first; `visit` answering 'skip' leaves its children alone. */
function eachObject(node: unknown, visit: (object: Json) => 'skip' | undefined): void {
  if (Array.isArray(node)) {
    for (const item of node) eachObject(item, visit);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const object = node as Json;
  if (visit(object) === 'skip') return;
  for (const value of Object.values(object)) eachObject(value, visit);
}

function dropRefSiblings(node: unknown): void {
  eachObject(node, (object) => {
    if (!('$ref' in object)) return undefined;
    for (const key of Object.keys(object)) if (key !== '$ref') delete object[key];
    return 'skip';
  });
}

function closeObjects(node: unknown): void {
  eachObject(node, (object) => {
    if (
      object.properties !== null &&
      typeof object.properties === 'object' &&
      !Array.isArray(object.properties) &&
      !('additionalProperties' in object)
    ) {
      object.additionalProperties = false;
    }
    return undefined;
  });
}

/** Collection wrappers (`Invoices`, `Contacts`, ...: `x-objectArrayKey`) accept Xero's envelope. */
function allowEnvelope(definition: Json): void {
  const schemas = ((definition.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  for (const schema of Object.values(schemas)) {
    if (!('x-objectArrayKey' in schema) || typeof schema.properties !== 'object') continue;
    const properties = schema.properties as Json;
    for (const name of ENVELOPE) properties[name] ??= { type: 'string' };
  }
}

async function router(definition: Json): Promise<OpenAPIBackend> {
  const api = new OpenAPIBackend({
    definition: definition as never,
    strict: true,
    quick: true, // also compiles each operation's validators on first use
    validate: true,
    ajvOpts: { allErrors: true, verbose: true, strict: false, logger: false, code: { optimize: false } },
    // Parameters carry formats too (a path's InvoiceID is a uuid, If-Modified-Since a date-time).
    customizeAjv: (ajv) => addFormats(ajv, ['uuid', 'date-time', 'date']),
  });
  await api.init();
  return api;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** `#/components/<section>/<name>` → that object of the document. */
function resolved(definition: Json, node: unknown): Json | undefined {
  let at = node as Json | undefined;
  for (let hops = 0; typeof at?.$ref === 'string' && hops < 32; hops++)
    at = (at.$ref as string)
      .slice(2)
      .split('/')
      .reduce<unknown>((object, step) => (object as Json | undefined)?.[step], definition) as
      | Json
      | undefined;
  return at;
}

/** The same media types with an empty schema: the presence of a body stays checked, its content is not. */
function withEmptySchemas(content: unknown): Json {
  return Object.fromEntries(Object.keys((content ?? {}) as Json).map((type) => [type, { schema: {} }]));
}

/**
 * The document the router is given: every operation's request body and responses keep their media types and
 * `required`, with empty schemas (their content is DocumentSchemas' to check), and only the component schemas
 * something else still refers to.
 */
function routingDocument(definition: Json): Json {
  const routing = structuredClone(definition);
  for (const item of Object.values((routing.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      const body = resolved(definition, operation.requestBody);
      if (body)
        operation.requestBody = {
          ...(body.required === undefined ? {} : { required: body.required }),
          content: withEmptySchemas(body.content),
        };
      const responses = (operation.responses ?? {}) as Record<string, unknown>;
      for (const [status, response] of Object.entries(responses)) {
        const answer = resolved(definition, response);
        responses[status] = {
          description: String(answer?.description ?? ''),
          ...(answer?.content ? { content: withEmptySchemas(answer.content) } : {}),
        };
      }
    }
  }
  const components = (routing.components ?? {}) as Json;
  delete components.requestBodies;
  delete components.responses;
  const schemas = (components.schemas ?? {}) as Json;
  components.schemas = {};
  const kept = components.schemas as Json;
  const pending = [routing];
  while (pending.length > 0) {
    eachObject(pending.pop(), (object) => {
      const ref = object.$ref;
      const name = typeof ref === 'string' && ref.startsWith('#/components/schemas/') ? ref.slice(21) : null;
      if (name && !(name in kept) && name in schemas) {
        kept[name] = schemas[name];
        pending.push(schemas[name] as Json);
      }
      return undefined;
    });
  }
  return routing;
}

function explain(error: ErrorObject): string {
  const where = error.instancePath === '' ? '$' : error.instancePath;
  const params = error.params as Record<string, unknown>;
  if (where === '$' && error.keyword === 'required' && params.missingProperty === 'requestBody')
    return '$: missing request body';
  switch (error.keyword) {
    case 'enum':
      return `${where}: ${JSON.stringify(error.data)} is not one of ${(params.allowedValues as unknown[]).join(', ')}`;
    case 'additionalProperties':
      return `${where}: unknown property ${String(params.additionalProperty)}`;
    case 'required':
      return `${where}: missing required property ${String(params.missingProperty)}`;
    case 'type':
      return `${where}: expected ${String(params.type)}, got ${JSON.stringify(error.data)}`;
    default:
      return `${where}: ${error.message ?? error.keyword}`;
  }
}

function describeAll(errors: ErrorObject[] | null | undefined): string[] {
  return [...new Set((errors ?? []).map(explain))];
}

function splitPath(raw: string): { path: string; query: Record<string, string | string[]> } {
  const url = new URL(raw, 'http://xero.invalid');
  let path = url.pathname;
  if (path === API_ROOT || path.startsWith(`${API_ROOT}/`)) path = path.slice(API_ROOT.length) || '/';
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of url.searchParams) {
    const seen = query[key];
    query[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return { path, query };
}

const MS_DATE = /^\/Date\(-?\d+([+-]\d{4})?\)\/$/;

/** A date in Xero's response form, `/Date(<ms since epoch>+0000)/`. */
export function msDate(date: Date | string): string {
  const ms = typeof date === 'string' ? Date.parse(date.length === 10 ? `${date}T00:00:00Z` : date) : +date;
  return `/Date(${ms}+0000)/`;
}

export class XeroContract {
  /** Milliseconds spent parsing the YAML and initialising the validator (once per process). */
  readonly loadMs: number;

  /** Routing, parameters and the presence of a required body. */
  private readonly api: OpenAPIBackend;
  /** Request bodies (objects closed unless `unknownRequestProperties: 'allow'`). */
  private readonly requests: DocumentSchemas;
  /** Response bodies (open unless `unknownResponseProperties: 'reject'`). */
  private readonly responses: DocumentSchemas;
  private readonly msDateFields: Map<string, Set<string>>;
  private constructor(
    api: OpenAPIBackend,
    requests: DocumentSchemas,
    responses: DocumentSchemas,
    loadMs: number,
    msDateFields: Map<string, Set<string>>,
  ) {
    this.api = api;
    this.requests = requests;
    this.responses = responses;
    this.msDateFields = msDateFields;
    this.loadMs = loadMs;
  }

  static async load(file = contractPath, options: XeroContractOptions = {}): Promise<XeroContract> {
    const started = performance.now();
    const definition = structuredClone(parsedDocument(file));
    // Collection key (`Invoices`) → the x-is-msdate fields of its items' schema (`Invoice`).
    const msDateFields = new Map<string, Set<string>>();
    const schemas = ((definition.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
    for (const wrapper of Object.values(schemas)) {
      if (!('x-objectArrayKey' in wrapper)) continue;
      for (const [key, property] of Object.entries((wrapper.properties ?? {}) as Record<string, Json>)) {
        const ref = (property.items as Json | undefined)?.$ref;
        if (typeof ref !== 'string') continue;
        const item = schemas[ref.slice(ref.lastIndexOf('/') + 1)];
        const fields = new Set<string>();
        for (const [field, value] of Object.entries((item?.properties ?? {}) as Record<string, Json>))
          if (value['x-is-msdate'] === true) fields.add(field);
        if (fields.size > 0) msDateFields.set(key, fields);
      }
    }
    dropRefSiblings(definition);
    const api = await router(routingDocument(definition));
    const forRequests = structuredClone(definition);
    if ((options.unknownRequestProperties ?? 'reject') === 'reject') closeObjects(forRequests);
    if ((options.unknownResponseProperties ?? 'allow') === 'reject') {
      allowEnvelope(definition);
      closeObjects(definition);
    }
    return new XeroContract(
      api,
      new DocumentSchemas(forRequests),
      new DocumentSchemas(definition),
      performance.now() - started,
      msDateFields,
    );
  }

  /** The operation a method and path reach, or null. */
  operation(method: string, rawPath: string): Operation | null {
    const { path } = splitPath(rawPath);
    return this.api.matchOperation({ method: method.toLowerCase(), path, headers: {} }) ?? null;
  }

  /** Violations of one request: unknown operation, parameters, body (types, required, enums, unknown fields). */
  checkRequest(request: XeroRequest): string[] {
    const { path, query: pathQuery } = splitPath(request.path);
    const method = request.method.toLowerCase();
    const operation = this.api.matchOperation({ method, path, headers: {} });
    if (!operation) return [`${request.method.toUpperCase()} ${path}: no such operation in Xero's API`];
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(request.headers ?? {}))
      if (value !== undefined) headers[name.toLowerCase()] = value;
    if (request.body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
    const query: Record<string, string | string[]> = { ...pathQuery };
    for (const [name, value] of Object.entries(request.query ?? {}))
      if (value !== undefined) query[name] = value;
    const body =
      request.body === undefined
        ? []
        : this.requests
            .check(
              [
                'paths',
                operation.path,
                operation.method,
                'requestBody',
                'content',
                'application/json',
                'schema',
              ],
              request.body,
            )
            .errors.map((error) => ({ ...error, instancePath: `/requestBody${error.instancePath}` }));
    const rest = this.api.validateRequest(
      { method, path, query, headers, body: request.body as never },
      operation,
    );
    return describeAll([...body, ...(rest.errors ?? [])]).map(
      (violation) => `${operation.operationId}: ${violation}`,
    );
  }

  /**
   * Violations of one response: `operation` is an operationId or `{method, path}`. A status the operation
   * does not declare is a violation (Xero's spec declares 200 and 400 for most operations, nothing for 401,
   * 404 or 429: the double's harness decides which of those it answers without a contract).
   */
  checkResponse(
    operation: string | { method: string; path: string },
    status: number,
    body: unknown,
    options: { checkMsDates?: boolean } = {},
  ): string[] {
    const op =
      typeof operation === 'string'
        ? this.api.getOperation(operation)
        : this.operation(operation.method, operation.path);
    if (!op?.operationId) return [`${JSON.stringify(operation)}: no such operation in Xero's API`];
    const declared = Object.keys(op.responses ?? {});
    const code = String(status);
    const answered = [code, `${code[0]}XX`, 'default'].find((key) => declared.includes(key));
    if (!answered)
      return [`${op.operationId}: status ${status} is not declared (declared: ${declared.join(', ')})`];
    const { errors } = this.responses.check(
      ['paths', op.path, op.method, 'responses', answered, 'content', 'application/json', 'schema'],
      body,
    );
    const violations = describeAll(errors);
    if (options.checkMsDates) violations.push(...this.msDateViolations(body));
    return violations.map((violation) => `${op.operationId} ${status}: ${violation}`);
  }

  /** x-is-msdate fields of a response's collection items (`{"Invoices": [...]}`) not `/Date(ms+0000)/`. */
  private msDateViolations(body: unknown): string[] {
    const violations: string[] = [];
    if (body === null || typeof body !== 'object') return violations;
    for (const [key, items] of Object.entries(body as Json)) {
      const fields = this.msDateFields.get(key);
      if (!fields || !Array.isArray(items)) continue;
      items.forEach((item, index) => {
        for (const field of fields) {
          const value = (item as Json | null)?.[field];
          if (value !== undefined && !(typeof value === 'string' && MS_DATE.test(value)))
            violations.push(
              `/${key}/${index}/${field}: ${JSON.stringify(value)} is not a /Date(ms+0000)/ date`,
            );
        }
      });
    }
    return violations;
  }
}

const parsed = new Map<string, Json>();

/** The YAML parsed once per process (through the parse cache), each load adjusting a copy of its own. */
function parsedDocument(file: string): Json {
  let document = parsed.get(file);
  if (!document) {
    document = parsedFile(
      file,
      `${packageVersion('yaml')} parse maxAliasCount=-1`,
      (text) => parse(text, { maxAliasCount: -1 }) as Json,
    );
    parsed.set(file, document);
  }
  return document;
}

const loaded = new Map<string, Promise<XeroContract>>();

/** The contract, loaded once per process (per file and options). */
export function xeroContract(options: XeroContractOptions = {}, file = contractPath): Promise<XeroContract> {
  const key = `${file}\0${options.unknownRequestProperties ?? 'reject'}\0${options.unknownResponseProperties ?? 'allow'}`;
  let contract = loaded.get(key);
  if (!contract) {
    contract = XeroContract.load(file, options);
    loaded.set(key, contract);
  }
  return contract;
}
