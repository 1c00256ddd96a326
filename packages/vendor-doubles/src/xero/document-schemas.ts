import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// The schemas of one OpenAPI document, validated by one Ajv instance that holds the document whole: a schema
// is compiled where it lives (`#/components/schemas/Invoices`), once, and every operation whose body or
// response refers to it uses that compiled function. (A validator built per operation from a dereferenced
// copy of the document compiles Xero's large shared schemas again for each operation: most of a test file's
// CPU when it talked to the Xero double.)

type Json = Record<string, unknown>;

const addFormats = addFormatsModule as unknown as <A>(ajv: A, formats: string[]) => A;

/** The document's own id inside its Ajv instance: its `#/...` refs resolve against it. */
const DOCUMENT_ID = 'openapi-document';

/** One step of a JSON pointer, escaped (RFC 6901). */
function escapeStep(step: string): string {
  return step.replaceAll('~', '~0').replaceAll('/', '~1');
}

export interface SchemaCheck {
  valid: boolean;
  errors: ErrorObject[];
}

export class DocumentSchemas {
  private readonly ajv: Ajv;
  private readonly compiled = new Map<string, ValidateFunction | null>();

  private readonly document: Json;
  constructor(document: Json) {
    this.document = document;
    this.ajv = new Ajv({
      allErrors: true,
      verbose: true,
      strict: false,
      logger: false,
      validateSchema: false,
      // Optimising passes cost more to compile than they save on the few hundred bodies a test file checks.
      code: { optimize: false },
    });
    addFormats(this.ajv, ['uuid', 'date-time', 'date']);
    this.ajv.addSchema(document, DOCUMENT_ID);
  }

  /**
   * Checks `value` against the schema found by walking `steps` from the document's root (object keys, with a
   * `$ref` on the way followed to its target, as a request body or response may be a reference). A place
   * without a schema checks nothing (valid).
   */
  check(steps: readonly string[], value: unknown): SchemaCheck {
    const validate = this.validatorAt(steps);
    if (!validate || validate(value)) return { valid: true, errors: [] };
    return { valid: false, errors: [...(validate.errors ?? [])] };
  }

  private validatorAt(steps: readonly string[]): ValidateFunction | null {
    const key = steps.join('\0');
    if (this.compiled.has(key)) return this.compiled.get(key) ?? null;
    const pointer = this.locate(steps);
    const validate = pointer === null ? null : this.ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
    this.compiled.set(key, validate);
    return validate;
  }

  /** The JSON pointer of the schema at `steps`, references followed; null where there is none. */
  private locate(steps: readonly string[]): string | null {
    let pointer = '';
    let node: unknown = this.document;
    for (const step of steps) {
      ({ pointer, node } = this.followRef(pointer, node));
      if (node === null || typeof node !== 'object') return null;
      node = (node as Json)[step];
      if (node === undefined) return null;
      pointer = `${pointer}/${escapeStep(step)}`;
    }
    return this.followRef(pointer, node).pointer;
  }

  private followRef(pointer: string, node: unknown): { pointer: string; node: unknown } {
    let seen = 0;
    while (node !== null && typeof node === 'object' && typeof (node as Json).$ref === 'string') {
      const ref = (node as Json).$ref as string;
      if (!ref.startsWith('#/') || ++seen > 32) break;
      pointer = ref.slice(1);
      node = ref
        .slice(2)
        .split('/')
        .map((step) => step.replaceAll('~1', '/').replaceAll('~0', '~'))
        .reduce<unknown>((at, step) => (at as Json | undefined)?.[step], this.document);
    }
    return { pointer, node };
  }
}
