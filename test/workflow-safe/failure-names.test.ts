import { describe, expect, it } from 'vitest';
import * as ledgerErrors from '../../src/ledger/errors.js';
import * as serviceErrors from '../../src/service/errors.js';
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

  it('the activity retry policy lists both, and the owners export the very same lists', () => {
    expect(nonRetryableActivityErrors).toEqual([...nonRetryableServiceErrors, ...nonRetryableLedgerErrors]);
    expect(serviceErrors.nonRetryableServiceErrors).toBe(nonRetryableServiceErrors);
    expect(ledgerErrors.nonRetryableLedgerErrors).toBe(nonRetryableLedgerErrors);
  });
});
