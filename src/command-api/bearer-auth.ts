import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { IngressError } from '../ingress/errors.js';
import { FailureThrottle } from '../ingress/failure-throttle.js';

export interface BearerAuthOptions {
  /** Bearer key callers must present. */
  apiKey: string;
  /** Wrong keys counted per address (shared with the operators' routes on the same ingress). Default: its own. */
  throttle?: FailureThrottle;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Wrong bearer keys from one address within the window before it is answered 429. */
export const wrongKeyLimit = 20;
export const wrongKeyWindowMs = 15 * 60 * 1000;

/** The wrong-key throttle of an ingress: a burst of refusals is one warning with its count. */
export function bearerThrottle(
  logger?: Pick<FastifyBaseLogger, 'warn'>,
  now?: () => number,
): FailureThrottle {
  return new FailureThrottle({
    limit: wrongKeyLimit,
    windowMs: wrongKeyWindowMs,
    ...(now ? { now } : {}),
    onBurstEnd: ({ key, refused, from, to }) =>
      logger?.warn(
        { address: key, refused, from: new Date(from).toISOString(), to: new Date(to).toISOString() },
        'bearer requests refused after too many wrong keys from one address',
      ),
  });
}

/**
 * The check of a bearer key, compared in constant time. An address that sent `wrongKeyLimit` wrong keys
 * within the window is answered 429 with Retry-After (the key it sends then is not even compared) until the
 * oldest of them leaves the window.
 */
export function bearerCheck(apiKey: string, throttle: FailureThrottle, missing = 'missing bearer key') {
  const expected = digest(apiKey);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const retryAfter = throttle.retryAfter(request.ip);
    if (retryAfter !== null) {
      reply.header('Retry-After', String(retryAfter));
      throw new IngressError(
        429,
        'too_many_wrong_keys',
        `too many wrong bearer keys from this address: retry after ${retryAfter} s`,
      );
    }
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer (.+)$/.exec(header) : null;
    if (!match) throw new IngressError(401, 'unauthorized', missing);
    // Hashing first makes both sides the same length, so the comparison time says nothing about the key.
    if (!timingSafeEqual(digest(match[1] as string), expected)) {
      throttle.failed(request.ip);
      throw new IngressError(401, 'unauthorized', 'unknown bearer key');
    }
  };
}

/**
 * Every command API route asks for the bearer key before anything else runs (an onRequest hook). Wrapped
 * in fastify-plugin so the hook lands in the scope that registers it, the command API's, and nowhere else
 * in the ingress.
 */
export const bearerAuth = fp<BearerAuthOptions>(
  async (app, { apiKey, throttle }) => {
    if (apiKey.length === 0) throw new Error('command API key must be non-empty');
    app.addHook('onRequest', bearerCheck(apiKey, throttle ?? bearerThrottle(app.log)));
  },
  { name: 'command-api-bearer-auth' },
);
