import { createHash, timingSafeEqual } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IngressError } from '../errors.js';
import { CallerRateLimiter } from '../rate-limiter.js';

// Temporal's codec server protocol, so the Web UI and `temporal` CLI show encrypted payloads to
// the people allowed to see them: POST /codec/decode (and, only when asked for, /codec/encode) with
// {payloads: [{metadata, data}]}, every byte string in base64, answered in the same shape.
//
// Who may call it. A decode answers every history's business data in plain text, and an encode seals whatever
// it is given under the current key (a forged signal or input that booksync would take for its own), so
// neither is open because of where it listens. Temporal's codec-server guide ("Codecs and Encryption",
// docs.temporal.io/production-deployment/data-encryption, "Authorization") says access to a production codec
// server must be restricted, and describes the caller's credential as `Authorization: Bearer <token>`: the
// Web UI sends it when its codec setting "Pass access token" (TEMPORAL_CODEC_PASS_ACCESS_TOKEN) is on, only to
// an https endpoint, with the token of its own sign-in; the `temporal` CLI sends any value with
// `--codec-auth 'Bearer <token>'`. So a caller presents CODEC_SERVER_TOKEN as a bearer, compared in constant
// time, or the server is explicitly open (CODEC_SERVER_OPEN, or the embedded demo's loopback-only stack,
// src/runtime/codec-server-options.ts), and then, on a loopback listener, answers only requests naming a
// loopback host (a web page that rebinds its own name to 127.0.0.1 gets no answer).
//
// The Web UI calls it from the browser, so the UI's origin, and only it, is answered by CORS, with the
// headers the UI sends (X-Namespace, Authorization); a preflight carries no credential and is answered
// without one. Every request counts against its caller address's budget (429 past it), and each decode is
// logged with the caller, the namespace and the payload count, never a payload.

const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64');
const payloadsBody = z.object({
  payloads: z.array(z.object({ metadata: z.record(z.string(), base64).optional(), data: base64.optional() })),
});
type WirePayloads = z.infer<typeof payloadsBody>;

/** Who the codec server answers. */
export type CodecAccess =
  /** Callers presenting `Authorization: Bearer <token>` (CODEC_SERVER_TOKEN). */
  | { token: string }
  /**
   * Anyone who reaches the listener (CODEC_SERVER_OPEN, or the embedded demo). `loopbackHostOnly`: the
   * listener is loopback, so a request naming another host came through a rebound name and is refused.
   */
  | { open: true; loopbackHostOnly: boolean };

export const DEFAULT_CODEC_REQUESTS_PER_MINUTE = 600;

export interface CodecRoutesOptions {
  codec: PayloadCodec;
  /** The Web UI's origins (e.g. http://127.0.0.1:8233) answered by CORS; none: no CORS header at all. */
  corsOrigins: readonly string[];
  access: CodecAccess;
  /** Serve POST /codec/encode too (CODEC_SERVER_ENCODE). Default false: 404. */
  encode?: boolean;
  /** Requests a caller address may make a minute, burst included (CODEC_DECODE_RATE_LIMIT). Default 600. */
  requestsPerMinute?: number;
  /** Milliseconds now, for the rate limit. Default Date.now. */
  now?: () => number;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** The origin of a configured URL (no path, no trailing slash), as a browser's Origin header spells it. */
function originOf(url: string): string {
  return new URL(url).origin;
}

/** Whether a request's Host names this machine (127.0.0.1, ::1 or localhost, any port). */
export function isLoopbackHostname(hostname: string): boolean {
  const name = hostname.toLowerCase();
  return name === 'localhost' || name === '::1' || name === '[::1]' || /^127(\.\d{1,3}){3}$/.test(name);
}

function fromWire(body: WirePayloads): Payload[] {
  return body.payloads.map((p) => ({
    metadata: Object.fromEntries(
      Object.entries(p.metadata ?? {}).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))]),
    ),
    data: new Uint8Array(Buffer.from(p.data ?? '', 'base64')),
  }));
}

