import { dirname, join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { contractsDir } from '../contracts.js';
import { packageVersion, parsedFile } from '../parse-cache.js';

// Intuit's published contract of QuickBooks Online v3 (Finance.xsd, IntuitRestServiceDef.xsd and their
// includes), read from ../shared at test time, never copied into the repository. QBO's JSON uses the XSD's
// element names, and attributes become plain keys (`{"Fault": {"type": "ValidationFault", "Error": [...]}}`,
// `{"CustomerRef": {"value": "1", "name": "..."}}` for simpleContent types such as ReferenceType).
//
// What the checker enforces, on every object, request or response:
// - every key is an element or attribute the type (with its extension bases) declares;
// - JSON types per XSD type: strings, decimals as numbers, integers, booleans, xs:date `YYYY-MM-DD`,
//   xs:dateTime ISO 8601, nested complex types as objects, simpleContent as `{value, ...attributes}`;
// - arrays exactly where maxOccurs > 1 (QBO's JSON always writes repeatable elements as arrays);
// - enumerations and maxLength of simple types; required elements (minOccurs >= 1 outside optional
//   choices), and a required choice needs one of its alternatives.
// 'Required' for create requests: the XSD marks almost every element optional (the same types serve reads,
// sparse updates and creates), so minOccurs alone cannot say what a create needs. `checkCreate` adds what
// Intuit's API reference marks required on create (`requiredOnCreate` below, per entity, cited as such, not
// from the XSD) and refuses the read-only elements the service assigns (Id, SyncToken, MetaData).

export interface ElementDecl {
  name: string;
  type: string;
  min: number;
  max: number;
}

interface ChoiceDecl {
  /** Element names of the alternatives; satisfied when one is present or an alternative is optional. */
  names: string[];
  required: boolean;
}

export interface ComplexTypeModel {
  name: string;
  base: string | null;
  abstract: boolean;
  elements: Map<string, ElementDecl>;
  attributes: Map<string, string>;
  choices: ChoiceDecl[];
  /** simpleContent: the JSON object carries the text as `value`. */
  simpleContent: string | null;
  anyElement: boolean;
}

export interface SimpleTypeModel {
  name: string;
  base: string;
  enumeration: string[] | null;
  maxLength: number | null;
}

type XmlNode = Record<string, unknown>;

const UNBOUNDED = Number.POSITIVE_INFINITY;

const xsdDir = process.env.QBO_XSD_DIR ?? join(contractsDir(), 'quickbooks-online', 'xsd');

function children(node: XmlNode, tag: string): XmlNode[] {
  const value = node[tag];
  return Array.isArray(value) ? (value as XmlNode[]) : [];
}

function attr(node: XmlNode, name: string): string | undefined {
  const value = node[`@_${name}`];
  return typeof value === 'string' ? value : undefined;
}

function occurs(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  return value === 'unbounded' ? UNBOUNDED : Number(value);
}

function local(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

export class XsdContract {
  readonly complexTypes = new Map<string, ComplexTypeModel>();
  readonly simpleTypes = new Map<string, SimpleTypeModel>();
  /** Global elements (IntuitObject's substitution group: Customer, Invoice, Payment, ...). */
  readonly globalElements = new Map<
    string,
    { type: string; abstract: boolean; substitutes: string | null }
  >();
  private readonly groups = new Map<string, XmlNode>();

  static load(dir = xsdDir, roots = ['Finance.xsd', 'IntuitRestServiceDef.xsd']): XsdContract {
    const contract = new XsdContract();
    const parser = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '@_',
      removeNSPrefix: true,
      isArray: (_name, _path, _leaf, isAttribute) => !isAttribute,
    });
    const seen = new Set<string>();
    const schemas: XmlNode[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const doc = parsedFile(
        join(dir, file),
        `${packageVersion('fast-xml-parser')} ignoreAttributes=false attributeNamePrefix=@_ removeNSPrefix isArray=elements`,
        (text) => parser.parse(text) as XmlNode,
      );
      const schema = children(doc, 'schema')[0];
      if (!schema) throw new Error(`${file}: no xs:schema`);
      schemas.push(schema);
      for (const include of children(schema, 'include')) visit(attr(include, 'schemaLocation') ?? '');
    };
    for (const root of roots) visit(root);
    // Groups first: complex types refer to them.
    for (const schema of schemas)
      for (const g of children(schema, 'group')) contract.groups.set(attr(g, 'name') ?? '', g);
    for (const schema of schemas) {
      for (const s of children(schema, 'simpleType')) contract.addSimpleType(s);
      for (const c of children(schema, 'complexType')) contract.addComplexType(c);
      for (const e of children(schema, 'element')) {
        contract.globalElements.set(attr(e, 'name') ?? '', {
          type: local(attr(e, 'type') ?? ''),
          abstract: attr(e, 'abstract') === 'true',
          substitutes: attr(e, 'substitutionGroup') ?? null,
        });
      }
    }
    return contract;
  }

  private addSimpleType(node: XmlNode) {
    const name = attr(node, 'name') ?? '';
    const restriction = children(node, 'restriction')[0];
    const enums = restriction ? children(restriction, 'enumeration').map((e) => attr(e, 'value') ?? '') : [];
    const maxLength = restriction ? children(restriction, 'maxLength')[0] : undefined;
    this.simpleTypes.set(name, {
      name,
      base: local((restriction && attr(restriction, 'base')) ?? 'xs:string'),
      enumeration: enums.length > 0 ? enums : null,
      maxLength: maxLength ? Number(attr(maxLength, 'value')) : null,
    });
  }

  private addComplexType(node: XmlNode) {
    const model: ComplexTypeModel = {
      name: attr(node, 'name') ?? '',
      base: null,
      abstract: attr(node, 'abstract') === 'true',
      elements: new Map(),
      attributes: new Map(),
      choices: [],
      simpleContent: null,
      anyElement: false,
    };
    let body: XmlNode = node;
    const complexContent = children(node, 'complexContent')[0];
    const simpleContent = children(node, 'simpleContent')[0];
    if (complexContent) {
      const extension = children(complexContent, 'extension')[0];
      if (!extension) throw new Error(`${model.name}: complexContent without extension`);
      model.base = local(attr(extension, 'base') ?? '');
      body = extension;
    } else if (simpleContent) {
      const extension = children(simpleContent, 'extension')[0];
      if (!extension) throw new Error(`${model.name}: simpleContent without extension`);
      model.simpleContent = local(attr(extension, 'base') ?? '');
      body = extension;
    }
    this.addParticles(model, body, 1, 1, true);
    for (const a of children(body, 'attribute'))
      model.attributes.set(attr(a, 'name') ?? '', local(attr(a, 'type') ?? 'xs:string'));
    this.complexTypes.set(model.name, model);
  }

  /** Flattens sequences, choices and groups: JSON objects have no order, only names and cardinality. */
  private addParticles(
    model: ComplexTypeModel,
    node: XmlNode,
    outerMax: number,
    _outerMin: number,
    required: boolean,
  ) {
    for (const seq of children(node, 'sequence')) {
      const min = occurs(attr(seq, 'minOccurs'), 1);
      const max = occurs(attr(seq, 'maxOccurs'), 1);
      this.addParticles(model, seq, outerMax * max, min, required && min > 0);
    }
    for (const e of children(node, 'element')) this.addElement(model, e, outerMax, required);
    for (const g of children(node, 'group')) {
      const ref = this.groups.get(local(attr(g, 'ref') ?? ''));
      if (!ref) throw new Error(`${model.name}: unknown group ${attr(g, 'ref')}`);
      const min = occurs(attr(g, 'minOccurs'), 1);
      this.addParticles(model, ref, outerMax * occurs(attr(g, 'maxOccurs'), 1), min, required && min > 0);
    }
    for (const choice of children(node, 'choice')) {
      const min = occurs(attr(choice, 'minOccurs'), 1);
      const max = occurs(attr(choice, 'maxOccurs'), 1);
      const before = new Set(model.elements.keys());
      // Alternatives are never required one by one; the choice as a whole may be.
      this.addParticles(model, choice, outerMax * max, 0, false);
      const names = [...model.elements.keys()].filter((n) => !before.has(n));
      const anyOptional = children(choice, 'element').some((e) => occurs(attr(e, 'minOccurs'), 1) === 0);
      model.choices.push({ names, required: required && min > 0 && !anyOptional });
    }
    if (children(node, 'any').length > 0) model.anyElement = true;
  }

  private addElement(model: ComplexTypeModel, e: XmlNode, outerMax: number, required: boolean) {
    const min = occurs(attr(e, 'minOccurs'), 1);
    const max = occurs(attr(e, 'maxOccurs'), 1) * outerMax;
    const ref = attr(e, 'ref');
    if (ref) {
      // An abstract head (IntuitObject) stands for every element of its substitution group, resolved lazily.
      model.elements.set(`ref:${local(ref)}`, { name: local(ref), type: `ref:${local(ref)}`, min: 0, max });
      return;
    }
    const name = attr(e, 'name') ?? '';
    model.elements.set(name, {
      name,
      type: local(attr(e, 'type') ?? 'xs:string'),
      min: required ? min : 0,
      max,
    });
  }

  /** Every element a type allows (with its bases), substitution groups expanded. */
  elementsOf(typeName: string): Map<string, ElementDecl> {
    const all = new Map<string, ElementDecl>();
    for (const t of this.chain(typeName)) {
      for (const [key, decl] of t.elements) {
        if (!key.startsWith('ref:')) {
          all.set(key, decl);
          continue;
        }
        const head = this.globalElements.get(decl.name);
        if (head && !head.abstract) all.set(decl.name, { ...decl, type: head.type });
        for (const [name, g] of this.globalElements) {
          if (g.substitutes && local(g.substitutes) === decl.name)
            all.set(name, { ...decl, name, type: g.type });
        }
      }
    }
    return all;
  }

  private chain(typeName: string): ComplexTypeModel[] {
    const out: ComplexTypeModel[] = [];
    let current: string | null = typeName;
    while (current) {
      const t = this.complexTypes.get(current);
      if (!t) break;
      out.unshift(t);
      current = t.base;
    }
    return out;
  }

  /** Violations of one JSON value against an XSD type; empty when it conforms. */
  check(value: unknown, typeName: string, path = '$'): string[] {
    const problems: string[] = [];
    this.checkValue(value, typeName, path, problems);
    return problems;
  }

  /** An entity as a create request: the XSD, Intuit's create requirements, no service-assigned elements. */
  checkCreate(entity: string, value: unknown): string[] {
    const problems = this.check(value, this.entityType(entity), `$.${entity}`);
    if (value && typeof value === 'object') {
      const object = value as Record<string, unknown>;
      for (const readOnly of ['Id', 'SyncToken', 'MetaData']) {
        if (readOnly in object)
          problems.push(`$.${entity}.${readOnly}: assigned by QuickBooks, not allowed on create`);
      }
      for (const required of requiredOnCreate[entity] ?? []) {
        if (!(required in object)) problems.push(`$.${entity}.${required}: required on create`);
      }
    }
    return problems;
  }

  entityType(entity: string): string {
    const element = this.globalElements.get(entity);
    if (!element) throw new Error(`no global element ${entity}`);
    return element.type;
  }

  private checkValue(value: unknown, typeName: string, path: string, problems: string[]) {
    const complex = this.complexTypes.get(typeName);
    if (complex) return this.checkComplex(value, complex, path, problems);
    this.checkSimple(value, typeName, path, problems);
  }

  private checkComplex(value: unknown, type: ComplexTypeModel, path: string, problems: string[]) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      problems.push(`${path}: expected an object (${type.name}), got ${JSON.stringify(value)}`);
      return;
    }
    const object = value as Record<string, unknown>;
    const chain = this.chain(type.name);
    const elements = this.elementsOf(type.name);
    const attributes = new Map<string, string>();
    for (const t of chain) for (const [n, a] of t.attributes) attributes.set(n, a);
    const simpleContent = chain.find((t) => t.simpleContent)?.simpleContent ?? null;
    const any = chain.some((t) => t.anyElement);
    for (const [key, child] of Object.entries(object)) {
      const at = `${path}.${key}`;
      const element = elements.get(key);
      if (element) {
        if (element.max > 1) {
          if (!Array.isArray(child)) {
            problems.push(
              `${at}: maxOccurs ${element.max === UNBOUNDED ? 'unbounded' : element.max}, expected an array`,
            );
            continue;
          }
          if (child.length > element.max)
            problems.push(`${at}: ${child.length} items, maxOccurs ${element.max}`);
          for (const [i, item] of child.entries())
            this.checkValue(item, element.type, `${at}[${i}]`, problems);
        } else {
          if (Array.isArray(child)) {
            problems.push(`${at}: maxOccurs 1, got an array`);
            continue;
          }
          this.checkValue(child, element.type, at, problems);
        }
      } else if (attributes.has(key)) {
        this.checkSimple(child, attributes.get(key) ?? 'string', at, problems);
      } else if (simpleContent && key === 'value') {
        this.checkSimple(child, simpleContent, at, problems);
      } else if (!any) {
        problems.push(`${at}: no element or attribute ${key} in ${type.name}`);
      }
    }
    for (const element of elements.values()) {
      if (element.min > 0 && !(element.name in object))
        problems.push(`${path}.${element.name}: required (minOccurs ${element.min})`);
    }
    for (const t of chain) {
      for (const choice of t.choices) {
        if (choice.required && !choice.names.some((n) => n in object)) {
          problems.push(`${path}: one of ${choice.names.join(', ')} required`);
        }
      }
    }
    if (simpleContent && !('value' in object))
      problems.push(`${path}.value: required (simpleContent ${simpleContent})`);
  }

  private checkSimple(value: unknown, typeName: string, path: string, problems: string[]) {
    const simple = this.simpleTypes.get(typeName);
    if (simple) {
      this.checkSimple(value, simple.base, path, problems);
      if (typeof value === 'string') {
        if (simple.enumeration && !simple.enumeration.includes(value)) {
          problems.push(
            `${path}: ${JSON.stringify(value)} is not one of ${typeName} (${simple.enumeration.join(', ')})`,
          );
        }
        if (simple.maxLength !== null && value.length > simple.maxLength) {
          problems.push(`${path}: longer than ${simple.maxLength} characters (${typeName})`);
        }
      }
      return;
    }
    const builtin = jsonTypeOf(typeName);
    if (!builtin) {
      problems.push(`${path}: unknown XSD type ${typeName}`);
      return;
    }
    if (!builtin.test(value))
      problems.push(`${path}: expected ${builtin.label} (xs:${typeName}), got ${JSON.stringify(value)}`);
  }
}

