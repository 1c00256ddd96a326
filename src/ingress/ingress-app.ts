import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, RawServerDefault } from 'fastify';
import type { Logger } from '../logging/logger.js';

// The Fastify app every ingress listener is (base-app.ts makes it, server.ts adds the routes, traced-server.ts
// names its spans), logging through booksync's logger.

export type IngressApp = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, Logger>;
