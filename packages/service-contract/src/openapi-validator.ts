import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { buildOpenApiDocument, type OpenApiDocument, type OpenApiOperation } from './openapi.js';

// Validates a response (status + JSON body) against the OpenAPI document, so the emulator's tests can prove
// each answer matches the contract the client expects. Component refs resolve inside one root schema.

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export type ResponseValidation = { valid: true } | { valid: false; errors: string[] };

export interface ResponseToValidate {
  method: string;
  /** A path template (`/paymentLink/{paymentLinkId}`) or a concrete path (`/paymentLink/pl_1`). */
  path: string;
  status: number;
  body: unknown;
  /** Response content type; default application/json. */
  contentType?: string;
}

export class OpenApiResponseValidator {
  readonly document: OpenApiDocument;
  readonly #ajv: Ajv2020;
  readonly #cache = new Map<string, ValidateFunction>();
  readonly #templates: { template: string; pattern: RegExp }[];

  constructor(document: OpenApiDocument = buildOpenApiDocument()) {
    this.document = document;
    this.#ajv = new Ajv2020({ strict: false, allErrors: true, unicodeRegExp: false });
    addFormats(this.#ajv);
    this.#templates = Object.keys(document.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+').replace(/\//g, '\\/')}$`),
    }));
  }

  /** The path template a concrete path belongs to; a literal segment wins over a parameter. */
  matchPath(path: string): string | undefined {
    const clean = path.split('?')[0] ?? path;
    if (this.document.paths[clean]) return clean;
    const matches = this.#templates.filter((t) => t.pattern.test(clean)).map((t) => t.template);
    return matches.sort((a, b) => paramCount(a) - paramCount(b))[0];
  }

  operation(method: string, path: string): OpenApiOperation | undefined {
    const template = this.matchPath(path);
    return template === undefined ? undefined : this.document.paths[template]?.[method.toLowerCase()];
  }

  validate(response: ResponseToValidate): ResponseValidation {
    const template = this.matchPath(response.path);
    const operation = template && this.document.paths[template]?.[response.method.toLowerCase()];
    if (!template || !operation) {
      return { valid: false, errors: [`${response.method} ${response.path} is not in the document`] };
    }
    const status = String(response.status);
    const documented =
      operation.responses[status] ?? (response.status >= 400 ? operation.responses.default : undefined);
    if (!documented) {
      return { valid: false, errors: [`${response.method} ${template} does not document status ${status}`] };
    }
    const contentType = response.contentType ?? 'application/json';
    const schema = documented.content?.[contentType]?.schema;
    if (!schema) {
      return {
        valid: false,
        errors: [`${response.method} ${template} ${status} has no ${contentType} body`],
      };
    }
    const validate = this.#compile(`${response.method} ${template} ${status} ${contentType}`, schema);
    if (validate(response.body)) return { valid: true };
    return {
      valid: false,
      errors: (validate.errors ?? []).map(
        (e) => `${e.instancePath || '(body)'} ${e.message ?? 'is invalid'}`,
      ),
    };
  }

  /** Throws with every error, for tests: `validator.assertResponse({...})`. */
  assertResponse(response: ResponseToValidate): void {
    const result = this.validate(response);
    if (!result.valid) {
      throw new Error(`${response.method} ${response.path} ${response.status}: ${result.errors.join('; ')}`);
    }
  }

  /** Validates a value against one component, e.g. `validateComponent('PaymentLink', body)`. */
  validateComponent(name: string, value: unknown): ResponseValidation {
    if (!this.document.components.schemas[name]) return { valid: false, errors: [`no component ${name}`] };
    const validate = this.#compile(`component ${name}`, { $ref: `#/components/schemas/${name}` });
    if (validate(value)) return { valid: true };
    return {
      valid: false,
      errors: (validate.errors ?? []).map((e) => `${e.instancePath || '(value)'} ${e.message}`),
    };
  }

  #compile(key: string, schema: Record<string, unknown>): ValidateFunction {
    let validate = this.#cache.get(key);
    if (!validate) {
      // The components travel with each root so '#/components/schemas/X' resolves as in the document.
      validate = this.#ajv.compile({ ...schema, components: { schemas: this.document.components.schemas } });
      this.#cache.set(key, validate);
    }
    return validate;
  }
}

function paramCount(template: string): number {
  return (template.match(/\{/g) ?? []).length;
}