interface JsonType {
  label: string;
  test(value: unknown): boolean;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const dateRe = /^\d{4}-\d{2}-\d{2}([+-]\d{2}:\d{2}|Z)?$/;
const dateTimeRe = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:\d{2}|Z)?$/;

function jsonTypeOf(xsdType: string): JsonType | null {
  switch (xsdType) {
    case 'string':
    case 'normalizedString':
    case 'token':
    case 'anyURI':
    case 'base64Binary':
    case 'anyType':
      return { label: 'a string', test: isString };
    case 'decimal':
    case 'double':
    case 'float':
      return { label: 'a number', test: (v) => typeof v === 'number' && Number.isFinite(v) };
    case 'int':
    case 'integer':
    case 'long':
    case 'short':
      return { label: 'an integer', test: (v) => Number.isSafeInteger(v) };
    case 'positiveInteger':
      return { label: 'a positive integer', test: (v) => Number.isSafeInteger(v) && (v as number) > 0 };
    case 'nonNegativeInteger':
      return { label: 'a non-negative integer', test: (v) => Number.isSafeInteger(v) && (v as number) >= 0 };
    case 'boolean':
      return { label: 'a boolean', test: (v) => typeof v === 'boolean' };
    case 'date':
      return { label: 'a date YYYY-MM-DD', test: (v) => isString(v) && dateRe.test(v) };
    case 'dateTime':
      return { label: 'a dateTime', test: (v) => isString(v) && dateTimeRe.test(v) };
    case 'time':
      return { label: 'a time', test: isString };
    default:
      return null;
  }
}

