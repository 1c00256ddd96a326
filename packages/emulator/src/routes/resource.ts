import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { orgIdOf } from '../auth/authenticate.js';
import type { Reader, Store, Tx } from '../store/store.js';
import { parseInput } from './input.js';

// The three route shapes most objects share: create (201), get by id (the domain's lookup answers 404, decision “Error bodies”)
// and a paged list (decision “Pagination”). Routes with their own guards or answers stay written out in their groups.

/** POST that creates one object from the validated body and answers 201 with its view. */
export function createRoute<S extends z.ZodType, V>(
  app: FastifyInstance,
  store: Store,
  path: string,
  body: S,
  create: (tx: Tx, orgId: string, input: z.infer<S>) => V,
  created?: (request: FastifyRequest, view: V) => void,
): void {
  app.post(path, async (request, reply) => {
    const input = parseInput(body, request.body);
    const orgId = orgIdOf(request);
    const view = store.write((tx) => create(tx, orgId, input));
    created?.(request, view);
    return reply.code(201).send(view);
  });
}

/** GET one object by the path's last parameter (`/vendor/:vendorId`). */
export function getRoute(
  app: FastifyInstance,
  store: Store,
  path: string,
  read: (reader: Reader, orgId: string, id: string) => unknown,
): void {
  const param = path.slice(path.lastIndexOf(':') + 1);
  app.get<{ Params: Record<string, string> }>(path, async (request) => {
    const orgId = orgIdOf(request);
    return store.read((r) => read(r, orgId, request.params[param] ?? ''));
  });
}

/** GET a page of objects: the validated query, each row's view under `key`, and totalResults. */
export function listRoute<S extends z.ZodType, R>(
  app: FastifyInstance,
  store: Store,
  path: string,
  query: S,
  key: string,
  list: (reader: Reader, orgId: string, query: z.infer<S>) => { rows: R[]; total: number },
  view: (reader: Reader, row: R) => unknown,
): void {
  app.get(path, async (request) => {
    const input = parseInput(query, request.query, 'query');
    const orgId = orgIdOf(request);
    return store.read((r) => {
      const { rows, total } = list(r, orgId, input);
      return { [key]: rows.map((row) => view(r, row)), totalResults: total };
    });
  });
}
