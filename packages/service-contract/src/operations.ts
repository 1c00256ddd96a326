import type { Operation } from './operation.js';
import { decisionOperations } from './operations-decisions.js';
import { specOperations } from './operations-spec.js';

// Every operation of the service in one table: the client calls through it, the OpenAPI document and the
// spec checklist are generated from it, so a path or status lives in one place (spec part 4, decisions “Link endpoints beyond part 4” to “Webhook subscription”).
// The table is written in two parts: the spec's own (operations-spec.ts) and the decisions doc's.

export const operations = { ...specOperations, ...decisionOperations } as const satisfies Record<
  string,
  Operation
>;

export type OperationId = keyof typeof operations;

/** Path parameter names of a template, in order. */
export function pathParams(template: string): string[] {
  return [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
}

/** Fills a path template; every id is URL-encoded because ids are opaque (decision “Identifiers”). */
export function fillPath(template: string, params: Readonly<Record<string, string>>): string {
  return template.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined || value === '') throw new TypeError(`path parameter ${name} is required`);
    return encodeURIComponent(value);
  });
}