/**
 * Required on create per Intuit's API reference (developer.intuit.com, "Create a ..." of each entity), for the
 * entities booksync writes. Not in the XSD, which serves reads and sparse updates as well.
 */
export const requiredOnCreate: Record<string, string[]> = {
  Customer: ['DisplayName'],
  Vendor: ['DisplayName'],
  Account: ['Name'],
  Item: ['Name', 'Type'],
  Invoice: ['CustomerRef', 'Line'],
  Payment: ['CustomerRef', 'TotalAmt'],
  Deposit: ['DepositToAccountRef', 'Line'],
  JournalEntry: ['Line'],
  Purchase: ['AccountRef', 'PaymentType', 'Line'],
  RefundReceipt: ['DepositToAccountRef', 'Line'],
  // A sales receipt needs its lines only: no customer (a walk-in sale), Undeposited Funds when no account.
  SalesReceipt: ['Line'],
  // Intuit's CreditMemo reference, "Create a credit memo": Line and CustomerRef required.
  CreditMemo: ['CustomerRef', 'Line'],
  Bill: ['VendorRef', 'Line'],
  BillPayment: ['VendorRef', 'TotalAmt', 'PayType', 'Line'],
};

let shared: XsdContract | null = null;

/** The contract parsed once per test process. */
export function quickBooksContract(): XsdContract {
  shared ??= XsdContract.load();
  return shared;
}

export function contractDir(): string {
  return dirname(join(xsdDir, 'Finance.xsd'));
}
