import { createHash, timingSafeEqual } from 'node:crypto';
import fp from 'fastify-plugin';
import { IngressError } from '../ingress/errors.js';

export interface BearerAuthOptions {
  /** Bearer key callers must present. */
  apiKey: string;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Every command API route asks for the bearer key before anything else runs (an onRequest hook). Wrapped
 * in fastify-plugin so the hook lands in the scope that registers it, the command API's, and nowhere else
 * in the ingress.
 */
export const bearerAuth = fp<BearerAuthOptions>(
  async (app, { apiKey }) => {
    if (apiKey.length === 0) throw new Error('command API key must be non-empty');
    const expected = digest(apiKey);
    app.addHook('onRequest', async (request) => {
      const header = request.headers.authorization;
      const match = typeof header === 'string' ? /^Bearer (.+)$/.exec(header) : null;
      if (!match) throw new IngressError(401, 'unauthorized', 'missing bearer key');
      // Hashing first makes both sides the same length, so the comparison time says nothing about the key.
      if (!timingSafeEqual(digest(match[1]!), expected)) {
        throw new IngressError(401, 'unauthorized', 'unknown bearer key');
      }
    });
  },
  { name: 'command-api-bearer-auth' },
);
