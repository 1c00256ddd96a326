import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';

/**
 * Fastify's close waits for every open connection. An in-flight request finishing during close would leave
 * its keep-alive connection open, holding close up for the keep-alive timeout (72 s by default): answers
 * sent while closing tell the client to drop the connection, so close resolves as soon as they are sent.
 */
export function closeConnectionsWhenClosing<Logger extends FastifyBaseLogger>(
  app: FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, Logger>,
): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
}