function toWire(payloads: Payload[]): WirePayloads {
  return {
    payloads: payloads.map((p) => ({
      metadata: Object.fromEntries(
        Object.entries(p.metadata ?? {}).map(([k, v]) => [
          k,
          Buffer.from(v ?? new Uint8Array()).toString('base64'),
        ]),
      ),
      data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
    })),
  };
}

export const codecRoutes: FastifyPluginAsync<CodecRoutesOptions> = async (app, options) => {
  const { codec, access } = options;
  const allowedOrigins = new Set(options.corsOrigins.map(originOf));
  const expected = 'token' in access ? digest(access.token) : null;
  const limiter = new CallerRateLimiter({
    perMinute: options.requestsPerMinute ?? DEFAULT_CODEC_REQUESTS_PER_MINUTE,
    ...(options.now ? { now: options.now } : {}),
  });
  const allowedOrigin = (request: FastifyRequest): string | null => {
    const origin = request.headers.origin;
    return typeof origin === 'string' && allowedOrigins.has(origin) ? origin : null;
  };

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  const typed = app.withTypeProvider<ZodTypeProvider>();
  // CORS for the Web UI's origin only, on every answer (a 401 or 429 too, so the UI can read it).
  app.addHook('onSend', async (request, reply) => {
    reply.header('Vary', 'Origin');
    const origin = allowedOrigin(request);
    if (origin) {
      reply.header('Access-Control-Allow-Origin', origin);
      reply.header('Access-Control-Allow-Credentials', 'true');
    }
  });
  // A browser's preflight carries no credentials: it is answered (with CORS only for the UI's origin), the
  // POST itself is checked.
  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'OPTIONS') return;
    // Before the credential: a wrong token costs the prober's budget too. (Each answer is logged once, by the
    // app's error handler, after Fastify's own line with the caller's address.)
    const decision = limiter.take(request.ip);
    if (!decision.allowed) {
      reply.header('Retry-After', String(decision.retryAfterSeconds));
      throw new IngressError(429, 'rate_limited', 'too many codec requests from this address; retry later');
    }
    if (expected) {
      const header = request.headers.authorization;
      const match = typeof header === 'string' ? /^Bearer (.+)$/i.exec(header) : null;
      if (!match) throw new IngressError(401, 'unauthorized', 'missing bearer token (CODEC_SERVER_TOKEN)');
      if (!timingSafeEqual(digest(match[1] as string), expected)) {
        throw new IngressError(401, 'unauthorized', 'unknown bearer token');
      }
    } else if ('open' in access && access.loopbackHostOnly && !isLoopbackHostname(request.hostname)) {
      throw new IngressError(
        403,
        'forbidden_host',
        'the codec server is open on loopback only and answers requests for a loopback host (127.0.0.1, localhost)',
      );
    }
  });

  const actions = options.encode ? (['encode', 'decode'] as const) : (['decode'] as const);
  for (const action of actions) {
    typed.options(`/codec/${action}`, async (request, reply) => {
      if (allowedOrigin(request)) {
        reply.header('Access-Control-Allow-Methods', 'POST, OPTIONS');
        reply.header('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization');
        reply.header('Access-Control-Max-Age', '600');
      }
      return reply.code(204).send();
    });
    typed.post(`/codec/${action}`, { schema: { body: payloadsBody } }, async (request) => {
      const payloads = fromWire(request.body);
      // The audit line: who, which namespace (the UI's X-Namespace), how many; never what.
      const namespaceHeader = request.headers['x-namespace'];
      const audit = {
        audit: `codec.${action}`,
        caller: request.ip,
        namespace: typeof namespaceHeader === 'string' ? namespaceHeader.slice(0, 200) : null,
        payloads: payloads.length,
      };
      try {
        const answer = toWire(await (action === 'encode' ? codec.encode(payloads) : codec.decode(payloads)));
        request.log.info(audit, `codec server: ${action}d payloads`);
        return answer;
      } catch (error) {
        // A key PAYLOAD_KEYS lacks, a tampered payload: the operator's problem, named without the data.
        request.log.warn({ ...audit, err: error }, `codec server: refused to ${action} payloads`);
        throw new IngressError(422, 'codec_refused', error instanceof Error ? error.message : String(error));
      }
    });
  }
};
