import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';

/**
 * Starts a vendor double's HTTP server on a free local port: form-encoded bodies (the OAuth token and revoke
 * endpoints) parsed as the vendors send them, then the double's own routes.
 */
export async function startVendorDoubleServer(
  routes: (app: FastifyInstance) => void,
  options: FastifyServerOptions = {},
): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify({ logger: false, ...options });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_r, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });
  routes(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return { app, url: `http://127.0.0.1:${address.port}` };
}
