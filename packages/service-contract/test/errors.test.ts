import { describe, expect, it } from 'vitest';
import {
  fromResponse,
  parseRetryAfter,
  ServiceAuthError,
  ServiceConflictError,
  ServiceError,
  ServiceNetworkError,
  ServiceNotFoundError,
  ServicePayloadTooLargeError,
  ServiceRateLimitedError,
  ServiceSchemaError,
  ServiceServerError,
  ServiceTimeoutError,
  ServiceValidationError,
} from '../src/errors.js';

const json = (body: unknown) => JSON.stringify(body);

describe('fromResponse maps status and body to one class', () => {
  it.each([
    [400, ServiceValidationError, false],
    [401, ServiceAuthError, false],
    [403, ServiceAuthError, false],
    [404, ServiceNotFoundError, false],
    [409, ServiceConflictError, false],
    [413, ServicePayloadTooLargeError, false],
    [418, ServiceError, false],
    [429, ServiceRateLimitedError, true],
    [500, ServiceServerError, true],
    [503, ServiceServerError, true],
  ] as const)('%i', (status, cls, retryable) => {
    const err = fromResponse(status, json({ error: 'nope' }));
    expect(err).toBeInstanceOf(cls);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.constructor).toBe(cls);
    expect(err.name).toBe(cls.name);
    expect(err.status).toBe(status);
    expect(err.message).toBe('nope');
    expect(err.retryable).toBe(retryable);
  });

  it('keeps known and unknown codes', () => {
    expect(fromResponse(409, json({ error: 'taken', code: 'REFERENCE_CONFLICT' })).code).toBe(
      'REFERENCE_CONFLICT',
    );
    expect(fromResponse(400, json({ error: 'x', code: 'SOMETHING_NEW' })).code).toBe('SOMETHING_NEW');
    expect(fromResponse(403, json({ error: 'no key access' })).code).toBeUndefined();
  });

  it('names the missing permission', () => {
    const err = fromResponse(
      403,
      json({ error: 'missing permission BANKING_MANAGE', code: 'MISSING_PERMISSION' }),
    );
    expect(err).toBeInstanceOf(ServiceAuthError);
    expect((err as ServiceAuthError).missingPermission).toBe('BANKING_MANAGE');
    const banking = fromResponse(403, json({ error: 'no account', code: 'SERVICE_BANKING_NOT_ACTIVE' }));
    expect((banking as ServiceAuthError).missingPermission).toBeUndefined();
  });

  it('keeps a plain-text 500 body as the message and bodyText', () => {
    const err = fromResponse(500, 'Internal Server Error: upstream');
    expect(err).toBeInstanceOf(ServiceServerError);
    expect(err.message).toBe('Internal Server Error: upstream');
    expect(err.bodyText).toBe('Internal Server Error: upstream');
    expect(err.code).toBeUndefined();
  });

  it('treats JSON of the wrong shape as text, and an empty body as the status', () => {
    expect(fromResponse(502, json({ message: 'x' })).bodyText).toBe('{"message":"x"}');
    expect(fromResponse(502, '').message).toBe('HTTP 502');
    expect(fromResponse(500, '{not json').message).toBe('{not json');
  });

  it('a transient failure on an unsafe write is not retryable but stays transient', () => {
    const err = fromResponse(503, 'busy', { retrySafe: false });
    expect(err.transient).toBe(true);
    expect(err.retryable).toBe(false);
    // A 429 was refused before processing: resending is safe whatever the operation.
    expect(fromResponse(429, 'slow', { retrySafe: false }).retryable).toBe(true);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-11-21T10:00:00Z');
    const err = fromResponse(429, json({ error: 'slow down' }), { retryAfter: '7', now });
    expect((err as ServiceRateLimitedError).retryAfterMs).toBe(7000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('garbage', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe('errors without a response', () => {
  it('network and timeout errors are retryable, schema errors are not', () => {
    expect(new ServiceNetworkError('reset').retryable).toBe(true);
    const timeout = new ServiceTimeoutError('timed out');
    expect(timeout).toBeInstanceOf(ServiceNetworkError);
    expect(timeout.name).toBe('ServiceTimeoutError');
    expect(timeout.retryable).toBe(true);
    const schema = new ServiceSchemaError('bad', ['payments.0.status']);
    expect(schema.retryable).toBe(false);
    expect(schema.issues).toEqual(['payments.0.status']);
  });
});
