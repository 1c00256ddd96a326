import * as serviceErrors from '@booksync/service-contract/errors';
import { describe, expect, it } from 'vitest';
import * as ledgerErrors from '../../src/ledger/errors.js';
import {
  nonRetryableLedgerErrors,
  nonRetryableServiceErrors,
} from '../../src/workflow-safe/failure-names.js';
import { nonRetryableActivityErrors } from '../../src/workflow-safe/retry-policy.js';

// The retry policy's list of failures no retry can pass is written where workflow code can import it
// (no zod, no schemas); each name must still be an error class its owner exports, with that name.

type AnyErrorClass = new (...args: never[]) => Error;
const exported = (owner: Record<string, unknown>, name: string) =>
  typeof owner[name] === 'function' ? (owner[name] as AnyErrorClass) : undefined;

describe('non-retryable failure names', () => {
  it.each(nonRetryableServiceErrors)('%s is a service error class of that name', (name) => {
    const cls = exported(serviceErrors, name) as unknown as new (m: string, issues: string[]) => Error;
    expect(cls).toBeDefined();
    const instance = new cls('refused', []);
    expect(instance).toBeInstanceOf(serviceErrors.ServiceError);
    expect(instance.name).toBe(name);
  });

  it.each(nonRetryableLedgerErrors)('%s is a ledger error class of that name', (name) => {
    const cls = exported(ledgerErrors, name) as unknown as new (...args: string[]) => Error;
    expect(cls).toBeDefined();
    expect(new cls('a', 'b', 'c').name).toBe(name);
  });

  it('the activity retry policy lists both, and the ledger exports the very same list', () => {
    expect(nonRetryableActivityErrors).toEqual([...nonRetryableServiceErrors, ...nonRetryableLedgerErrors]);
    expect(ledgerErrors.nonRetryableLedgerErrors).toBe(nonRetryableLedgerErrors);
  });

  // The service's list is exactly the contract's answers no retry can pass: each status fromResponse maps
  // to a class, and the class is listed unless a retry can pass it (the generic class, an unknown status, is
  // not: policies list the causes no retry can pass).
  it.each([400, 401, 403, 404, 409, 413, 418, 429, 500, 503])(
    'status %i: listed exactly when final',
    (status) => {
      const err = serviceErrors.fromResponse(status, JSON.stringify({ error: 'nope' }));
      const final = !err.retryable && err.constructor !== serviceErrors.ServiceError;
      expect([err.name, nonRetryableServiceErrors.includes(err.name as never)]).toEqual([err.name, final]);
    },
  );

  it('the service lists no error twice and every listed one is final', () => {
    expect(new Set(nonRetryableServiceErrors).size).toBe(nonRetryableServiceErrors.length);
    const finalNames = [400, 401, 404, 409, 413]
      .map((status) => serviceErrors.fromResponse(status, '{}'))
      .filter((err) => !err.retryable)
      .map((err) => err.name);
    expect(nonRetryableServiceErrors.filter((name) => name !== 'ServiceSchemaError').sort()).toEqual(
      [...new Set(finalNames)].sort(),
    );
  });
});
