import type { Payload, PayloadCodec } from '@temporalio/common';
import type { FastifyPluginAsync } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IngressError } from '../errors.js';

// Temporal's codec server protocol (issue 32 §1), so the Web UI and `temporal` CLI show encrypted payloads to
// the people allowed to see them: POST /codec/encode and /codec/decode with {payloads: [{metadata, data}]},
// every byte string in base64, answered in the same shape. The Web UI calls it from the browser, so the UI's
// origin (CODEC_CORS_ORIGIN) is allowed by CORS, with the headers the UI sends (X-Namespace, Authorization).
// Who may call it: on the operations listener (private) or a loopback-only listener, whoever reaches it;
// on a shared public listener, the holder of the command API key (the server's operations key check).

const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64');
const payloadsBody = z.object({
  payloads: z.array(z.object({ metadata: z.record(z.string(), base64).optional(), data: base64.optional() })),
});
type WirePayloads = z.infer<typeof payloadsBody>;

export interface CodecRoutesOptions {
  codec: PayloadCodec;
  /** The Web UI's origin (e.g. http://127.0.0.1:8233), allowed by CORS; null: no CORS header. */
  corsOrigin: string | null;
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

export const codecRoutes: FastifyPluginAsync<CodecRoutesOptions> = async (app, { codec, corsOrigin }) => {
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  const typed = app.withTypeProvider<ZodTypeProvider>();
  if (corsOrigin) {
    app.addHook('onSend', async (_request, reply) => {
      reply.header('Access-Control-Allow-Origin', corsOrigin);
      reply.header('Access-Control-Allow-Credentials', 'true');
      reply.header('Vary', 'Origin');
    });
  }
  for (const action of ['encode', 'decode'] as const) {
    typed.options(`/codec/${action}`, async (_request, reply) => {
      reply.header('Access-Control-Allow-Methods', 'POST, OPTIONS');
      reply.header('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization');
      reply.header('Access-Control-Max-Age', '600');
      return reply.code(204).send();
    });
    typed.post(`/codec/${action}`, { schema: { body: payloadsBody } }, async (request) => {
      const payloads = fromWire(request.body);
      try {
        return toWire(await (action === 'encode' ? codec.encode(payloads) : codec.decode(payloads)));
      } catch (error) {
        // A key PAYLOAD_KEYS lacks, a tampered payload: the operator's problem, named without the data.
        request.log.warn({ err: error, action }, 'codec refused payloads');
        throw new IngressError(422, 'codec_refused', error instanceof Error ? error.message : String(error));
      }
    });
  }
};
